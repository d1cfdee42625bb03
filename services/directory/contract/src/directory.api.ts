import { defineContextApi } from '@crm/kit';
import { loadDirectory } from '@crm/proto';

/**
 * The directory as other services reach it (authentication, users, integrations). It serves no
 * generic resource routes yet: its RPCs are its own.
 */
export const directoryApi = defineContextApi({
  name: 'directory',
  service: () => loadDirectory().crm.directory.v1.DirectoryService,
  routes: [],
});
