export {
  assertPublishable,
  DEFAULT_CONCURRENCY,
  defaultRetryDelayMs,
  DUPLICATE_WINDOW_MS,
  eventFrom,
  isEventOf,
  newEvent,
  newRawEvent,
  type EventInit,
  type BusErrorReporter,
  type CrmEvent,
  type DeliveryMeta,
  type EventBus,
  type EventHandler,
  type SubscribeOptions,
  type Subscription,
} from './event-bus';
export { captureTraceContext } from './event-tracing';
export { defineDurableConsumer, type DurableConsumer, type DurableConsumerOptions } from './durable-consumer';
export { createMemoryBus, type MemoryBusOptions } from './memory-bus';
export { createNatsBus, MAX_STREAM_REPLICAS, parseNatsServers, type NatsBusOptions } from './nats-bus';
export {
  createOutboxRelay,
  OUTBOX_MIGRATION_SQL,
  writeOutbox,
  type OutboxRelay,
  type OutboxRelayErrorContext,
  type OutboxRelayOptions,
} from './outbox';
export { isConcreteSubject, isSubjectFilter, subjectMatches } from './subjects';
