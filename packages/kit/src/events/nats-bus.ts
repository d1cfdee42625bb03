import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { connect, headers as natsHeaders, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { observeGauges } from '../metrics';
import {
  assertPublishable,
  assertSubscribeOptions,
  DEFAULT_CONCURRENCY,
  defaultRetryDelayMs,
  DUPLICATE_WINDOW_MS,
  isCrmEvent,
  logEventError,
  type BusErrorReporter,
  type CrmEvent,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './event-bus';
import { publishHeaders, withConsumeSpan } from './event-tracing';
import { backoffMs } from '../backoff';
import { Semaphore, sleep } from './concurrency';
import { matchesAny } from './subjects';

export interface NatsBusOptions {
  /**
   * One URL, a comma-separated list, or a list: the servers of one NATS cluster. The client starts
   * with any that answers and, on losing it, reconnects to another (and to those the cluster names).
   */
  servers: string | string[];
  /** Stream holding every event. Default `CRM`. */
  stream?: string;
  /** Subjects the stream captures. Default `['crm.>']`. */
  subjects?: string[];
  /** Connection name shown by the server's monitoring, e.g. the service name. */
  name?: string;
  /** Window in which a repeated `Nats-Msg-Id` is dropped. Default 2 minutes. */
  duplicateWindowMs?: number;
  /**
   * Age at which the stream forgets events, applied when the stream is created. Default 7 days:
   * long enough for a consumer that was down over a weekend, or a new one, to catch up.
   */
  maxAgeMs?: number;
  /**
   * Time a delivered event may stay unacknowledged before it is redelivered. Default 30 s. It also
   * bounds the delay of an event delivered to a subscriber that was stopping (a restart within a
   * process, a durable re-filtered): such an event is redelivered after this time.
   */
  ackWaitMs?: number;
  /**
   * Where a durable this bus creates starts reading: the events the stream stored from this time on.
   * Default: everything the stream holds (`maxAgeMs`), so a consumer added after its producer still
   * sees what it missed. A durable that exists already keeps its place whatever this says. For
   * stacks that share a long-lived server (tests, benchmarks), whose new durables would otherwise
   * read again every event earlier runs left in the stream.
   */
  newDurablesFrom?: Date;
  /**
   * Copies of the stream JetStream keeps, each on another server of the cluster (1 to 5). Default 1.
   * A stream with 3 survives the loss of one server without losing an event or stopping. Applied
   * when the stream is created, and to an existing stream whose count differs (the cluster then
   * adds or removes copies).
   */
  streamReplicas?: number;
  retryDelayMs?: (deliveryCount: number) => number;
  onError?: BusErrorReporter;
}

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;
/** JetStream's own limit on the copies of a stream. */
export const MAX_STREAM_REPLICAS = 5;
const NATS_SCHEMES = ['nats', 'tls'];

/**
 * The servers a NATS client is given, as a list: one URL, several separated by commas, or a list.
 * Each is `nats://host:port`, `tls://host:port` or `host:port` (port optional: 4222). Throws on an
 * empty entry or one that is no server address, naming its position but not its text: a URL may
 * carry credentials.
 */
export function parseNatsServers(servers: string | readonly string[]): string[] {
  const list = (typeof servers === 'string' ? servers.split(',') : [...servers]).map((s) => s.trim());
  const usage = 'one NATS server URL, or several separated by commas (nats://host:4222,nats://other:4222)';
  if (list.length === 0 || (list.length === 1 && list[0] === '')) throw new Error(`no NATS server given: expected ${usage}`);
  list.forEach((entry, i) => {
    const where = list.length === 1 ? 'the NATS server' : `NATS server ${i + 1} of ${list.length}`;
    if (entry === '') throw new Error(`${where} is empty (a stray comma?): expected ${usage}`);
    const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `nats://${entry}`);
    if (!url || !NATS_SCHEMES.includes(url.protocol.replace(/:$/, '')) || url.hostname === '' || (url.pathname !== '' && url.pathname !== '/')) {
      throw new Error(`${where} is not a server address: expected ${usage}`);
    }
  });
  return list;
}
/**
 * Unacknowledged events per durable across all its subscribers. Not the per-process concurrency
 * (that is the pull size plus a local semaphore): this cap is shared by every replica, and events
 * waiting out a nak delay count against it, so a small value would let a few failing events stall
 * the whole group.
 */
const GROUP_MAX_ACK_PENDING = 1000;
/** How long one pull request lives: within the ack wait, between 1 s and 10 s. */
export const pullExpiresMs = (ackWaitMs: number): number => Math.max(1_000, Math.min(10_000, ackWaitMs));
/** Missed idle heartbeats after which a pull is considered dead and the consume loop restarted. */
const HEARTBEATS_BEFORE_RESTART = 4;

export async function createNatsBus(options: NatsBusOptions): Promise<EventBus> {
  const stream = options.stream ?? 'CRM';
  const streamSubjects = options.subjects ?? ['crm.>'];
  const retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const onError: BusErrorReporter = options.onError ?? logEventError('event bus recovered from a failure');
  const servers = parseNatsServers(options.servers);
  const replicas = options.streamReplicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_STREAM_REPLICAS) {
    throw new Error(`stream replicas must be a whole number from 1 to ${MAX_STREAM_REPLICAS}, got ${replicas}`);
  }

  // Reconnect forever: a consumer process is useless without NATS, and its supervisor loops resume
  // by themselves once the connection is back.
  // noAsyncTraces: by default the client builds an Error (its stack) for every request, a publish
  // included, in case it times out; that was 2 % of messaging's CPU while delivering. Our reports
  // of a failed publish name the event and subject instead.
  const nc = await connect({ servers, name: options.name, maxReconnectAttempts: -1, reconnectTimeWait: 1000, noAsyncTraces: true });
  try {
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, {
      name: stream,
      subjects: streamSubjects,
      duplicateWindowMs: options.duplicateWindowMs ?? DUPLICATE_WINDOW_MS,
      maxAgeMs: options.maxAgeMs ?? SEVEN_DAYS_MS,
      replicas,
    });
    const js = jsm.jetstream();
    const subscriptions = new Set<NatsSubscription>();
    let closed = false;
    let closing: Promise<void> | undefined;
    // Lag per durable this process consumes, as the server counts it (shared by every replica). A
    // durable the server cannot describe right now (being recreated) is left out of that scrape alone.
    const unobserve = observeGauges(async (observe) => {
      const durables = new Set([...subscriptions].map((subscription) => subscription.durable));
      await Promise.allSettled(
        [...durables].map(async (durable) => {
          const info = await jsm.consumers.info(stream, durable);
          const group = { 'messaging.system.name': 'nats', 'messaging.consumer.group.name': durable };
          observe('crm.events.consumer.pending', info.num_pending, group);
          observe('crm.events.consumer.unacked', info.num_ack_pending, group);
        }),
      );
    });

    // Everything up to js.publish's request is synchronous, so the messages of publishAll go out
    // in the order of its items.
    const publish = async (event: CrmEvent<object>, headers?: Record<string, string>): Promise<void> => {
      if (closed) throw new Error('event bus closed');
      assertPublishable(event);
      const h = natsHeaders();
      for (const [key, value] of Object.entries(publishHeaders(headers))) h.set(key, value);
      // The event id as Nats-Msg-Id: the stream drops a repeat within the duplicate window, so a
      // relay that publishes again after a crash does not deliver twice.
      await js.publish(event.type, JSON.stringify(event), { msgID: event.id, headers: h });
    };

    return {
      publish,
      publishAll: (items) => Promise.allSettled(items.map(({ event, headers }) => publish(event, headers))),

      async subscribe(subscribeOptions) {
        if (closed) throw new Error('event bus closed');
        assertSubscribeOptions(subscribeOptions);
        const settings: ConsumerSettings = {
          stream,
          durable: subscribeOptions.durable,
          subjects: [...subscribeOptions.subjects],
          maxDeliver: subscribeOptions.maxDeliver,
          ackWaitMs,
          multipleFilters: supportsMultipleFilters(nc),
          startAt: options.newDurablesFrom,
        };
        await ensureConsumer(jsm, settings);
        const subscription = new NatsSubscription(js, jsm, settings, subscribeOptions, { retryDelayMs, ackWaitMs, onError }, () =>
          subscriptions.delete(subscription),
        );
        subscriptions.add(subscription);
        subscription.start();
        return subscription;
      },

      async ping() {
        if (closed || nc.isClosed()) throw new Error('event bus closed');
        // A PING/PONG with the server; while reconnecting it waits, and the caller's timeout decides.
        await nc.flush();
      },

      close() {
        closed = true;
        unobserve();
        closing ??= (async () => {
          await Promise.allSettled([...subscriptions].map((subscription) => subscription.stop()));
          // drain() flushes pending publishes and acks before closing; a connection that is already
          // gone has nothing left to flush.
          await nc.drain().catch(() => nc.close());
        })();
        return closing;
      },
    };
  } catch (error) {
    await nc.close().catch(() => undefined);
    throw error;
  }
}

