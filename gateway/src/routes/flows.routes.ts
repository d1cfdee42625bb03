import { CrmError, type RawListParams, type ServiceClient, isUuid, listParameterNames, messageToRecord, parseListQuery, toListRequest } from '@crm/kit';
import { MAX_ENROLL_CONTACTS, NODE_TYPES, enrollmentSteps, flows } from '@crm/flows-contract';
import type { FlowsServiceDefinition } from '@crm/proto';
import { EXAMPLE_TIME, exampleUuid, recordExample } from '../openapi-examples';
import { COUNT, CURSOR, DATE_TIME, TEXT_PATTERN, UUID, idList, pageSchema } from '../openapi-schemas';
import { type CustomRoute, noQuery, pathId, requireBody, upstreamCallOptions } from './resource.routes';

const ids = (description: string) => idList(MAX_ENROLL_CONTACTS, description);
/** A flow's graph holds at most this many nodes (its declaration's schema). */
const MAX_FLOW_NODES = (flows.fields.nodes.schema as { maxItems: number }).maxItems;

/** `{contact_ids}` (1 to 500 UUIDs) or `{pool_id}`, nothing else. */
export function parseEnrollBody(body: unknown): { contactIds: string[] } | { poolId: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw CrmError.validation([{ field: '(body)', message: 'must be a JSON object' }]);
  }
  const issues: { field: string; message: string }[] = [];
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'contact_ids' && key !== 'pool_id') issues.push({ field: key, message: 'is not a field of this request' });
  }
  const hasIds = record.contact_ids !== undefined && record.contact_ids !== null;
  const hasPool = record.pool_id !== undefined && record.pool_id !== null;
  if (hasIds === hasPool) issues.push({ field: 'contact_ids', message: 'give contact_ids or pool_id (exactly one)' });
  if (hasIds) {
    const list = record.contact_ids;
    if (!Array.isArray(list) || list.length < 1 || list.length > MAX_ENROLL_CONTACTS) {
      issues.push({ field: 'contact_ids', message: `must be an array of 1 to ${MAX_ENROLL_CONTACTS} contact ids` });
    } else {
      const bad = list.findIndex((id) => typeof id !== 'string' || !isUuid(id));
      if (bad >= 0) issues.push({ field: `contact_ids[${bad}]`, message: 'must be a UUID' });
    }
  }
  if (hasPool && (typeof record.pool_id !== 'string' || !isUuid(record.pool_id))) issues.push({ field: 'pool_id', message: 'must be a UUID' });
  if (issues.length) throw CrmError.validation(issues);
  return hasIds ? { contactIds: (record.contact_ids as string[]).map((id) => id.toLowerCase()) } : { poolId: (record.pool_id as string).toLowerCase() };
}

/**
 * Routes under `/v1/flows`: `POST /{id}/enrollments` (contacts or a whole pool, into the flow) and
 * `GET /{id}/analytics` (FlowAnalytics).
 */
