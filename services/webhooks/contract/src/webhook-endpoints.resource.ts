import { baseFields, defineResource } from '@crm/kit';
import { WEBHOOK_EVENT_TYPES } from './event-types';

/**
 * Webhook endpoints: where a workspace wants to hear of its records' changes (webhooks context;
 * DESIGN.md section 4, "Webhooks"). The signing secret (`whsec_<base64>`) is kept encrypted
 * beside the record. The record itself never carries it: `secret` is a field of the create's answer
 * (createAnswerFields) and of `POST /v1/webhook_endpoints/{id}/rotate_secret`'s, and of no other.
 * No custom fields: an unknown property in a body is refused (422).
 */
export const webhookEndpoints = defineResource({
  name: 'webhook_endpoints',
  singular: 'webhook_endpoint',
  table: 'webhook_endpoints',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  uniqueConstraints: { webhook_endpoints_svc_uid_key: 'svc_uid' },
  description: 'An HTTPS address that receives signed notifications of the events it subscribes to.',
  operationDocs: {
    list: "Use it to review a workspace's endpoints; filter by enabled to find those the service disabled.",
    get: 'Use it to read one endpoint (never its secret).',
    create: 'Register an https URL; the answer carries the signing secret, shown this once.',
    update: 'Change the URL, the event types or the description, or set enabled back to true after fixing a receiver.',
    delete: 'Use it to stop deliveries to an endpoint for good; its pending deliveries are dropped.',
  },
  updateExample: { enabled: true },
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    url: { type: 'url', required: true, nullable: false, maxLength: 2048, description: 'Where events are POSTed: an https URL whose host resolves to a public address; required.', example: 'https://hooks.example.com/crm', filter: false },
    description: { type: 'string', maxLength: 1000, description: 'What the endpoint is for, up to 1,000 characters.', example: 'Sync contacts to the data warehouse', filter: false },
    // Validated by the service against WEBHOOK_EVENT_TYPES; [] when omitted.
    event_types: {
      type: 'json',
      nullable: false,
      description: `The event types delivered, an array of names; empty (the default) means every type. One of: ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
      schema: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, uniqueItems: true, maxItems: WEBHOOK_EVENT_TYPES.length },
      example: ['contact.created', 'contact.updated'],
    },
    // true when omitted; applied by the service.
    enabled: { type: 'boolean', nullable: false, filter: true, description: 'Whether events are delivered; true when omitted. The service sets it to false when every delivery has failed for 5 days.', example: true },
    disabled_reason: { type: 'string', readOnly: true, nullable: true, description: 'Why the service disabled the endpoint, set by the server; null while enabled or when disabled by hand.', filter: false },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
  // Never stored in clear, never read back: the service keeps only its sealed form (migrations.ts).
  createAnswerFields: {
    secret: { type: 'string', readOnly: true, nullable: false, description: 'The signing secret (whsec_ followed by base64), shown only in the answers of create and rotate_secret: keep it to verify signatures. No read returns it.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  },
});