interface StreamSettings {
  name: string;
  subjects: string[];
  duplicateWindowMs: number;
  maxAgeMs: number;
  replicas: number;
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * Creates the stream, or brings an existing one to the subjects, duplicate window and replica
 * count this code relies on (JetStream adds or removes the copies in place). Other settings
 * (limits, retention, storage) are applied at creation only and left to whoever operates the stream.
 */
async function ensureStream(jsm: JetStreamManager, settings: StreamSettings, retried = false): Promise<void> {
  const duplicateWindow = nanos(settings.duplicateWindowMs);
  try {
    const { config } = await jsm.streams.info(settings.name);
    if (
      !sameSet(config.subjects ?? [], settings.subjects) ||
      config.duplicate_window !== duplicateWindow ||
      (config.num_replicas || 1) !== settings.replicas
    ) {
      await jsm.streams
        .update(settings.name, { ...config, subjects: settings.subjects, duplicate_window: duplicateWindow, num_replicas: settings.replicas })
        .catch((error: unknown) => {
          throw new Error(`cannot update stream ${settings.name} (to ${settings.replicas} replicas): ${(error as Error).message}`, { cause: error });
        });
    }
  } catch (error) {
    if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
    try {
      await jsm.streams.add({
        name: settings.name,
        subjects: settings.subjects,
        duplicate_window: duplicateWindow,
        max_age: nanos(settings.maxAgeMs),
        num_replicas: settings.replicas,
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
      });
    } catch (createError) {
      // Another replica created it between our look-up and our create: reconcile with theirs.
      // Any other refusal (more replicas than the cluster has servers) says so on the second try.
      if (retried) {
        const reason = (createError as Error).message;
        throw new Error(`cannot create stream ${settings.name} with ${settings.replicas} replicas: ${reason}`, { cause: createError });
      }
      await ensureStream(jsm, settings, true);
    }
  }
}

interface ConsumerSettings {
  stream: string;
  durable: string;
  subjects: string[];
  maxDeliver: number | undefined;
  ackWaitMs: number;
  /** Servers before 2.10 accept one filter subject per consumer. */
  multipleFilters: boolean;
  /** Where a new durable starts (NatsBusOptions.newDurablesFrom); its beginning when absent. */
  startAt?: Date;
}

function supportsMultipleFilters(nc: NatsConnection): boolean {
  const match = /^(\d+)\.(\d+)/.exec(nc.info?.version ?? '');
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 2 || (major === 2 && minor >= 10);
}

/**
 * Whether messages must be filtered in this process: only when several filters are asked of a
 * server that cannot hold them, in which case the consumer takes the whole stream and events no
 * filter matches are acknowledged without running the handler.
 */
const filtersLocally = (settings: ConsumerSettings) => settings.subjects.length > 1 && !settings.multipleFilters;

function desiredConsumerConfig(settings: ConsumerSettings): Partial<ConsumerConfig> {
  const [single] = settings.subjects;
  const filters: Partial<ConsumerConfig> =
    settings.subjects.length === 1
      ? { filter_subject: single, filter_subjects: undefined }
      : settings.multipleFilters
        ? { filter_subject: undefined, filter_subjects: settings.subjects }
        : { filter_subject: undefined, filter_subjects: undefined };
  return {
    ...filters,
    max_deliver: settings.maxDeliver ?? -1,
    ack_wait: nanos(settings.ackWaitMs),
    max_ack_pending: GROUP_MAX_ACK_PENDING,
  };
}

function consumerFilters(config: Partial<ConsumerConfig>): string[] {
  if (config.filter_subjects?.length) return config.filter_subjects;
  return config.filter_subject ? [config.filter_subject] : [];
}

/** Creates the durable pull consumer, or updates it when its filters or limits changed. */
async function ensureConsumer(jsm: JetStreamManager, settings: ConsumerSettings, retried = false): Promise<void> {
  const desired = desiredConsumerConfig(settings);
  try {
    const { config } = await jsm.consumers.info(settings.stream, settings.durable);
    const changed =
      !sameSet(consumerFilters(config), consumerFilters(desired)) ||
      config.max_deliver !== desired.max_deliver ||
      config.ack_wait !== desired.ack_wait ||
      config.max_ack_pending !== desired.max_ack_pending;
    if (changed) await jsm.consumers.update(settings.stream, settings.durable, desired);
  } catch (error) {
    if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
    try {
      await jsm.consumers.add(settings.stream, {
        ...desired,
        durable_name: settings.durable,
        ack_policy: AckPolicy.Explicit,
        // A new durable starts from the beginning of the stream: a consumer added after its
        // producer must still see the events it missed (within the stream's retention). Unless
        // told to start later (newDurablesFrom).
        ...(settings.startAt
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: settings.startAt.toISOString() }
          : { deliver_policy: DeliverPolicy.All }),
      });
    } catch (createError) {
      if (retried) throw createError;
      await ensureConsumer(jsm, settings, true);
    }
  }
}

