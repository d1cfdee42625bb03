import { installTestMetrics, pointsOf, total } from './testing/test-metrics';
import { newRawEvent } from './events/event-bus';
import { createMemoryBus } from './events/memory-bus';
import { createNatsBus } from './events/nats-bus';
import { OUTBOX_MIGRATION_SQL, createOutboxRelay, writeOutbox } from './events/outbox';
import {
  GAUGE_READ_TIMEOUT_MS,
  INSTRUMENTS,
  type InstrumentName,
  RUNTIME_INSTRUMENTS,
  type RuntimeInstrumentName,
  addCount,
  observeGauges,
  prometheusName,
  readBacklog,
  recordHistogram,
  recordRpcServed,
} from './metrics';
import { expectEventually } from './testing/expect-eventually';
import { TEST_NATS_URL, serviceAvailable } from './testing/reachability';
import { sqlBackends } from './testing/sql-backends';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Before any instrument is used, so they all bind to it.
const meter = installTestMetrics();
afterAll(() => meter.shutdown());

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';

const CATALOGUE = { ...INSTRUMENTS, ...RUNTIME_INSTRUMENTS };
const ALL = Object.keys(CATALOGUE) as Array<InstrumentName | RuntimeInstrumentName>;

/**
 * The names the semantic-conventions package deprecates: its declarations whose comment says
 * `@deprecated` (the package marks them only there, in its type declarations).
 */
function deprecatedConventions(): Map<string, string> {
  const dir = path.dirname(require.resolve('@opentelemetry/semantic-conventions'));
  const deprecated = new Map<string, string>();
  for (const file of fs.readdirSync(dir).filter((f) => /^(stable|experimental)_(attributes|metrics)\.d\.cts$/.test(f))) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const [, comment, value] of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*declare const \w+: "([^"]+)";/g)) {
      const replaced = /@deprecated ([^\n]*)/.exec(comment!);
      if (replaced) deprecated.set(value!, replaced[1]!.trim());
    }
  }
  return deprecated;
}

describe('the catalogue', () => {
  test('Prometheus names: dots to underscores, the unit in words, counters end in _total', () => {
    expect(prometheusName('rpc.server.call.duration')).toBe('rpc_server_call_duration_seconds');
    expect(prometheusName('http.server.request.duration')).toBe('http_server_request_duration_seconds');
    expect(prometheusName('crm.outbox.oldest_age')).toBe('crm_outbox_oldest_age_seconds');
    expect(prometheusName('crm.refusals')).toBe('crm_refusals_total');
    expect(prometheusName('db.client.connection.pending_requests')).toBe('db_client_connection_pending_requests');
    expect(prometheusName('process.cpu.time')).toBe('process_cpu_time_seconds_total');
    expect(prometheusName('v8js.memory.heap.used')).toBe('v8js_memory_heap_used_bytes');
    const names = ALL.map((name) => prometheusName(name));
    expect(new Set(names).size).toBe(names.length);
  });

  test('every duration and age is in seconds, and its series say so', () => {
    for (const name of ALL) {
      if (!/(duration|_age|\.time|delay)/.test(name)) continue;
      expect([name, CATALOGUE[name].unit, prometheusName(name)]).toEqual([name, 's', expect.stringMatching(/_seconds(_total)?$/)]);
    }
  });

  test('no name or attribute is one the semantic conventions deprecate', () => {
    const deprecated = deprecatedConventions();
    // The check reads the package: it knows the names this catalogue left behind.
    expect(deprecated.get('rpc.server.duration')).toMatch(/rpc\.server\.call\.duration/);
    expect(deprecated.get('rpc.grpc.status_code')).toBeDefined();
    expect(deprecated.get('db.client.connection.max')).toMatch(/db\.client\.connection\.limit/);
    const used = ALL.flatMap((name) => [name, ...CATALOGUE[name].attributes]);
    expect(used.filter((name) => deprecated.has(name)).map((name) => `${name}: ${deprecated.get(name)}`)).toEqual([]);
  });

  test('no instrument takes an id or a workspace as an attribute', () => {
    for (const spec of Object.values(INSTRUMENTS)) {
      for (const attribute of spec.attributes) expect(attribute).not.toMatch(/(^|\.|_)(id|workspace)($|\.|_)|workspace_id/);
    }
  });

  test('an attribute the catalogue does not list is refused, so no label can slip in', () => {
    expect(() => recordHistogram('rpc.server.call.duration', 0.1, { 'crm.workspace_id': 'w' } as never)).toThrow(/does not take the attribute crm.workspace_id/);
    expect(() => addCount('crm.refusals', 1, { 'http.route': '/x' } as never)).toThrow(/does not take/);
  });
});

