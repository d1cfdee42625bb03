import { defineContextApi, route } from '@crm/kit';
import { loadDirectory } from '@crm/proto';
import { integrations } from './integrations.resource';
import { users } from './users.resource';

/**
 * The directory as other services and the gateway reach it: authentication and its own RPCs, and
 * the read-only routes of users and integrations (gateway/README.md, "Users and integrations").
 */
export const directoryApi = defineContextApi({
  name: 'directory',
  service: () => loadDirectory().crm.directory.v1.DirectoryService,
  routes: [route(users, ['list', 'get']), route(integrations, ['list', 'get'])],
});
