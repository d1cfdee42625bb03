import { type Reference, type ServiceClient, existsBy } from '@crm/kit';
import type { PeopleServiceDefinition } from '@crm/proto';

/** A `contact_id` of another context: a contact of the caller's workspace. */
export const contactReference = (people: ServiceClient<PeopleServiceDefinition>): Reference => ({
  noun: 'contact',
  exists: existsBy((workspaceId, id) => people.call('GetContact', { workspace_id: workspaceId, id })),
});

/** An `organization_id` of another context: an organization of the caller's workspace. */
export const organizationReference = (people: ServiceClient<PeopleServiceDefinition>): Reference => ({
  noun: 'organization',
  exists: existsBy((workspaceId, id) => people.call('GetOrganization', { workspace_id: workspaceId, id })),
});
