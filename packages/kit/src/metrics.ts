import { type Attributes, type Counter, type Histogram, type ObservableGauge, metrics } from '@opentelemetry/api';
import { type PrometheusKind, prometheusMetricName } from './prometheus-names';
import type { SqlQueryable } from './sql';
import { untraced } from './tracing';

interface InstrumentSpec {
  kind: PrometheusKind;
  /** UCUM, as OpenTelemetry has it: `s`, `By`, `1`, or a count's `{annotation}`. */
  unit: string;
  description: string;
  attributes: readonly string[];
  /** A histogram's bucket boundaries, when the default ones (1 ms to 10 s) do not fit what it measures. */
  buckets?: readonly number[];
}

/**
 * Every instrument the system records, under its current OpenTelemetry semantic-convention name
 * for HTTP, RPC, messaging and database clients where one exists (`crm.*` otherwise; a test holds
 * them against the conventions package, which deprecates names): durations and ages in seconds
 * (unit `s`), and attributes of bounded cardinality only (a route template, never a path; a method,
 * a consumer group, a context, an outcome; never an id or a workspace). Each instrument names the
 * attributes it may carry, and recording any other is a programming error the tests catch.
 *
 * Instruments are created on first use, so they bind to the meter provider `startTelemetry`
 * installed (without one, they record nothing). The catalogue is also what the dashboard and the
 * alert rules under infra/ are checked against (`prometheusName`).
 */
export const INSTRUMENTS = {
  'http.server.request.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of HTTP requests the gateway answered.',
    attributes: ['http.route', 'http.request.method', 'http.response.status_code'],
  },
  'rpc.server.call.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of gRPC calls a service answered, by method (crm.people.v1.PeopleService/GetContact) and status (OK, NOT_FOUND).',
    attributes: ['rpc.system.name', 'rpc.method', 'rpc.status_code'],
  },
  'crm.refusals': {
    kind: 'counter',
    unit: '{request}',
    description: 'Requests refused by a rate limit or a send quota.',
    attributes: ['crm.refusal'],
  },
  'messaging.process.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of event handlers, by consumer group; error.type is set when the handler failed (the event comes back).',
    attributes: ['messaging.system.name', 'messaging.consumer.group.name', 'messaging.destination.name', 'error.type'],
  },
  'crm.events.redelivered': {
    kind: 'counter',
    unit: '{event}',
    description: 'Events delivered to a consumer group again after a failure or an expired acknowledgement.',
    attributes: ['messaging.system.name', 'messaging.consumer.group.name'],
  },
  'crm.events.consumer.pending': {
    kind: 'gauge',
    unit: '{event}',
    description: 'Events a consumer group has not been given yet (its lag).',
    attributes: ['messaging.system.name', 'messaging.consumer.group.name'],
  },
  'crm.events.consumer.unacked': {
    kind: 'gauge',
    unit: '{event}',
    description: 'Events given to a consumer group and not yet acknowledged.',
    attributes: ['messaging.system.name', 'messaging.consumer.group.name'],
  },
  'crm.outbox.published': {
    kind: 'counter',
    unit: '{event}',
    description: 'Events the outbox relay published.',
    attributes: ['crm.context'],
  },
  'crm.dependency.available': {
    kind: 'gauge',
    unit: '{dependency}',
    description: "1 while a process's dependency answers its checks (every 5 s; 0 after two failed rounds), else 0: a service's database (readiness follows it) and event bus (readiness does not: the outbox keeps the events), and the gateway's Redis (readiness does not: limits and idempotency fall back to the instance's memory).",
    attributes: ['crm.context', 'crm.dependency'],
  },
  'crm.outbox.events': {
    kind: 'gauge',
    unit: '{event}',
    description: 'Events written and not yet published (counted up to 100,000).',
    attributes: ['crm.context'],
  },
  'crm.outbox.oldest_age': {
    kind: 'gauge',
    unit: 's',
    description: 'Age of the oldest unpublished event; 0 when the outbox is empty.',
    attributes: ['crm.context'],
  },
  'crm.engine.step.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Duration of flow steps the engine ran and committed, by node type and outcome.',
    attributes: ['crm.node.type', 'crm.step.outcome'],
  },
  'crm.engine.due': {
    kind: 'gauge',
    unit: '{enrollment}',
    description: 'Active enrollments of active flows whose next step is due now (counted up to 100,000).',
    attributes: [],
  },
  'crm.engine.oldest_due_age': {
    kind: 'gauge',
    unit: 's',
    description: 'How long the longest-waiting due enrollment has been due; 0 when none is.',
    attributes: [],
  },
  'crm.mail.delivery.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Delivery attempts, by provider and outcome (sent, retried, bounced, failed, called_off), with their duration.',
    attributes: ['crm.mail.provider', 'crm.mail.outcome'],
  },
  'crm.mail.queue.due': {
    kind: 'gauge',
    unit: '{email}',
    description: 'Sends due for delivery now (counted up to 100,000).',
    attributes: [],
  },
  'crm.mail.queue.oldest_due_age': {
    kind: 'gauge',
    unit: 's',
    description: 'How long the longest-waiting due send has been due; 0 when none is.',
    attributes: [],
  },
  'crm.mail.inbound': {
    kind: 'counter',
    unit: '{message}',
    description: 'Inbound mail by what it turned out to be: reply, auto_reply, bounce, delayed, unmatched, malformed.',
    attributes: ['crm.mail.inbound.kind'],
  },
  'crm.webhook.delivery.duration': {
    kind: 'histogram',
    unit: 's',
    description: 'Webhook delivery attempts, by outcome (succeeded, retried, failed), with their duration.',
    attributes: ['crm.webhook.outcome'],
  },
  'crm.webhook.delivery.latency': {
    kind: 'histogram',
    unit: 's',
    description: "Time from an event to its webhook's successful delivery; crm.webhook.first_attempt is false when retries (and their waits) came first.",
    attributes: ['crm.webhook.first_attempt'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000, 86400],
  },
  'crm.webhook.queue.due': {
    kind: 'gauge',
    unit: '{delivery}',
    description: 'Webhook deliveries of enabled endpoints due now, in flight included (counted up to 100,000).',
    attributes: [],
  },
  'crm.webhook.queue.oldest_due_age': {
    kind: 'gauge',
    unit: 's',
    description: 'How long the longest-waiting due webhook delivery of an enabled endpoint has been due; 0 when none is.',
    attributes: [],
  },
  'db.client.connection.count': {
    kind: 'gauge',
    unit: '{connection}',
    description: 'Postgres connections of the pool, by state (idle, used).',
    attributes: ['db.client.connection.pool.name', 'db.client.connection.state'],
  },
  'db.client.connection.limit': {
    kind: 'gauge',
    unit: '{connection}',
    description: 'The most connections the pool opens.',
    attributes: ['db.client.connection.pool.name'],
  },
  'db.client.connection.pending_requests': {
    kind: 'gauge',
    unit: '{request}',
    description: 'Queries waiting for a connection of the pool.',
    attributes: ['db.client.connection.pool.name'],
  },
} as const satisfies Record<string, InstrumentSpec>;

