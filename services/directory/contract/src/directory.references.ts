import { type Reference, type ServiceClient, existsBy } from '@crm/kit';
import type { DirectoryServiceDefinition } from '@crm/proto';

/** An `owner_id`, `assignee_id`, ...: a user of the caller's workspace (active or not). */
export const userReference = (directory: ServiceClient<DirectoryServiceDefinition>): Reference => ({
  noun: 'user',
  exists: existsBy((workspaceId, id) => directory.call('GetUser', { workspace_id: workspaceId, id })),
});
