import { type SqlServiceDefinition, parseSecretsKey } from '@crm/kit';
import { webhookDeliveries, webhookEndpoints } from '@crm/webhooks-contract';
import { activitiesApi } from '@crm/activities-contract';
import { flowsApi } from '@crm/flows-contract';
import { messagingApi } from '@crm/messaging-contract';
import { peopleApi } from '@crm/people-contract';
import { type RecordSource, peerRecordSource, subscribeEventStream } from './event-stream.consumer';
import { type DeliveryWorker, createDeliveryWorker } from './delivery.worker';
import type { EgressPolicy } from './egress';
import { migrations } from './migrations';
import { webhooksSettings } from './settings';
import { type WebhooksService, createWebhooksService } from './webhooks.service';
import { webhooksGrpcBinding } from './webhooks.grpc';

/** The service with its delivery worker, which the consumer and the retry RPC wake. */
export interface RunningWebhooks extends WebhooksService {
  readonly worker: DeliveryWorker;
  /** Reads an event's record from its owning context: the body's data. */
  readonly records: RecordSource;
}

/** The contexts whose records the bodies carry (PEOPLE_ADDR, MESSAGING_ADDR, FLOWS_ADDR, ACTIVITIES_ADDR). */
const peers = { people: peopleApi, messaging: messagingApi, flows: flowsApi, activities: activitiesApi } as const;

/**
 * The webhooks service: endpoints and deliveries over WebhooksService, a durable consumer of the
 * event stream that turns events into deliveries (reading each record from its owning context:
 * people, messaging, flows, activities), and the delivery worker.
 */
export const webhooksService: SqlServiceDefinition<RunningWebhooks, typeof peers, typeof webhooksSettings> = {
  name: 'webhooks',
  migrations,
  resources: [webhookEndpoints, webhookDeliveries],
  config: webhooksSettings,
  peers,
  create({ db, cursors, config, log, clock, peers: clients }) {
    if (!config.SECRETS_KEY) throw new Error('SECRETS_KEY is required: it seals webhook endpoint secrets at rest');
    const egress: EgressPolicy = { allowHttp: config.WEBHOOKS_ALLOW_HTTP === '1', allowPrivate: config.WEBHOOKS_ALLOW_PRIVATE === '1' };
    if (egress.allowHttp || egress.allowPrivate) log.warn({ egress }, 'webhooks: egress checks lifted (WEBHOOKS_ALLOW_HTTP/WEBHOOKS_ALLOW_PRIVATE): development and tests only');
    let worker: DeliveryWorker | undefined;
    const service = createWebhooksService({ db, cursors, secretsKey: parseSecretsKey(config.SECRETS_KEY), egress, wakeDelivery: () => worker?.wake() });
    worker = createDeliveryWorker({ db, openSecrets: service.openSecrets, egress, log, clock, leaseMs: config.WEBHOOKS_DELIVERY_LEASE_MS,
      perEndpoint: config.WEBHOOKS_ENDPOINT_CONCURRENCY,
      maxInFlight: config.WEBHOOKS_CONCURRENCY,
    });
    return { ...service, worker, records: peerRecordSource(peers, clients) };
  },
  bindings: (service, log) => [webhooksGrpcBinding(service, log)],
  consumers: async (service, { bus, db }) => [await subscribeEventStream(bus, db, service.records, () => service.worker.wake())],
  workers: (service) => [service.worker],
};
