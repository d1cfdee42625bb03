import { type GrpcServiceBinding, type Logger, bindContext, createAnswerToMessage, recordToMessage, requireUuid } from '@crm/kit';
import { webhookDeliveries, webhookEndpoints, webhooksApi } from '@crm/webhooks-contract';
import type { WebhooksService } from './webhooks.service';

/** WebhooksService: the route table's resources bound to their stores, and the rotation and retry RPCs. */
export function webhooksGrpcBinding(service: WebhooksService, log: Logger): GrpcServiceBinding {
  return bindContext(
    webhooksApi,
    { webhook_endpoints: service.endpoints, webhook_deliveries: service.deliveries },
    {
      async RotateWebhookEndpointSecret(request) {
        const record = await service.rotateSecret(requireUuid(request.workspace_id, 'workspace_id'), requireUuid(request.id, 'id'));
        // The create's answer shape: the record and its new secret.
        return createAnswerToMessage(webhookEndpoints, record);
      },
      async RetryWebhookDelivery(request) {
        const record = await service.retryDelivery(requireUuid(request.workspace_id, 'workspace_id'), requireUuid(request.id, 'id'));
        return recordToMessage(webhookDeliveries, record);
      },
    },
    log,
  );
}
