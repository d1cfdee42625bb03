import { trace } from '@opentelemetry/api';
import { createPgClient, type SqlClient } from '../sql';
import { expectEventually } from '../testing/expect-eventually';
import { TEST_DATABASE_URL } from '../testing/reachability';
import { sqlBackends } from '../testing/sql-backends';
import { useTestTracing } from './event-bus.contract';
import { newRawEvent, type CrmEvent, type EventBus } from './event-bus';
import { createMemoryBus } from './memory-bus';
import { createOutboxRelay, OUTBOX_MIGRATION_SQL, writeOutbox, type OutboxRelay, type OutboxRelayOptions } from './outbox';

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';

interface RecordingBusOptions {
  /** Runs before each publish; may wait (to interleave relays) or throw (to fail it). */
  beforePublish?: (event: CrmEvent<object>) => Promise<void> | void;
}

/** A bus that only records what the relay published, in order. */
function recordingBus(options: RecordingBusOptions = {}) {
  const published: Array<{ event: CrmEvent<object>; headers: Record<string, string> }> = [];
  const bus: EventBus = {
    async publish(event, headers = {}) {
      await options.beforePublish?.(event);
      published.push({ event, headers });
    },
    subscribe: () => Promise.reject(new Error('the relay never subscribes')),
    close: async () => undefined,
  };
  return { bus, published, ids: () => published.map((p) => p.event.id) };
}

const mint = (count: number) =>
  Array.from({ length: count }, (_, n) => newRawEvent('crm.outbox_test.row.written', WORKSPACE, { n }));

