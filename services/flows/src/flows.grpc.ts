import { type GrpcServiceBinding, CrmError, type Logger, bindContext, fromListRequest, recordToMessage, requireUuid } from '@crm/kit';
import { enrollmentSteps, flowsApi } from '@crm/flows-contract';
import type { FlowsService } from './flows.service';

/** FlowsService: the route table's resources bound to their stores, and the context's own RPCs. */
export function flowsGrpcBinding(service: FlowsService, log: Logger): GrpcServiceBinding {
  return bindContext(
    flowsApi,
    {
      flows: service.flows,
      flow_nodes: service.flowNodes,
      enrollments: service.enrollments.store,
      flow_runs: service.flowRuns,
    },
    {
      async ListEnrollmentSteps(request) {
        const workspaceId = requireUuid(request.workspace_id, 'workspace_id');
        const enrollmentId = requireUuid(request.filters?.enrollment_id, 'enrollment_id');
        // An unknown enrollment is 404, not an empty history.
        await service.enrollments.store.get(workspaceId, enrollmentId);
        const page = await service.enrollmentSteps.list(workspaceId, fromListRequest(enrollmentSteps, request));
        return {
          data: page.data.map((record) => recordToMessage(enrollmentSteps, record)),
          page: { next_cursor: page.nextCursor ?? '', has_more: page.hasMore },
        };
      },
      async EnrollContacts(request) {
        const workspaceId = requireUuid(request.workspace_id, 'workspace_id');
        const flowId = requireUuid(request.flow_id, 'flow_id');
        const ids = request.contact_ids ?? [];
        if (ids.length && request.pool_id) throw CrmError.validation([{ field: 'pool_id', message: 'give contact_ids or pool_id, not both' }]);
        if (!ids.length && !request.pool_id) throw CrmError.validation([{ field: 'contact_ids', message: 'give contact_ids or pool_id' }]);
        const ctx = { workspaceId, ...(request.actor_user_id ? { actorUserId: request.actor_user_id } : {}) };
        return service.enrollments.enroll(ctx, flowId, ids.length ? { contactIds: ids } : { poolId: requireUuid(request.pool_id, 'pool_id') });
      },
      async GetFlowAnalytics(request) {
        return service.analytics(requireUuid(request.workspace_id, 'workspace_id'), requireUuid(request.id, 'id'));
      },
    },
    log,
  );
}
