import { defineContextApi, route } from '@crm/kit';
import { loadFlows } from '@crm/proto';
import { enrollmentSteps, enrollments, flowNodes, flowRuns, flows } from './flows.resource';

/**
 * The flows context's route table. Flow nodes and flow runs are read-only (405 on writes);
 * enrollments need the `flows` scopes (gateway/README.md, "Authentication and scopes"); an
 * enrollment is never deleted. The bulk enrollment, the analytics and an enrollment's steps are the
 * context's own RPCs beside them.
 */
export const flowsApi = defineContextApi({
  name: 'flows',
  service: () => loadFlows().crm.flows.v1.FlowsService,
  routes: [
    route(flows, ['list', 'create', 'get', 'update', 'delete']),
    route(flowNodes, ['list', 'get']),
    route(enrollments, ['list', 'create', 'get', 'update'], { scope: 'flows' }),
    route(flowRuns, ['list', 'get']),
  ],
});

/** Contacts per `POST /v1/flows/{id}/enrollments` call (a pool has no limit). */
export const MAX_ENROLL_CONTACTS = 500;

/** Not routed on its own: listed under `/v1/enrollments/{id}/steps`. */
export { enrollmentSteps };