export function flowRoutes(client: ServiceClient<FlowsServiceDefinition>, deadlineMs: number): CustomRoute[] {
  return [
    {
      method: 'POST',
      path: '/:id/enrollments',
      scope: 'flows:write',
      openapi: {
        tags: ['flows'],
        operationId: 'enrollContacts',
        summary: 'Enroll contacts, or every member of a pool, in a flow',
        description:
          `Up to ${MAX_ENROLL_CONTACTS} \`contact_ids\`, or a \`pool_id\` (every member, however many). Contacts already in the flow ` +
          '(active or paused), unknown to the workspace, or whose address is suppressed (when the flow sends email) are listed, not enrolled. ' +
          'Into a flow in any status but archived (409). Use it to start a campaign for a list of contacts or a whole pool; ' +
          'enrollments in a flow that is not active wait until it is.',
        parameters: [{ $ref: '#/components/parameters/Id' }, { $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: 'Exactly one of contact_ids and pool_id (the other absent or null).',
                oneOf: [
                  { required: ['contact_ids'], properties: { contact_ids: ids('Contact ids, given.') } },
                  { required: ['pool_id'], properties: { pool_id: { ...UUID, description: 'A pool, given.' } } },
                ],
                properties: {
                  contact_ids: { ...ids(`Contact ids, 1 to ${MAX_ENROLL_CONTACTS}.`), type: ['array', 'null'], minItems: 1, maxItems: MAX_ENROLL_CONTACTS },
                  pool_id: { ...UUID, type: ['string', 'null'], description: 'A pool: every member is enrolled, however many.' },
                },
                additionalProperties: false,
              },
              example: { contact_ids: [exampleUuid('contact'), exampleUuid('contact-2')] },
            },
          },
        },
        responses: {
          '200': {
            description: 'What the call did with each contact.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: {
                      type: 'object',
                      description: 'The contacts by what became of them.',
                      properties: {
                        enrolled: ids('Now enrolled.'),
                        already_enrolled: ids('Had an active or paused enrollment in this flow.'),
                        not_found: ids('No such contact in the workspace.'),
                        suppressed: ids('Their address is suppressed (unsubscribed, hard-bounced).'),
                      },
                    },
                  },
                  required: ['data'],
                },
                example: { data: { enrolled: [exampleUuid('contact')], already_enrolled: [exampleUuid('contact-2')], not_found: [], suppressed: [] } },
              },
            },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
          '409': { $ref: '#/components/responses/Conflict' },
          '422': { $ref: '#/components/responses/ValidationFailed' },
        },
      },
      handler: async (http, reply) => {
        const flowId = pathId(http);
        noQuery(http);
        const target = parseEnrollBody(requireBody(http));
        const principal = http.principal!;
        const r = await client.call(
          'EnrollContacts',
          {
            workspace_id: principal.workspaceId,
            flow_id: flowId,
            ...('contactIds' in target ? { contact_ids: target.contactIds } : { pool_id: target.poolId }),
            actor_user_id: principal.userId ?? '',
          },
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return { data: { enrolled: r.enrolled, already_enrolled: r.already_enrolled, not_found: r.not_found, suppressed: r.suppressed } };
      },
    },
    {
      method: 'GET',
      path: '/:id/analytics',
      scope: 'flows:read',
      openapi: {
        tags: ['flows'],
        operationId: 'getFlowAnalytics',
        summary: "A flow's analytics",
        description:
          '`enrollments` counts by status, `exits` counts by exit reason, `funnel` one item per node in graph order with the number of ' +
          'enrollments that reached it. Use it to watch a campaign: it is computed when asked, so poll it rather than list enrollments.',
        parameters: [{ $ref: '#/components/parameters/Id' }],
        responses: {
          '200': {
            description: 'FlowAnalytics.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: {
                      type: 'object',
                      description: "The flow's analytics.",
                      properties: {
                        flow_id: { ...UUID, description: 'The flow.' },
                        flow_name: { type: ['string', 'null'], maxLength: 255, pattern: TEXT_PATTERN, description: "The flow's name." },
                        enrollments: { type: 'object', additionalProperties: COUNT, description: 'Enrollments by status (active, paused, completed, exited, failed).' },
                        exits: { type: 'object', additionalProperties: COUNT, description: 'Exited enrollments by exit_reason.' },
                        funnel: {
                          type: 'array',
                          maxItems: MAX_FLOW_NODES,
                          description: 'One item per node, in graph order.',
                          items: {
                            type: 'object',
                            properties: {
                              node_id: { ...UUID, description: 'The node.' },
                              node_label: { type: ['string', 'null'], maxLength: 255, pattern: TEXT_PATTERN, description: "The node's label." },
                              node_type: { type: 'string', enum: [...NODE_TYPES], description: "The node's type." },
                              count: { ...COUNT, description: 'Enrollments that reached the node.' },
                            },
                          },
                        },
                      },
                    },
                  },
                  required: ['data'],
                },
                example: {
                  data: {
                    flow_id: exampleUuid('flow'),
                    flow_name: 'Webinar follow-up',
                    enrollments: { active: 120, paused: 3, completed: 64, exited: 11, failed: 0 },
                    exits: { replied: 9, unsubscribed: 2 },
                    funnel: [
                      { node_id: exampleUuid('node-hello'), node_label: 'First email', node_type: 'email', count: 198 },
                      { node_id: exampleUuid('node-pause'), node_label: 'Wait three days', node_type: 'wait', count: 187 },
                      { node_id: exampleUuid('node-call'), node_label: 'Call', node_type: 'call', count: 70 },
                      { node_id: exampleUuid('node-done'), node_label: null, node_type: 'end', count: 64 },
                    ],
                  },
                },
              },
            },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
      handler: async (http, reply) => {
        const id = pathId(http);
        noQuery(http);
        const a = await client.call('GetFlowAnalytics', { workspace_id: http.principal!.workspaceId, id }, upstreamCallOptions(http, reply, deadlineMs));
        return {
          data: {
            flow_id: a.flow_id,
            flow_name: a.flow_name ?? null,
            enrollments: a.enrollments ?? {},
            exits: a.exits ?? {},
            funnel: (a.funnel ?? []).map((f) => ({ node_id: f.node_id, node_label: f.node_label ?? null, node_type: f.node_type, count: f.count })),
          },
        };
      },
    },
  ];
}