describe.each(sqlBackends().map((backend) => [backend.name, backend] as const))('outbox on %s', (_name, backend) => {
  useTestTracing();
  let db: SqlClient;
  let drop: () => Promise<void>;
  const relays: OutboxRelay[] = [];
  const relay = (options: Omit<OutboxRelayOptions, 'db'> & { db?: SqlClient }) => {
    const created = createOutboxRelay({ db, pollIntervalMs: 10, maxBackoffMs: 50, ...options });
    relays.push(created);
    created.start();
    return created;
  };
  const outboxRows = async () =>
    (await db.query<{ id: string; attempts: number }>(`SELECT id, attempts FROM outbox ORDER BY id`)).rows;
  const commit = (events: CrmEvent<object>[]) => db.transaction((tx) => writeOutbox(tx, events));

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_outbox'));
    await db.query(OUTBOX_MIGRATION_SQL);
    // Applying it again is harmless: services run their migrations on every start.
    await db.query(OUTBOX_MIGRATION_SQL);
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await db.query(`DELETE FROM outbox`);
  });
  afterAll(async () => {
    await drop();
  });

  test('events written in a rolled-back transaction are never published', async () => {
    const [rolledBack, committed] = mint(2);
    await expect(
      db.transaction(async (tx) => {
        await writeOutbox(tx, [rolledBack!]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await commit([committed!]);
    const { bus, ids } = recordingBus();

    relay({ bus });

    // The committed event is later than the rolled-back one: once it is out, the other never will be.
    await expectEventually(() => expect(ids()).toEqual([committed!.id]));
    // A relay deletes what it published just after publishing it: seen published is not yet deleted.
    await expectEventually(async () => expect(await outboxRows()).toEqual([]));
  });

  test('committed events are published in order, exactly once, by two relays running together', async () => {
    const events = mint(250);
    for (let start = 0; start < events.length; start += 50) await commit(events.slice(start, start + 50));
    // Yielding inside publish lets the two relays interleave as much as they can.
    const { bus, ids } = recordingBus({ beforePublish: () => new Promise((resolve) => setImmediate(resolve)) });
    // Another replica: its own connection pool on the same schema (PGlite has one connection).
    const replicaDb = db.kind === 'postgres' ? await createPgClient({ url: TEST_DATABASE_URL, schema: db.schema, max: 2 }) : db;
    try {
      relay({ bus, batchSize: 40 });
      relay({ bus, batchSize: 40, db: replicaDb });

      await expectEventually(() => expect(ids()).toHaveLength(events.length), { timeoutMs: 10_000 });
      expect(ids()).toEqual(events.map((e) => e.id));
      // A relay deletes what it published just after publishing it: seen published is not yet deleted.
      await expectEventually(async () => expect(await outboxRows()).toEqual([]));
    } finally {
      await Promise.all(relays.splice(0).map((r) => r.stop()));
      if (replicaDb !== db) await replicaDb.close();
    }
  }, 15_000);

  test('a failed publish leaves the row for a retry and holds back the events after it', async () => {
    const [first, second] = mint(2);
    await commit([first!, second!]);
    let busDown = true;
    const errors: unknown[] = [];
    const { bus, ids } = recordingBus({
      beforePublish: () => {
        if (busDown) throw new Error('no responders');
      },
    });

    relay({ bus, onError: (_error, context) => errors.push(context) });

    await expectEventually(async () => {
      const rows = await outboxRows();
      expect(rows.map((r) => r.id)).toEqual([first!.id, second!.id]);
      expect(rows[0]!.attempts).toBeGreaterThanOrEqual(1);
    });
    expect((await outboxRows())[1]!.attempts).toBe(0);
    expect(ids()).toEqual([]);
    expect(errors[0]).toEqual({ eventId: first!.id, subject: first!.type, attempts: 1 });

    busDown = false;
    await expectEventually(() => expect(ids()).toEqual([first!.id, second!.id]));
    await expectEventually(async () => expect(await outboxRows()).toEqual([]));
  });

  test('a bus that takes a batch at once gets each batch in one call, and a refused event stays with the ones after it', async () => {
    const events = mint(5);
    await commit(events);
    const refused = new Set([events[2]!.id]);
    const calls: string[][] = [];
    const errors: unknown[] = [];
    const stored: string[] = [];
    const { bus } = recordingBus();
    // As the NATS bus: every item is sent; the server may store later items after refusing one.
    bus.publishAll = async (items) => {
      calls.push(items.map((item) => item.event.id));
      return items.map(({ event }) => {
        if (refused.has(event.id)) return { status: 'rejected', reason: new Error('refused') };
        if (!stored.includes(event.id)) stored.push(event.id); // the stream drops a repeat by id
        return { status: 'fulfilled', value: undefined };
      });
    };

    relay({ bus, onError: (_error, context) => errors.push(context) });

    const ids = events.map((e) => e.id);
    await expectEventually(async () => {
      const rows = await outboxRows();
      expect(rows.map((r) => r.id)).toEqual(ids.slice(2));
      expect(rows[0]!.attempts).toBeGreaterThanOrEqual(1);
    });
    expect((await outboxRows()).slice(1).map((r) => r.attempts)).toEqual([0, 0]);
    expect(calls[0]).toEqual(ids);
    expect(errors[0]).toEqual({ eventId: ids[2], subject: events[2]!.type, attempts: 1 });

    refused.clear();
    await expectEventually(async () => expect(await outboxRows()).toEqual([]));
    expect(calls.at(-1)).toEqual(ids.slice(2));
    expect(stored.sort()).toEqual([...ids].sort());
  });

  test('nudge() publishes at once instead of at the next poll', async () => {
    const [early, late] = mint(2);
    await commit([early!]);
    const { bus, ids } = recordingBus();
    const slowPoller = relay({ bus, pollIntervalMs: 60_000 });
    await expectEventually(() => expect(ids()).toEqual([early!.id]));

    await commit([late!]);
    slowPoller.nudge();

    await expectEventually(() => expect(ids()).toEqual([early!.id, late!.id]), { timeoutMs: 2_000 });
  });

  test('stop() waits for the batch in flight and records it', async () => {
    const [event] = mint(1);
    await commit([event!]);
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    let publishing = false;
    const { bus, ids } = recordingBus({
      beforePublish: async () => {
        publishing = true;
        await gate;
      },
    });
    const running = relay({ bus });
    await expectEventually(() => expect(publishing).toBe(true));

    let stopped = false;
    const stopping = running.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;

    expect(ids()).toEqual([event!.id]);
    expect(await outboxRows()).toEqual([]);
  });

  test('in-process consumers continue the writer’s trace and may use the same database meanwhile', async () => {
    const bus = createMemoryBus();
    const seen: Array<{ traceId: string | undefined; pending: number }> = [];
    await bus.subscribe({
      durable: 'people',
      subjects: ['crm.outbox_test.>'],
      handler: async () => {
        // With PGlite this query would wait forever if the relay held a transaction open while
        // publishing to a bus whose handlers run inside publish().
        const { rows } = await db.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM outbox`);
        seen.push({ traceId: trace.getActiveSpan()?.spanContext().traceId, pending: rows[0]!.pending });
      },
    });
    const [event] = mint(1);
    const writerTraceId = await trace.getTracer('test').startActiveSpan('PATCH /v1/contacts/:id', async (span) => {
      await commit([event!]);
      span.end();
      return span.spanContext().traceId;
    });

    relay({ bus });

    await expectEventually(() => expect(seen).toEqual([{ traceId: writerTraceId, pending: 1 }]));
    await expectEventually(async () => expect(await outboxRows()).toEqual([]));
    await bus.close();
  });

  test('writeOutbox refuses an event no consumer could receive', async () => {
    const [event] = mint(1);
    await expect(commit([{ ...event!, type: 'crm.outbox_test.*.written' }])).rejects.toThrow(/subject/);
    expect(await outboxRows()).toEqual([]);
  });
});