type Catalogue = typeof INSTRUMENTS;
export type InstrumentName = keyof Catalogue;
type NamesOf<K extends Catalogue[InstrumentName]['kind']> = { [N in InstrumentName]: Catalogue[N]['kind'] extends K ? N : never }[InstrumentName];
export type HistogramName = NamesOf<'histogram'>;
export type CounterName = NamesOf<'counter'>;
export type GaugeName = NamesOf<'gauge'>;
/** The attributes an instrument may carry, each optional (an absent one is no label). */
export type AttributesOf<N extends InstrumentName> = Partial<Record<Catalogue[N]['attributes'][number], string | number>>;

/**
 * What every process exports besides (startTelemetry registers it where /metrics is served): the
 * Node.js runtime, from `@opentelemetry/instrumentation-runtime-node` (event-loop delay over the
 * last scrape interval, utilization and time; GC pauses; V8 heap by space; active handles), and the
 * process's CPU time and resident memory (`observeProcess`). Listed for the dashboard and the alerts,
 * which are checked against it, and held against a real /metrics by the tests, so an upgrade that
 * renames one of them fails there rather than leaving a panel empty.
 */
export const RUNTIME_INSTRUMENTS = {
  'nodejs.eventloop.delay.p50': { kind: 'gauge', unit: 's', description: 'Event-loop delay, median over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.p90': { kind: 'gauge', unit: 's', description: 'Event-loop delay, 90th percentile over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.p99': { kind: 'gauge', unit: 's', description: 'Event-loop delay, 99th percentile over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.min': { kind: 'gauge', unit: 's', description: 'Event-loop delay, least over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.max': { kind: 'gauge', unit: 's', description: 'Event-loop delay, most over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.mean': { kind: 'gauge', unit: 's', description: 'Event-loop delay, mean over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.delay.stddev': { kind: 'gauge', unit: 's', description: 'Event-loop delay, standard deviation over the last scrape interval.', attributes: [] },
  'nodejs.eventloop.utilization': { kind: 'gauge', unit: '1', description: 'Share of the last scrape interval the event loop was busy.', attributes: [] },
  'nodejs.eventloop.time': { kind: 'counter', unit: 's', description: 'Time the event loop spent active and idle.', attributes: ['nodejs.eventloop.state'] },
  'v8js.gc.duration': { kind: 'histogram', unit: 's', description: 'Garbage collection pauses, by type.', attributes: ['v8js.gc.type'] },
  'v8js.memory.heap.used': { kind: 'gauge', unit: 'By', description: 'V8 heap in use, by space.', attributes: ['v8js.heap.space.name'] },
  'v8js.memory.heap.space.size': { kind: 'gauge', unit: 'By', description: 'V8 heap reserved, by space.', attributes: ['v8js.heap.space.name'] },
  'v8js.memory.heap.space.available_size': { kind: 'gauge', unit: 'By', description: 'V8 heap still available, by space.', attributes: ['v8js.heap.space.name'] },
  'v8js.memory.heap.space.physical_size': { kind: 'gauge', unit: 'By', description: 'V8 heap committed, by space.', attributes: ['v8js.heap.space.name'] },
  'v8js.resource.active': { kind: 'gauge', unit: '{resource}', description: 'Handles and requests keeping the event loop alive, by type.', attributes: ['v8js.resource.type'] },
  'process.cpu.time': { kind: 'counter', unit: 's', description: 'CPU time of the process, by mode (user, system).', attributes: ['cpu.mode'] },
  'process.memory.usage': { kind: 'gauge', unit: 'By', description: 'Resident memory of the process (RSS).', attributes: [] },
} as const satisfies Record<string, InstrumentSpec>;

export type RuntimeInstrumentName = keyof typeof RUNTIME_INSTRUMENTS;

/**
 * The name of an instrument's series on /metrics (prometheus-names.ts): `http.server.request.duration`
 * is `http_server_request_duration_seconds`, `crm.refusals` is `crm_refusals_total`; a histogram's
 * series add `_bucket`, `_sum` and `_count`.
 */
export function prometheusName(name: InstrumentName | RuntimeInstrumentName): string {
  const spec: InstrumentSpec = name in INSTRUMENTS ? INSTRUMENTS[name as InstrumentName] : RUNTIME_INSTRUMENTS[name as RuntimeInstrumentName];
  return prometheusMetricName(name, spec.unit, spec.kind);
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const histograms = new Map<string, Histogram>();
const counters = new Map<string, Counter>();
const meter = () => metrics.getMeter('crm');

/** Refuses an attribute the catalogue does not list for the instrument (see INSTRUMENTS). */
function checked(name: InstrumentName, attributes: Attributes): Attributes {
  const allowed: readonly string[] = INSTRUMENTS[name].attributes;
  for (const key of Object.keys(attributes)) {
    if (!allowed.includes(key)) throw new Error(`metric ${name} does not take the attribute ${key}`);
  }
  return attributes;
}

export function recordHistogram<N extends HistogramName>(name: N, seconds: number, attributes: AttributesOf<N>): void {
  let histogram = histograms.get(name);
  if (!histogram) {
    const spec: InstrumentSpec = INSTRUMENTS[name];
    histogram = meter().createHistogram(name, { unit: spec.unit, description: spec.description, advice: { explicitBucketBoundaries: [...(spec.buckets ?? BUCKETS)] } });
    histograms.set(name, histogram);
  }
  histogram.record(seconds, checked(name, attributes));
}

export function addCount<N extends CounterName>(name: N, value: number, attributes: AttributesOf<N>): void {
  let counter = counters.get(name);
  if (!counter) {
    const { unit, description } = INSTRUMENTS[name];
    counter = meter().createCounter(name, { unit, description });
    counters.set(name, counter);
  }
  counter.add(value, checked(name, attributes));
}

/**
 * One HTTP request answered: `route` is the matched route template (`/v1/contacts/:id`); a request
 * no route matched has none, so unknown paths never become series of their own.
 */
export function recordHttpServed(method: string, route: string | undefined, status: number, seconds: number): void {
  recordHistogram('http.server.request.duration', seconds, {
    'http.request.method': method,
    'http.response.status_code': status,
    ...(route ? { 'http.route': route } : {}),
  });
}

/** gRPC's status codes by number, as `rpc.status_code` carries them (the names are the protocol's). */
const GRPC_STATUS = [
  'OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * One gRPC call served: `service` is the full service name (`crm.people.v1.PeopleService`), `code`
 * the gRPC status code (0 = OK). The conventions put both in attributes of their own: the method
 * fully qualified (`crm.people.v1.PeopleService/GetContact`) and the status by name.
 */
export function recordRpcServed(service: string, method: string, code: number, seconds: number): void {
  recordHistogram('rpc.server.call.duration', seconds, {
    'rpc.system.name': 'grpc',
    'rpc.method': `${service}/${method}`,
    'rpc.status_code': GRPC_STATUS[code] ?? String(code),
  });
}

/** A request refused by a limit: `rate_limit` (per key or workspace) or `send_quota`. */
export function countRefusal(kind: 'rate_limit' | 'send_quota'): void {
  addCount('crm.refusals', 1, { 'crm.refusal': kind });
}

/** Records a reading of a gauge; given to a GaugeReader. */
export type Observe = <N extends GaugeName>(name: N, value: number, attributes: AttributesOf<N>) => void;
/** Reads some gauges' current values, when a scrape asks for them. */
export type GaugeReader = (observe: Observe) => Promise<void> | void;

/** A reader that has not answered by then is left out of that scrape (its gauges are absent). */
export const GAUGE_READ_TIMEOUT_MS = 2_000;

const readers = new Set<GaugeReader>();
let gaugesRegistered = false;

async function readWithin(reader: GaugeReader, observe: Observe): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, GAUGE_READ_TIMEOUT_MS);
    timer.unref();
  });
  try {
    // A scrape's own queries are not traced: they would start a trace of their own each time.
    await Promise.race([untraced(async () => reader(observe)), expired]);
  } catch {
    // A database or a bus that cannot answer: the scrape goes on without these readings.
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Adds a reader of gauges, run on every scrape (all readers at once, each within
 * GAUGE_READ_TIMEOUT_MS, a failing one left out); returns the function that removes it. Readings are
 * taken when asked for, never polled, so an unscraped process does no work for them.
 */
export function observeGauges(reader: GaugeReader): () => void {
  if (!gaugesRegistered) {
    gaugesRegistered = true;
    const m = meter();
    const gauges = new Map<GaugeName, ObservableGauge>();
    for (const [name, spec] of Object.entries(INSTRUMENTS)) {
      if (spec.kind === 'gauge') gauges.set(name as GaugeName, m.createObservableGauge(name, { unit: spec.unit, description: spec.description }));
    }
    m.addBatchObservableCallback(async (result) => {
      const readings: Array<[ObservableGauge, number, Attributes]> = [];
      const observe: Observe = (name, value, attributes) => {
        readings.push([gauges.get(name)!, value, checked(name, attributes)]);
      };
      await Promise.all([...readers].map((read) => readWithin(read, observe)));
      for (const [gauge, value, attributes] of readings) result.observe(gauge, value, attributes);
    }, [...gauges.values()]);
  }
  readers.add(reader);
  return () => {
    readers.delete(reader);
  };
}

let processObserved = false;

/**
 * The process's CPU time and resident memory (RUNTIME_INSTRUMENTS), read when scraped: two system
 * calls per scrape, nothing in between. `@opentelemetry/host-metrics` offers the same, but it is
 * deprecated, declares no unit for memory (so no `_bytes`), and labels CPU time with the deprecated
 * `process.cpu.state`.
 */
export function observeProcess(): void {
  if (processObserved) return;
  processObserved = true;
  const m = meter();
  const spec = RUNTIME_INSTRUMENTS;
  const cpu = m.createObservableCounter('process.cpu.time', { unit: spec['process.cpu.time'].unit, description: spec['process.cpu.time'].description });
  const memory = m.createObservableUpDownCounter('process.memory.usage', { unit: spec['process.memory.usage'].unit, description: spec['process.memory.usage'].description });
  m.addBatchObservableCallback((result) => {
    const { user, system } = process.cpuUsage();
    result.observe(cpu, user / 1e6, { 'cpu.mode': 'user' });
    result.observe(cpu, system / 1e6, { 'cpu.mode': 'system' });
    result.observe(memory, process.memoryUsage.rss());
  }, [cpu, memory]);
}

/** Counted up to this many rows: past it, the exact number does not change what anyone does. */
export const BACKLOG_COUNT_CAP = 100_000;

/**
 * The size of a backlog and the age of its oldest item, for metrics: `rows` is a query selecting
 * each waiting item's time as `at`, oldest first (so the cap keeps the oldest); it is counted up to
 * BACKLOG_COUNT_CAP. An empty backlog is 0 and 0.
 */
export async function readBacklog(db: SqlQueryable, rows: string): Promise<{ count: number; oldestSeconds: number }> {
  const { rows: [row] } = await db.query<{ count: number; oldest: number }>(
    `WITH waiting AS (${rows}\n LIMIT ${BACKLOG_COUNT_CAP})
     SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(at)), 0)::float8 AS oldest FROM waiting`,
  );
  return { count: Number(row?.count ?? 0), oldestSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
