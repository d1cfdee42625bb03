import { baseFields, defineResource } from '@crm/kit';
import { DELIVERY_STATUSES } from './event-types';

/**
 * Webhook deliveries: one event for one endpoint (webhooks context; DESIGN.md section 4,
 * "Webhooks"). Created by the service when an event matches an endpoint, at most once per
 * (endpoint, event); read-only over the API, and sent again now with
 * `POST /v1/webhook_deliveries/{id}/retry`. The last attempt's outcome is kept on the record with
 * the count of attempts.
 */
export const webhookDeliveries = defineResource({
  name: 'webhook_deliveries',
  singular: 'webhook_delivery',
  table: 'webhook_deliveries',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  description: 'One event sent, or being sent, to one webhook endpoint, with the outcome of its last attempt.',
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
    last_error: { type: 'string', readOnly: true, nullable: true, description: 'Why the last attempt failed, in a few words; null after a success.', filter: false },
    last_duration_ms: { type: 'integer', readOnly: true, nullable: true, min: 0, description: 'How long the last attempt took, in milliseconds.', example: 84, filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});
