import { type ServiceClient, messageToCreateAnswer, messageToRecord } from '@crm/kit';
import type { WebhooksProto } from '@crm/proto';
import { webhookDeliveries, webhookEndpoints } from '@crm/webhooks-contract';
import { createAnswerExample, recordExample } from '../openapi-examples';
import { dataResponse } from '../openapi-schemas';
import { type CustomRoute, noQuery, pathId, upstreamCallOptions } from './resource.routes';

type WebhooksServiceDefinition = WebhooksProto['crm']['webhooks']['v1']['WebhooksService']['service'];

const ERRORS = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '404': { $ref: '#/components/responses/NotFound' },
};

/** `POST /v1/webhook_endpoints/{id}/rotate_secret`: a new signing secret, shown this once. */
export function webhookEndpointRoutes(client: ServiceClient<WebhooksServiceDefinition>, deadlineMs: number): CustomRoute[] {
  return [
    {
      method: 'POST',
      path: '/:id/rotate_secret',
      scope: 'webhooks:write',
      openapi: {
        tags: ['webhook_endpoints'],
        operationId: 'rotateWebhookEndpointSecret',
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Issues a new `secret` and answers the endpoint with it, this once. For 24 hours the previous secret signs too ' +
          '(two `v1,` entries in `webhook-signature`), so a receiver can switch without missing a delivery. No body.',
        parameters: [{ $ref: '#/components/parameters/Id' }],
        responses: {
          // The create's answer shape: the record and its `secret` (WebhookEndpointCreated).
          '200': dataResponse('The endpoint, with its new secret.', { $ref: '#/components/schemas/WebhookEndpointCreated' }, createAnswerExample(webhookEndpoints)),
          ...ERRORS,
        },
      },
      handler: async (http, reply) => {
        const id = pathId(http);
        noQuery(http);
        const message = await client.call('RotateWebhookEndpointSecret', { workspace_id: http.principal!.workspaceId, id }, upstreamCallOptions(http, reply, deadlineMs));
        return { data: messageToCreateAnswer(webhookEndpoints, message) };
      },
    },
  ];
}

/** `POST /v1/webhook_deliveries/{id}/retry`: sends a delivery again now, with the same webhook-id. */
export function webhookDeliveryRoutes(client: ServiceClient<WebhooksServiceDefinition>, deadlineMs: number): CustomRoute[] {
  return [
    {
      method: 'POST',
      path: '/:id/retry',
      scope: 'webhooks:write',
      openapi: {
        tags: ['webhook_deliveries'],
        operationId: 'retryWebhookDelivery',
        summary: 'Send a webhook delivery again now',
        description:
          'Makes the delivery pending and due now, whatever its status; it is sent with the same `webhook-id`, so a receiver that ' +
          'already handled it can tell. Use it after fixing a receiver, for deliveries that failed. No body.',
        parameters: [{ $ref: '#/components/parameters/Id' }],
        responses: {
          '200': dataResponse('The delivery, pending.', { $ref: '#/components/schemas/WebhookDelivery' }, { ...recordExample(webhookDeliveries), status: 'pending' }),
          ...ERRORS,
        },
      },
      handler: async (http, reply) => {
        const id = pathId(http);
        noQuery(http);
        const message = await client.call('RetryWebhookDelivery', { workspace_id: http.principal!.workspaceId, id }, upstreamCallOptions(http, reply, deadlineMs));
        return { data: messageToRecord(webhookDeliveries, message) };
      },
    },
  ];
}
