export { migrations } from './migrations';
export { createWebhooksService, type WebhooksService, PREVIOUS_SECRET_TTL_MS } from './webhooks.service';
export { webhooksGrpcBinding } from './webhooks.grpc';
export { createDeliveryWorker, type DeliveryWorker, RETRY_SCHEDULE_MS } from './delivery.worker';
export { createEnqueue, eventStream, peerRecordSource, type RecordSource, READ_DEADLINE_MS, subscribeEventStream } from './event-stream.consumer';
export { goneData, publicEvent, type PublicEvent, SOURCE_RESOURCES, SOURCE_SUBJECTS } from './public-events';
export { isPublicAddress, urlProblem, type EgressPolicy } from './egress';
export { webhooksSettings, type WebhooksSettings } from './settings';
export { webhooksService, type RunningWebhooks } from './main';