/** `GET /v1/enrollments/{id}/steps`: an enrollment's history, newest first, with the usual cursor. */
export function enrollmentRoutes(client: ServiceClient<FlowsServiceDefinition>, deadlineMs: number): CustomRoute[] {
  const allowed = new Set(listParameterNames(enrollmentSteps).filter((name) => name !== 'enrollment_id'));
  return [
    {
      method: 'GET',
      path: '/:id/steps',
      scope: 'flows:read',
      describes: [enrollmentSteps],
      openapi: {
        tags: ['enrollments'],
        operationId: 'listEnrollmentSteps',
        summary: "An enrollment's history",
        description:
          'What the engine did for the enrollment (node, outcome, the ids of the email or task it created, when), newest first. ' +
          'Use it to see why an enrollment is where it is, or why it failed.',
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'limit', in: 'query', description: 'Page size (default 50).', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: enrollmentSteps.maxLimit } },
          { name: 'cursor', in: 'query', description: "Opaque cursor: the previous page's next_cursor.", schema: CURSOR },
          { name: 'sort', in: 'query', description: 'occurred_at or -occurred_at (default).', schema: { type: 'string', enum: ['occurred_at', '-occurred_at'] } },
          { name: 'since', in: 'query', description: 'Lower bound (inclusive) on occurred_at.', schema: DATE_TIME },
          { name: 'until', in: 'query', description: 'Upper bound (exclusive) on occurred_at.', schema: DATE_TIME },
          { name: 'updated_since', in: 'query', description: 'Only steps with updated_at strictly after this.', schema: DATE_TIME },
        ],
        responses: {
          '200': {
            description: 'A page of steps.',
            content: {
              'application/json': {
                schema: pageSchema({ $ref: '#/components/schemas/EnrollmentStep' }, enrollmentSteps.maxLimit),
                example: {
                  data: [{ ...recordExample(enrollmentSteps), sent_email_id: exampleUuid('sent_email'), occurred_at: EXAMPLE_TIME }],
                  next_cursor: null,
                  has_more: false,
                },
              },
            },
          },
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
      handler: async (http, reply) => {
        const enrollmentId = pathId(http);
        const raw = { ...(http.query as RawListParams) };
        for (const name of Object.keys(raw)) {
          if (!allowed.has(name)) throw CrmError.invalid(`unknown query parameter ${name}`, { parameter: name });
        }
        raw.enrollment_id = enrollmentId;
        parseListQuery(enrollmentSteps, raw);
        const response = await client.call(
          'ListEnrollmentSteps',
          toListRequest(http.principal!.workspaceId, enrollmentSteps, raw),
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return {
          data: response.data.map((m) => messageToRecord(enrollmentSteps, m)),
          next_cursor: response.page?.next_cursor || null,
          has_more: response.page?.has_more ?? false,
        };
      },
    },
  ];
}