/** Application headers only: `Nats-*` headers belong to the transport (dedup id, status). */
function headersToRecord(headers: MsgHdrs | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  for (const key of headers.keys()) {
    if (!key.toLowerCase().startsWith('nats-')) record[key] = headers.get(key);
  }
  return record;
}

function decode(msg: JsMsg): CrmEvent | undefined {
  try {
    const value: unknown = msg.json();
    return isCrmEvent(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface SubscriptionRuntime {
  retryDelayMs: (deliveryCount: number) => number;
  ackWaitMs: number;
  onError: BusErrorReporter;
}

/**
 * One subscriber of a durable: a supervised consume loop. JetStream's consume() iterator can end on
 * its own (connection closed, consumer or stream deleted, a permission error); the supervisor
 * recreates the consumer if needed and starts consuming again, with backoff, until stop().
 */
class NatsSubscription implements Subscription {
  readonly durable: string;
  private stopped = false;
  private readonly stopping = new AbortController();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly slots: Semaphore;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly settings: ConsumerSettings,
    private readonly options: SubscribeOptions,
    private readonly runtime: SubscriptionRuntime,
    private readonly onStopped: () => void,
  ) {
    this.durable = options.durable;
    this.slots = new Semaphore(options.concurrency ?? DEFAULT_CONCURRENCY);
  }

  start(): void {
    this.loop = this.supervise();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.stopping.abort();
      // Not awaited: the iterator settles its close only as the loop reads it, and the loop may be
      // waiting for a handler slot. Awaiting the loop covers both.
      this.messages?.close().catch(() => undefined);
    }
    await this.loop;
    await Promise.allSettled([...this.running]);
    this.onStopped();
  }

  private async supervise(): Promise<void> {
    let restarts = 0;
    while (!this.stopped) {
      try {
        // After a failure the consumer (or the stream) may be gone: recreate before consuming.
        if (restarts > 0) await ensureConsumer(this.jsm, this.settings);
        const consumer = await this.js.consumers.get(this.settings.stream, this.durable);
        const messages = await consumer.consume({
          // Pull no more than we can run, so events do not wait out their ack deadline in a buffer.
          max_messages: this.slots.capacity,
          // End the iterator when the consumer disappears, so this loop recreates it.
          abort_on_missing_resource: true,
          // A pull outlives the subscriber that made it: servers before 2.11 keep delivering to a
          // stopped subscriber's pending pull until it expires, each delivery coming back only
          // after the ack wait. Expiring pulls within the ack wait (at most 10 s) bounds how long
          // an event can be held by a subscriber that is gone (a restart, a durable re-filtered).
          expires: pullExpiresMs(this.runtime.ackWaitMs),
        });
        this.messages = messages;
        // Stopped while the pull was being set up: close it, and let the loop below read it to its
        // end (handing back anything already delivered).
        if (this.stopped) void messages.close().catch(() => undefined);
        else void this.watch(messages);
        for await (const msg of messages) {
          restarts = 0;
          await this.slots.acquire();
          if (this.stopped) {
            // Delivered but not started: hand it straight back to the other subscribers.
            this.slots.release();
            this.settle(() => msg.nak(), msg);
            continue;
          }
          const handling = this.handle(msg)
            .catch((error: unknown) => this.runtime.onError(error, { durable: this.durable, subject: msg.subject }))
            .finally(() => {
              this.running.delete(handling);
              this.slots.release();
            });
          this.running.add(handling);
        }
        const reason = await messages.closed();
        if (this.stopped) break;
        throw reason ?? new Error('consume ended');
      } catch (error) {
        if (this.stopped) break;
        restarts++;
        this.runtime.onError(error, { durable: this.durable, stream: this.settings.stream, phase: 'consume', restarts });
        await sleep(backoffMs(restarts, 250, 15_000), this.stopping.signal, { unref: true });
      }
    }
  }

  /** Restarts a pull that stopped hearing from the server while connected. */
  private async watch(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const status of messages.status()) {
        if (status.type === 'heartbeats_missed' && status.count >= HEARTBEATS_BEFORE_RESTART) {
          this.runtime.onError(new Error(`missed ${status.count} heartbeats`), { durable: this.durable, phase: 'consume' });
          await messages.close();
          return;
        }
      }
    } catch {
      // The status iterator ends with the messages iterator; the supervisor handles that.
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const deliveryCount = msg.info.deliveryCount;
    const event = decode(msg);
    if (!event) {
      // No redelivery can fix a malformed message; terminate it rather than loop on it.
      this.runtime.onError(new Error('malformed event'), { durable: this.durable, subject: msg.subject, seq: msg.seq });
      this.settle(() => msg.term('malformed event'), msg);
      return;
    }
    if (filtersLocally(this.settings) && !matchesAny(this.settings.subjects, msg.subject)) {
      this.settle(() => msg.ack(), msg);
      return;
    }
    const headers = headersToRecord(msg.headers);
    // A handler slower than the ack deadline must not have its event redelivered under it.
    const keepAlive = setInterval(() => this.settle(() => msg.working(), msg), Math.max(1000, this.runtime.ackWaitMs / 2));
    let handled = false;
    try {
      await withConsumeSpan({ system: 'nats', durable: this.durable, subject: msg.subject, event, headers, deliveryCount }, () =>
        this.options.handler(event, { subject: msg.subject, headers: { ...headers }, deliveryCount }),
      );
      handled = true;
    } catch (error) {
      this.runtime.onError(error, { durable: this.durable, subject: msg.subject, eventId: event.id, deliveryCount });
    } finally {
      clearInterval(keepAlive);
    }
    // Ack only after the handler (and so its commit) succeeded; otherwise offer it again later.
    this.settle(() => (handled ? msg.ack() : msg.nak(this.runtime.retryDelayMs(deliveryCount))), msg);
  }

  /**
   * Acks and naks are fire-and-forget and throw only when the connection is closed; the server then
   * redelivers after the ack deadline, which is the right outcome, so the error is only reported.
   */
  private settle(reply: () => void, msg: JsMsg): void {
    try {
      reply();
    } catch (error) {
      this.runtime.onError(error, { durable: this.durable, subject: msg.subject, phase: 'ack' });
    }
  }
}
