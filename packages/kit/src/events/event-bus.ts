import type { EventData, EventSubject } from '@crm/proto';
import { newId } from '../ids';
import { createLogger, type Logger } from '../logger';
import { backoffMs } from '../backoff';
import { isConcreteSubject, isSubjectFilter } from './subjects';

/**
 * One domain event as it travels between services. `type` is also the NATS subject,
 * `crm.<context>.<entity>.<verb>` (for example `crm.people.contact.deleted`); `id` is a UUIDv7 and
 * doubles as the deduplication id, so publishing the same event twice delivers it once.
 */
export interface CrmEvent<D = Record<string, unknown>> {
  id: string;
  type: string;
  workspace_id: string;
  /** RFC 3339, UTC, milliseconds: `2026-05-15T10:00:00.000Z`. */
  occurred_at: string;
  data: D;
}

export interface DeliveryMeta {
  subject: string;
  /** Application headers as published (trace context included); transport headers are left out. */
  headers: Record<string, string>;
  /** 1 on the first delivery, incremented on each redelivery. */
  deliveryCount: number;
}

export type EventHandler = (event: CrmEvent, meta: DeliveryMeta) => Promise<void>;

export interface SubscribeOptions {
  /**
   * Name of the consumer group. Subscriptions sharing a durable share the work (each event goes to
   * one of them); each durable receives every matching event. Letters, digits, `-` and `_`.
   */
  durable: string;
  /** Subject filters; NATS wildcards allowed (`*` one token, `>` the rest). */
  subjects: string[];
  /**
   * Resolving acknowledges the event. Throwing makes it come back later, so handlers must be
   * idempotent (they may also see an event twice after a crash between commit and ack).
   */
  handler: EventHandler;
  /** Handlers of this subscription running at once. Default 8. */
  concurrency?: number;
  /** Deliveries per event before the group gives up on it. Default: unlimited. */
  maxDeliver?: number;
}

export interface Subscription {
  readonly durable: string;
  /** Stops taking events and waits for the handlers already running. */
  stop(): Promise<void>;
}

export interface EventBus {
  /**
   * Publishes to the subject `event.type`. The active W3C trace context is added to the headers;
   * headers passed explicitly win, so a relay can forward the context captured when the event was
   * written.
   */
  publish(event: CrmEvent<object>, headers?: Record<string, string>): Promise<void>;
  /**
   * Publishes several events, sent in order without waiting for one to be stored before sending the
   * next (one write and one round trip for the lot), and settles each as `publish` would. If the
   * server refuses one, later ones of the lot may be stored all the same. Absent where it would cost
   * no less than publishing one at a time (the in-process bus, whose publish runs the handlers).
   */
  publishAll?(items: readonly { event: CrmEvent<object>; headers?: Record<string, string> }[]): Promise<PromiseSettledResult<void>[]>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Stops every subscription (waiting for running handlers) and releases the connection. */
  close(): Promise<void>;
  /**
   * Resolves once the bus's server has answered a round trip; rejects while it is unreachable.
   * Absent on a bus with no server (the in-process one), which is always reachable. Readiness uses it.
   */
  ping?(): Promise<void>;
}

/** Reports failures the bus recovers from by itself (handler errors, consume loop restarts). */
export type BusErrorReporter = (error: unknown, context: Record<string, unknown>) => void;

let eventsLogger: Logger | undefined;

/** The default reporter: a warning in the structured log, created on first use. */
export function logEventError(message: string): BusErrorReporter {
  return (error, context) => {
    eventsLogger ??= createLogger('crm.events');
    eventsLogger.warn({ err: error, ...context }, message);
  };
}

/** How long a published event id is remembered to drop a repeated publish (JetStream's window). */
export const DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
export const DEFAULT_CONCURRENCY = 8;

/**
 * Delay before a failed event is offered again: 200 ms, 400 ms, 800 ms … capped at 30 s, short
 * enough that a transient failure (a deadlock, a restarting dependency) clears quickly, long enough
 * that a persistent one does not spin.
 */
export function defaultRetryDelayMs(deliveryCount: number): number {
  return backoffMs(deliveryCount, 200, 30_000);
}

/** An event of the catalog, as a producer describes it: its subject and the matching payload. */
export type EventInit = { [S in EventSubject]: { type: S; data: EventData<S> } }[EventSubject];

/**
 * Mints an event of the catalog (proto/crm/events/v1): fresh UUIDv7 id, occurred now. The subject
 * is one of the generated constants (`PeopleEvents.ContactCreated`) and the payload must have the
 * shape its message declares.
 */
export function newEvent<S extends EventSubject>(type: S, workspace_id: string, data: EventData<S>): CrmEvent<EventData<S>> {
  return newRawEvent(type, workspace_id, data);
}

/** Mints the event a producer described as `{type, data}` (a resource's change events). */
export function eventFrom(workspace_id: string, init: EventInit): CrmEvent {
  return newRawEvent(init.type, workspace_id, init.data);
}

/** Mints an event of any subject: the bus machinery and its tests. Services use newEvent. */
export function newRawEvent<D extends object>(type: string, workspace_id: string, data: D): CrmEvent<D> {
  const event = { id: newId(), type, workspace_id, occurred_at: new Date().toISOString(), data };
  assertPublishable(event);
  return event;
}

/** Narrows a delivered event to a subject of the catalog (its payload still came off the wire). */
export function isEventOf<S extends EventSubject>(event: CrmEvent, subject: S): event is CrmEvent<EventData<S>> {
  return event.type === subject;
}

/** Refuses, at the producer, an event that no consumer could ever receive. */
export function assertPublishable(event: CrmEvent<object>): void {
  if (typeof event.type !== 'string' || !isConcreteSubject(event.type)) {
    throw new TypeError(`event type must be a subject without wildcards, got "${String(event.type)}"`);
  }
  if (typeof event.id !== 'string' || event.id.length === 0) throw new TypeError('event id is required');
  if (typeof event.workspace_id !== 'string' || event.workspace_id.length === 0) {
    throw new TypeError('event workspace_id is required');
  }
}

const DURABLE = /^[A-Za-z0-9_-]{1,64}$/;

export function assertSubscribeOptions(options: SubscribeOptions): void {
  if (!DURABLE.test(options.durable)) throw new TypeError(`invalid durable name "${options.durable}"`);
  if (options.subjects.length === 0) throw new TypeError('subscribe needs at least one subject');
  for (const subject of options.subjects) {
    if (!isSubjectFilter(subject)) throw new TypeError(`invalid subject filter "${subject}"`);
  }
  const { concurrency, maxDeliver } = options;
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new TypeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  if (maxDeliver !== undefined && (!Number.isInteger(maxDeliver) || maxDeliver < 1)) {
    throw new TypeError(`maxDeliver must be a positive integer, got ${maxDeliver}`);
  }
}

/** Validates the shape of an event read off the wire, so a malformed message fails loudly once. */
export function isCrmEvent(value: unknown): value is CrmEvent {
  if (!value || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.id === 'string' &&
    typeof candidate.type === 'string' &&
    typeof candidate.workspace_id === 'string' &&
    typeof candidate.occurred_at === 'string' &&
    typeof candidate.data === 'object' &&
    candidate.data !== null
  );
}
