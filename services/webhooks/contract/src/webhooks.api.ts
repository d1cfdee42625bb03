import { defineContextApi, route } from '@crm/kit';
import { loadWebhooks } from '@crm/proto';
import { webhookDeliveries } from './webhook-deliveries.resource';
import { webhookEndpoints } from './webhook-endpoints.resource';

/**
 * The webhooks context's route table. Deliveries are created by the service and only read over the
 * API. Both resources need the one scope resource `webhooks` (`webhooks:read|write|delete|*`).
 * RotateWebhookEndpointSecret and RetryWebhookDelivery are the context's own RPCs beside them.
 */
export const webhooksApi = defineContextApi({
  name: 'webhooks',
  service: () => loadWebhooks().crm.webhooks.v1.WebhooksService,
  // One scope resource for both (DESIGN.md section 4, "scopes `webhooks:*`").
  routes: [
    route(webhookEndpoints, ['list', 'create', 'get', 'update', 'delete'], { scope: 'webhooks' }),
    route(webhookDeliveries, ['list', 'get'], { scope: 'webhooks' }),
  ],
});
