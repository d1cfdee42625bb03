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
import { exampleUuid } from '../openapi-examples';
import { COUNT, CURSOR, DATE_TIME, TEXT_PATTERN, UUID, dataResponse, pageSchema } from '../openapi-schemas';

/** What each performance counter counts, for the reference. */
const COUNTER_DOCS: Record<(typeof PERFORMANCE_COUNTERS)[number], string> = {
  emails_sent: 'Emails sent as the user in the window.',
  emails_replied: 'Of those, emails that got a reply (each email once).',
  emails_opened: 'Of those, emails opened (each once; automated opens not counted).',
  emails_clicked: 'Of those, emails with a link clicked (each once; automated clicks not counted).',
  calls_placed: 'Calls the user logged in the window.',
  call_talk_seconds: 'Their total talk time, in seconds.',
  meetings_scheduled: 'Meetings the user booked in the window.',
  tasks_completed: 'Tasks assigned to the user completed in the window.',
};
import { type CustomRoute, pathId, upstreamCallOptions } from './resource.routes';

const TIMELINE_EVENT = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: [...TIMELINE_KINDS], description: 'What the row is: sent_email, email_event, touchpoint, call_log, meeting or task.' },
    id: { ...UUID, description: 'The record the row is about: the sent email, email event, touchpoint, call log, meeting or task.' },
    occurred_at: { ...DATE_TIME, description: `When it happened. ${DATE_TIME.description}` },
    summary: { type: 'string', maxLength: 1_000, pattern: TEXT_PATTERN, description: 'One line for people, up to 1,000 characters.' },
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
          'touchpoints logged by hand or automatic replies, calls, meetings booked, tasks created and completed. ' +
          "Use it to show a contact's history in one list instead of reading each resource.",
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'limit', in: 'query', description: 'Page size (default 50).', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: TIMELINE_MAX_LIMIT } },
          { name: 'cursor', in: 'query', description: "Opaque cursor: the previous page's next_cursor.", schema: CURSOR },
          { name: 'kind', in: 'query', description: 'Only rows of this kind.', schema: { type: 'string', enum: [...TIMELINE_KINDS] } },
          { name: 'since', in: 'query', description: 'Lower bound (inclusive) on occurred_at.', schema: DATE_TIME },
          { name: 'until', in: 'query', description: 'Upper bound (exclusive) on occurred_at.', schema: DATE_TIME },
        ],
        responses: {
          '200': {
            description: 'A page of TimelineEvent.',
            content: {
              'application/json': {
                schema: pageSchema(TIMELINE_EVENT, TIMELINE_MAX_LIMIT),
                example: {
                  data: [
                    { kind: 'email_event', id: exampleUuid('email_event'), occurred_at: '2026-03-02T10:05:00Z', summary: 'Opened "Hello Ada"', payload: { event_type: 'open', sent_email_id: exampleUuid('sent_email') } },
                    { kind: 'sent_email', id: exampleUuid('sent_email'), occurred_at: '2026-03-02T09:30:00Z', summary: 'Sent "Hello Ada"', payload: { status: 'sent' } },
                  ],
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
          'opens and clicks flagged as automated are not counted), calls placed and their talk time, meetings booked, tasks completed. ' +
          "Use it for a rep's dashboard; the counts are kept by the hour, so they are cheap to read.",
        parameters: [
          { $ref: '#/components/parameters/Id' },
          { name: 'window', in: 'query', description: 'The window ending now (default 30d).', schema: { type: 'string', enum: Object.keys(PERFORMANCE_WINDOWS) } },
        ],
        responses: {
          '200': dataResponse('UserPerformance.', {
            type: 'object',
            properties: {
              user_id: { ...UUID, description: 'The user.' },
              window: { type: 'string', enum: Object.keys(PERFORMANCE_WINDOWS), description: 'The window asked for: 24h, 7d, 30d or 90d.' },
              window_start: { ...DATE_TIME, description: `Start of the window. ${DATE_TIME.description}` },
              window_end: { ...DATE_TIME, description: `End of the window (now). ${DATE_TIME.description}` },
              ...Object.fromEntries(PERFORMANCE_COUNTERS.map((c) => [c, { ...COUNT, description: COUNTER_DOCS[c] }])),
            },
            required: ['user_id', 'window', 'window_start', 'window_end', ...PERFORMANCE_COUNTERS],
          }, {
            user_id: exampleUuid('user'),
            window: '30d',
            window_start: '2026-01-31T09:30:00Z',
            window_end: '2026-03-02T09:30:00Z',
            emails_sent: 412,
            emails_replied: 37,
            emails_opened: 198,
            emails_clicked: 44,
            calls_placed: 86,
            call_talk_seconds: 15_840,
            meetings_scheduled: 12,
            tasks_completed: 73,
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