describe('gRPC calls served', () => {
  test('by fully qualified method and status name, in seconds', async () => {
    recordRpcServed('crm.metrics_test.v1.ThingService', 'GetThing', 5, 0.25);
    recordRpcServed('crm.metrics_test.v1.ThingService', 'GetThing', 0, 0.5);
    const points = pointsOf(await meter.collect(), 'rpc.server.call.duration', { 'rpc.method': 'crm.metrics_test.v1.ThingService/GetThing' });
    expect(points.map((p) => [p.attributes, p.value, p.sum]).sort()).toEqual(
      [
        [{ 'rpc.system.name': 'grpc', 'rpc.method': 'crm.metrics_test.v1.ThingService/GetThing', 'rpc.status_code': 'NOT_FOUND' }, 1, 0.25],
        [{ 'rpc.system.name': 'grpc', 'rpc.method': 'crm.metrics_test.v1.ThingService/GetThing', 'rpc.status_code': 'OK' }, 1, 0.5],
      ].sort(),
    );
  });
});

describe('gauges read on collection', () => {
  test('every reader runs at each collection; one that fails or hangs is left out; a removed one no longer runs', async () => {
    let due = 3;
    const removeGood = observeGauges((observe) => observe('crm.engine.due', due, {}));
    const removeFailing = observeGauges(async () => {
      throw new Error('database down');
    });
    // Never answers (a query stuck on a lock): each collection gives up on it after GAUGE_READ_TIMEOUT_MS.
    const removeHanging = observeGauges(async (observe) => {
      await new Promise<never>(() => undefined);
      observe('crm.mail.queue.due', 99, {});
    });
    const started = Date.now();
    let points = await meter.collect();
    expect(Date.now() - started).toBeLessThan(GAUGE_READ_TIMEOUT_MS + 900);
    expect(total(points, 'crm.engine.due')).toBe(3);
    expect(pointsOf(points, 'crm.mail.queue.due')).toEqual([]);

    due = 7;
    expect(total(await meter.collect(), 'crm.engine.due')).toBe(7);
    removeGood();
    removeFailing();
    removeHanging();
    // No longer read (the SDK keeps reporting the last reading of a set it saw).
    due = 9;
    points = await meter.collect();
    expect(total(points, 'crm.engine.due')).toBe(7);
  }, 15_000);

  test('a reading with an attribute the gauge does not take is refused', async () => {
    const remove = observeGauges((observe) => observe('crm.outbox.events', 1, { 'crm.workspace': 'w' } as never));
    try {
      expect(pointsOf(await meter.collect(), 'crm.outbox.events')).toEqual([]);
    } finally {
      remove();
    }
  });
});

describe('event consumers', () => {
  test('handler durations by group, failures with error.type, redeliveries, and what is under way', async () => {
    const bus = createMemoryBus({ retryDelayMs: () => 5, onError: () => undefined });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    await bus.subscribe({
      durable: 'metered',
      subjects: ['crm.metrics_test.>'],
      handler: async (event) => {
        calls++;
        if ((event.data as { fail?: boolean }).fail && calls === 1) throw new TypeError('first try fails');
        if ((event.data as { hold?: boolean }).hold) await held;
      },
    });
    const group = { 'messaging.system.name': 'memory', 'messaging.consumer.group.name': 'metered' };
    await bus.publish(newRawEvent('crm.metrics_test.thing.failed', WORKSPACE, { fail: true }));
    const holding = bus.publish(newRawEvent('crm.metrics_test.thing.held', WORKSPACE, { hold: true }));
    await expectEventually(async () => expect(total(await meter.collect(), 'crm.events.consumer.unacked', group)).toBe(1));

    release();
    await holding;
    const points = await meter.collect();
    expect(total(points, 'messaging.process.duration', { ...group, 'messaging.destination.name': 'crm.metrics_test.thing.failed', 'error.type': 'TypeError' })).toBe(1);
    expect(total(points, 'messaging.process.duration', { ...group, 'messaging.destination.name': 'crm.metrics_test.thing.failed' })).toBe(2);
    expect(total(points, 'messaging.process.duration', { ...group, 'messaging.destination.name': 'crm.metrics_test.thing.held' })).toBe(1);
    expect(total(points, 'crm.events.redelivered', group)).toBe(1);
    expect(total(points, 'crm.events.consumer.unacked', group)).toBe(0);
    expect(total(points, 'crm.events.consumer.pending', group)).toBe(0);
    await bus.close();
  });
});

