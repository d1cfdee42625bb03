/**
 * The webhooks context's contract: resource declarations and enumerations shared by the gateway
 * and the webhooks service.
 */
export { webhookEndpoints } from './webhook-endpoints.resource';
export { webhookDeliveries } from './webhook-deliveries.resource';
export { DELIVERY_STATUSES, type DeliveryStatus, WEBHOOK_EVENT_TYPES, type WebhookEventType, isWebhookEventType } from './event-types';
export { webhooksApi } from './webhooks.api';
