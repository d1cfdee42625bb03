/**
 * The public event types a webhook endpoint may subscribe to (DESIGN.md section 4, "Webhooks"):
 * the public names of what the API's records do. A contract: names are added, never changed.
 */
export const WEBHOOK_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'sent_email.sent',
  'sent_email.bounced',
  'sent_email.failed',
  'email_event.created',
  'touchpoint.created',
  'enrollment.created',
  'enrollment.completed',
  'enrollment.exited',
  'enrollment.failed',
  'task.created',
  'task.completed',
  'call_log.created',
  'meeting.created',
  'meeting.updated',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const eventTypeSet: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);
export const isWebhookEventType = (value: unknown): value is WebhookEventType => typeof value === 'string' && eventTypeSet.has(value);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
