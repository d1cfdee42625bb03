import { type RawListParams, type ServiceClient, fromStruct } from '@crm/kit';
import {
  PERFORMANCE_COUNTERS,
  PERFORMANCE_WINDOWS,
  TIMELINE_KINDS,
  TIMELINE_MAX_LIMIT,
  parsePerformanceQuery,
  parseTimelineQuery,
} from '@crm/messaging-contract';
import type { MessagingServiceDefinition } from '@crm/proto';
import { COUNT, CURSOR, DATE_TIME, TEXT_PATTERN, UUID, dataResponse, pageSchema } from '../openapi-schemas';
import { type CustomRoute, pathId, upstreamCallOptions } from './resource.routes';

const TIMELINE_EVENT = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: [...TIMELINE_KINDS] },
    id: { ...UUID, description: 'The record the row is about: the sent email, email event, touchpoint, call log, meeting or task.' },
    occurred_at: DATE_TIME,
    summary: { type: 'string', maxLength: 1_000, pattern: TEXT_PATTERN },
    payload: { type: 'object', description: 'Details by kind (a task row carries `action`: created or completed).' },
  },
  required: ['kind', 'id', 'occurred_at', 'summary', 'payload'],
};

/**
 * `GET /v1/contacts/{id}/timeline`, answered by messaging from its engagement ledger
 * (gateway/README.md, "Timeline and performance"), under people's contacts.
 */
export function contactTimelineRoutes(client: ServiceClient<MessagingServiceDefinition>, deadlineMs: number): CustomRoute[] {
  return [
    {
      method: 'GET',
      path: '/:id/timeline',
      scope: 'contacts:read',
      openapi: {
        tags: ['contacts'],
        operationId: 'getContactTimeline',
        summary: "A contact's timeline",
        description:
          'What happened with the contact, newest first: emails sent, their events (opens, clicks, replies, bounces, unsubscribes), ' +
          'touchpoints logged by hand or automatic replies, calls, meetings booked, tasks created and completed.',
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'limit', in: 'query', description: 'Page size (default 50).', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: TIMELINE_MAX_LIMIT } },
          { name: 'cursor', in: 'query', description: "Opaque cursor: the previous page's next_cursor.", schema: CURSOR },
          { name: 'kind', in: 'query', description: 'Only rows of this kind.', schema: { type: 'string', enum: [...TIMELINE_KINDS] } },
          { name: 'since', in: 'query', description: 'Lower bound (inclusive) on occurred_at.', schema: DATE_TIME },
          { name: 'until', in: 'query', description: 'Upper bound (exclusive) on occurred_at.', schema: DATE_TIME },
        ],
        responses: {
          '200': { description: 'A page of TimelineEvent.', content: { 'application/json': { schema: pageSchema(TIMELINE_EVENT, TIMELINE_MAX_LIMIT) } } },
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
      handler: async (http, reply) => {
        const contactId = pathId(http);
        const raw = http.query as RawListParams;
        const query = parseTimelineQuery(raw);
        const response = await client.call(
          'GetContactTimeline',
          {
            workspace_id: http.principal!.workspaceId,
            contact_id: contactId,
            limit: query.limit,
            ...(query.cursor ? { cursor: query.cursor } : {}),
            ...(query.kind ? { kind: query.kind } : {}),
            ...(query.since ? { since: query.since.toISOString() } : {}),
            ...(query.until ? { until: query.until.toISOString() } : {}),
          },
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return {
          data: response.data.map((e) => ({ kind: e.kind, id: e.id, occurred_at: e.occurred_at, summary: e.summary, payload: fromStruct(e.payload) })),
          next_cursor: response.page?.next_cursor || null,
          has_more: response.page?.has_more ?? false,
        };
      },
    },
  ];
}

/** `GET /v1/users/{id}/performance`, answered by messaging from the ledger's hourly aggregates, under directory's users. */
export function userPerformanceRoutes(client: ServiceClient<MessagingServiceDefinition>, deadlineMs: number): CustomRoute[] {
  return [
    {
      method: 'GET',
      path: '/:id/performance',
      scope: 'users:read',
      openapi: {
        tags: ['users'],
        operationId: 'getUserPerformance',
        summary: "A user's performance",
        description:
          'Counts for the user over the window ending now: emails sent, and of those replied, opened and clicked (each email once; ' +
          'opens and clicks flagged as automated are not counted), calls placed and their talk time, meetings booked, tasks completed.',
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'window', in: 'query', description: 'The window ending now (default 30d).', schema: { type: 'string', enum: Object.keys(PERFORMANCE_WINDOWS) } },
        ],
        responses: {
          '200': dataResponse('UserPerformance.', {
            type: 'object',
            properties: {
              user_id: UUID,
              window: { type: 'string', enum: Object.keys(PERFORMANCE_WINDOWS) },
              window_start: DATE_TIME,
              window_end: DATE_TIME,
              ...Object.fromEntries(PERFORMANCE_COUNTERS.map((c) => [c, COUNT])),
            },
            required: ['user_id', 'window', 'window_start', 'window_end', ...PERFORMANCE_COUNTERS],
          }),
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
      handler: async (http, reply) => {
        const userId = pathId(http);
        const window = parsePerformanceQuery(http.query as RawListParams);
        const p = await client.call(
          'GetUserPerformance',
          { workspace_id: http.principal!.workspaceId, user_id: userId, window },
          upstreamCallOptions(http, reply, deadlineMs),
        );
        return {
          data: {
            user_id: p.user_id,
            window: p.window,
            window_start: p.window_start,
            window_end: p.window_end,
            ...Object.fromEntries(PERFORMANCE_COUNTERS.map((c) => [c, p[c]])),
          },
        };
      },
    },
  ];
}
