import { baseFields, defineResource } from '@crm/kit';
import { DELIVERY_STATUSES } from './event-types';

/** How many attempts `attempt_log` keeps, the most recent; the worker's UPDATEs trim to the same 20 (delivery.worker.ts). */
export const ATTEMPT_LOG_SIZE = 20;

/**
 * Webhook deliveries: one event for one endpoint (webhooks context; DESIGN.md section 4,
 * "Webhooks"). Created by the service when an event matches an endpoint, at most once per
 * (endpoint, event); read-only over the API, and sent again now with
 * `POST /v1/webhook_deliveries/{id}/retry`. The last attempt's outcome is kept on the record with
 * the count of attempts, and each attempt's in `attempt_log`: the most recent
 * ATTEMPT_LOG_SIZE, since a delivery can be retried by hand without end.
 */
export const webhookDeliveries = defineResource({
  name: 'webhook_deliveries',
  singular: 'webhook_delivery',
  table: 'webhook_deliveries',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  description: 'One event sent, or being sent, to one webhook endpoint, with the outcome of its last attempt and of each recent one.',
  operationDocs: {
    list: "Filter by endpoint_id and status=failed to find what a receiver missed.",
    get: 'Use it to read one delivery and its last attempt.',
  },
  fields: {
    id: baseFields.id,
    // Deliveries are the service's records: never given an id of the client's.
    svc_uid: { ...baseFields.svc_uid, readOnly: true, nullable: true, filter: false, description: 'Always null: deliveries are created by the service, never given a client id.' },
    endpoint_id: { type: 'uuid', readOnly: true, nullable: false, filter: true, description: 'The endpoint (webhook_endpoints resource) it is sent to.' },
    event_id: { type: 'uuid', readOnly: true, nullable: false, description: "The event's id, sent as the webhook-id header on every attempt.", filter: false },
    event_type: { type: 'string', readOnly: true, nullable: false, filter: true, description: 'The public event type, such as contact.created.', example: 'contact.created' },
    payload: { type: 'json', readOnly: true, nullable: false, description: 'The body sent: {type, timestamp, data}, data being the record as the API returned it when the event was consumed; for a deleted record (a *.deleted event, or one deleted meanwhile) {id, svc_uid?, deleted: true}.', schema: { type: 'object' }, example: { type: 'contact.created', timestamp: '2026-03-02T09:30:00.000Z', data: { id: '0195a7c4-5b1e-7c3a-9d2f-6e8b1a2c3d4e' } } },
    status: { type: 'enum', values: DELIVERY_STATUSES, readOnly: true, nullable: false, filter: true, description: 'pending (to be sent or retried), succeeded (a 2xx answer) or failed (every retry spent).', example: 'succeeded' },
    attempts: { type: 'integer', readOnly: true, nullable: false, min: 0, description: 'How many times it was sent.', example: 1, filter: false },
    next_attempt_at: { type: 'datetime', readOnly: true, nullable: true, description: 'When it is sent next (RFC 3339); null once succeeded or failed.' },
    last_attempt_at: { type: 'datetime', readOnly: true, nullable: true, description: 'When it was last sent (RFC 3339); null before the first attempt.' },
    last_status_code: { type: 'integer', readOnly: true, nullable: true, description: "The HTTP status of the last attempt's answer; null when none came (timeout, refused connection).", example: 200, filter: false },
    // The worker keeps at most 500 characters of an error (delivery.worker.ts), more than a string's default 255.
    last_error: { type: 'string', readOnly: true, nullable: true, maxLength: 500, description: 'Why the last attempt failed, in a few words; null after a success.', filter: false },
    last_duration_ms: { type: 'integer', readOnly: true, nullable: true, min: 0, description: 'How long the last attempt took, in milliseconds.', example: 84, filter: false },
    attempt_log: {
      type: 'json',
      readOnly: true,
      nullable: false,
      description: `Each attempt, oldest first: its number (attempt), when it was sent (at, RFC 3339), the HTTP status of the answer (status_code; null when none came), how long it took (duration_ms) and why it failed (error; null after a success). Only the most recent ${ATTEMPT_LOG_SIZE} are kept; empty before the first attempt.`,
      schema: {
        type: 'array',
        maxItems: ATTEMPT_LOG_SIZE,
        items: {
          type: 'object',
          required: ['attempt', 'at', 'status_code', 'duration_ms', 'error'],
          additionalProperties: false,
          properties: {
            attempt: { type: 'integer', format: 'int32', minimum: 1, maximum: 2147483647, description: 'Which attempt it was, from 1; attempts counts them all.' },
            at: { type: 'string', format: 'date-time', maxLength: 24, description: 'When it was sent (RFC 3339 in UTC, with milliseconds).' },
            status_code: { type: ['integer', 'null'], format: 'int32', minimum: 0, maximum: 999, description: "The HTTP status of the answer; null when none came (timeout, refused connection)." },
            duration_ms: { type: 'integer', format: 'int32', minimum: 0, maximum: 2147483647, description: 'How long it took, in milliseconds.' },
            // The pattern the reference gives last_error, the same text (gateway's TEXT_PATTERN).
            error: { type: ['string', 'null'], maxLength: 500, pattern: '^(?!\\uFEFF)[^\\u0000]*$', description: 'Why it failed, in a few words; null for a success.' },
          },
        },
      },
      example: [
        { attempt: 1, at: '2026-03-02T09:30:00.120Z', status_code: 503, duration_ms: 212, error: 'answered 503' },
        { attempt: 2, at: '2026-03-02T09:30:05.310Z', status_code: 200, duration_ms: 84, error: null },
      ],
    },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