(serviceAvailable('NATS', TEST_NATS_URL) ? describe : describe.skip)('event consumers on NATS JetStream', () => {
  test('a group\'s lag as the server counts it: events not yet given to it, and those given and not acknowledged', async () => {
    const run = randomBytes(4).toString('hex');
    const stream = `T_METRICS_${run}`;
    const bus = await createNatsBus({ servers: TEST_NATS_URL, stream, subjects: [`tm${run}.>`], onError: () => undefined });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      const group = { 'messaging.system.name': 'nats', 'messaging.consumer.group.name': `lagging-${run}` };
      await bus.subscribe({ durable: `lagging-${run}`, subjects: [`tm${run}.>`], concurrency: 1, handler: () => held });
      for (let n = 0; n < 5; n++) await bus.publish(newRawEvent(`tm${run}.thing.made`, WORKSPACE, { n }));
      await expectEventually(async () => {
        const points = await meter.collect();
        // One event is with the handler (a slot of one) and the next may be pulled already; the
        // rest wait at the server. Nothing is acknowledged while the handler holds.
        const unacked = total(points, 'crm.events.consumer.unacked', group);
        expect(unacked).toBeGreaterThanOrEqual(1);
        expect(unacked).toBeLessThanOrEqual(2);
        expect(total(points, 'crm.events.consumer.pending', group)).toBe(5 - unacked);
      });
      release();
      await expectEventually(async () => {
        const points = await meter.collect();
        expect(total(points, 'crm.events.consumer.unacked', group) + total(points, 'crm.events.consumer.pending', group)).toBe(0);
        expect(total(points, 'messaging.process.duration', group)).toBe(5);
      });
    } finally {
      release();
      await bus.close();
      const { connect } = await import('@nats-io/transport-node');
      const { jetstreamManager } = await import('@nats-io/jetstream');
      const nc = await connect({ servers: TEST_NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
      await nc.close();
    }
  }, 30_000);
});

describe.each(sqlBackends().map((backend) => [backend.name, backend] as const))('outbox and backlog on %s', (_name, backend) => {
  test('the outbox backlog and its oldest event while the bus fails, then the published count once it is back', async () => {
    const { db, drop } = await backend.open('t_metrics');
    try {
      await db.query(OUTBOX_MIGRATION_SQL);
      let failing = true;
      const published: string[] = [];
      const relay = createOutboxRelay({
        db,
        context: 'metered',
        pollIntervalMs: 10,
        maxBackoffMs: 20,
        onError: () => undefined,
        bus: {
          async publish(event) {
            if (failing) throw new Error('bus down');
            published.push(event.id);
          },
          subscribe: () => Promise.reject(new Error('unused')),
          close: async () => undefined,
        },
      });
      const context = { 'crm.context': 'metered' };
      const publishedBefore = total(await meter.collect(), 'crm.outbox.published', context);
      relay.start();
      await db.transaction((tx) => writeOutbox(tx, [1, 2, 3].map((n) => newRawEvent('crm.metrics_test.row.written', WORKSPACE, { n }))));
      await db.query(`UPDATE outbox SET created_at = now() - interval '90 seconds'`);
      let points = await meter.collect();
      expect(total(points, 'crm.outbox.events', context)).toBe(3);
      expect(total(points, 'crm.outbox.oldest_age', context)).toBeGreaterThanOrEqual(90);

      failing = false;
      relay.nudge();
      await expectEventually(() => expect(published).toHaveLength(3));
      await expectEventually(async () => {
        points = await meter.collect();
        expect(total(points, 'crm.outbox.events', context)).toBe(0);
      });
      expect(total(points, 'crm.outbox.oldest_age', context)).toBe(0);
      expect(total(points, 'crm.outbox.published', context) - publishedBefore).toBe(3);
      await relay.stop();
    } finally {
      await drop();
    }
  });

  test('readBacklog: the count and the age of the oldest of any waiting rows', async () => {
    const { db, drop } = await backend.open('t_backlog');
    try {
      await db.query(`CREATE TABLE waiting (at timestamptz NOT NULL)`);
      expect(await readBacklog(db, `SELECT at FROM waiting ORDER BY at`)).toEqual({ count: 0, oldestSeconds: 0 });
      await db.query(`INSERT INTO waiting (at) SELECT now() - make_interval(secs => n) FROM generate_series(1, 600) AS n`);
      const backlog = await readBacklog(db, `SELECT at FROM waiting WHERE at <= now() ORDER BY at -- a trailing comment is allowed`);
      expect(backlog.count).toBe(600);
      expect(backlog.oldestSeconds).toBeGreaterThanOrEqual(600);
      expect(backlog.oldestSeconds).toBeLessThan(660);
    } finally {
      await drop();
    }
  });
});
