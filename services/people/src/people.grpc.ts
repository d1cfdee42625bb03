import { type GrpcServiceBinding, type Logger, implement, requireUuid, resourceHandlers } from '@crm/kit';
import { type PeopleServiceHandlers, type PoolMembersRequest__Output, loadPeople } from '@crm/proto';
import type { PeopleService } from './people.service';

export const PEOPLE_SERVICE_NAME = 'crm.people.v1.PeopleService';

export function peopleGrpcBinding(service: PeopleService, log: Logger): GrpcServiceBinding {
  const contacts = resourceHandlers(service.contacts);
  const organizations = resourceHandlers(service.organizations);
  const pools = resourceHandlers(service.pools);
  const poolContacts = resourceHandlers(service.poolContacts);
  const members = (request: PoolMembersRequest__Output) => ({
    ctx: { workspaceId: requireUuid(request.workspace_id, 'workspace_id'), actorUserId: request.actor_user_id || undefined },
    poolId: requireUuid(request.pool_id, 'pool_id'),
    contactIds: request.contact_ids ?? [],
  });
  // Records travel as the generic message shape of their declaration (see kit/resource-rpc).
  const implementation = implement<PeopleServiceHandlers>(
    {
      ListContacts: contacts.list,
      GetContact: contacts.get,
      CreateContact: contacts.create,
      UpdateContact: contacts.update,
      DeleteContact: contacts.delete,
      ListOrganizations: organizations.list,
      GetOrganization: organizations.get,
      CreateOrganization: organizations.create,
      UpdateOrganization: organizations.update,
      DeleteOrganization: organizations.delete,
      ListPools: pools.list,
      GetPool: pools.get,
      CreatePool: pools.create,
      UpdatePool: pools.update,
      DeletePool: pools.delete,
      ListPoolContacts: poolContacts.list,
      GetPoolContact: poolContacts.get,
      CreatePoolContact: poolContacts.create,
      DeletePoolContact: poolContacts.delete,
      AddPoolMembers: async (request: PoolMembersRequest__Output) => {
        const { ctx, poolId, contactIds } = members(request);
        return service.members.add(ctx, poolId, contactIds);
      },
      RemovePoolMembers: async (request: PoolMembersRequest__Output) => {
        const { ctx, poolId, contactIds } = members(request);
        return service.members.remove(ctx, poolId, contactIds);
      },
    } as never,
    log,
  );
  return { name: PEOPLE_SERVICE_NAME, definition: loadPeople().crm.people.v1.PeopleService.service, implementation };
}
