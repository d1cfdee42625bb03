import { type GrpcServiceBinding, type Logger, type WriteContext, bindContext, recordToMessage, requireUuid } from '@crm/kit';
import { contacts, peopleApi } from '@crm/people-contract';
import type { PoolMembersRequest__Output } from '@crm/proto';
import type { PeopleService } from './people.service';

/** PeopleService: the route table's resources bound to their stores, and the bulk member RPCs. */
export function peopleGrpcBinding(service: PeopleService, log: Logger): GrpcServiceBinding {
  const members = (request: PoolMembersRequest__Output): { ctx: WriteContext; poolId: string; contactIds: string[] } => ({
    ctx: { workspaceId: requireUuid(request.workspace_id, 'workspace_id'), actorUserId: request.actor_user_id || undefined },
    poolId: requireUuid(request.pool_id, 'pool_id'),
    contactIds: request.contact_ids ?? [],
  });
  return bindContext(
    peopleApi,
    { contacts: service.contacts, organizations: service.organizations, pools: service.pools, pool_contacts: service.poolContacts },
    {
      async AddPoolMembers(request) {
        const { ctx, poolId, contactIds } = members(request);
        return service.members.add(ctx, poolId, contactIds);
      },
      async RemovePoolMembers(request) {
        const { ctx, poolId, contactIds } = members(request);
        return service.members.remove(ctx, poolId, contactIds);
      },
      async ListContactRefs(request) {
        const workspaceId = requireUuid(request.workspace_id, 'workspace_id');
        if (request.pool_id) {
          return service.refs.ofPool(workspaceId, requireUuid(request.pool_id, 'pool_id'), request.after || undefined, request.limit || 1_000);
        }
        return service.refs.ofIds(workspaceId, request.contact_ids ?? []);
      },
      async GetContacts(request) {
        const records = await service.refs.records(requireUuid(request.workspace_id, 'workspace_id'), request.ids ?? []);
        return { contacts: records.map((record) => recordToMessage(contacts, record)) };
      },
    },
    log,
  );
}
