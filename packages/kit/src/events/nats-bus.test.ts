import { randomBytes } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { expectEventually } from '../testing/expect-eventually';
import { serviceAvailable, TEST_NATS_URL } from '../testing/reachability';
import { runEventBusContract } from './event-bus.contract';
import { newRawEvent, type EventBus } from './event-bus';
import { createNatsBus, parseNatsServers } from './nats-bus';

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';
const quiet = () => undefined;
/** One stream and subject space per test run, so runs never see each other's events. */
const run = randomBytes(4).toString('hex');
const natsUp = serviceAvailable('NATS', TEST_NATS_URL);

async function withManager<T>(work: (jsm: JetStreamManager) => Promise<T>): Promise<T> {
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
  try {
    return await work(await jetstreamManager(nc));
  } finally {
    await nc.close();
  }
}

const deleteStream = (name: string) => withManager((jsm) => jsm.streams.delete(name).catch(() => false));

(natsUp ? describe : describe.skip)('NATS JetStream bus', () => {
  const stream = `T_${run}`;
  const prefix = `t${run}`;

  runEventBusContract('nats', async () => ({
    subjectPrefix: prefix,
    createBus: () =>
      createNatsBus({ servers: TEST_NATS_URL, stream, subjects: [`${prefix}.>`], name: 'kit-events-test', retryDelayMs: () => 20, onError: quiet }),
    dispose: async () => void (await deleteStream(stream)),
  }));

  describe('stream and consumer management', () => {
    const ownStream = `T_${run}_OWN`;
    let bus: EventBus | undefined;
    afterEach(async () => {
      await bus?.close();
      bus = undefined;
    });
    afterAll(() => deleteStream(ownStream));

    test('an existing stream is updated to the configured subjects and duplicate window', async () => {
      await withManager((jsm) => jsm.streams.add({ name: ownStream, subjects: [`${prefix}own.old.>`] }));

      bus = await createNatsBus({ servers: TEST_NATS_URL, stream: ownStream, subjects: [`${prefix}own.a.>`, `${prefix}own.b.>`] });

      const info = await withManager((jsm) => jsm.streams.info(ownStream));
      expect([...(info.config.subjects ?? [])].sort()).toEqual([`${prefix}own.a.>`, `${prefix}own.b.>`]);
      expect(info.config.duplicate_window).toBe(120_000 * 1_000_000);
    });

    test('the consume loop recovers when its consumer is deleted under it', async () => {
      const errors: unknown[] = [];
      bus = await createNatsBus({
        servers: TEST_NATS_URL,
        stream: ownStream,
        subjects: [`${prefix}own.>`],
        onError: (error) => errors.push(error),
      });
      const seen: string[] = [];
      await bus.subscribe({ durable: 'survivor', subjects: [`${prefix}own.x.>`], handler: async (e) => void seen.push(e.id) });
      const before = newRawEvent(`${prefix}own.x.contact.created`, WORKSPACE, {});
      await bus.publish(before);
      await expectEventually(() => expect(seen).toEqual([before.id]));

      await withManager((jsm) => jsm.consumers.delete(ownStream, 'survivor'));
      await expectEventually(() => expect(errors.length).toBeGreaterThan(0));
      const after = newRawEvent(`${prefix}own.x.contact.deleted`, WORKSPACE, {});
      await bus.publish(after);

      // Recreated from the start of the stream: the earlier event comes again (consumers are
      // idempotent), and the new one arrives.
      await expectEventually(() => expect(seen).toContain(after.id), { timeoutMs: 10_000 });
    }, 15_000);

    test('a durable changed to other subjects receives only the new ones', async () => {
      // On nats-server 2.9 the stopped subscriber's pending pull keeps taking deliveries until it
      // expires, each one back only after the ack wait. Pulls expire within the ack wait
      // (pullExpiresMs), so with a 1 s ack wait such a delay stays inside the test's time; the
      // assertion (only the new subject arrives) is unchanged.
      bus = await createNatsBus({ servers: TEST_NATS_URL, stream: ownStream, subjects: [`${prefix}own.>`], onError: quiet, ackWaitMs: 1_000 });
      const first = await bus.subscribe({ durable: 'refiltered', subjects: [`${prefix}own.y.old`], handler: async () => undefined });
      await first.stop();
      const seen: string[] = [];
      await bus.subscribe({ durable: 'refiltered', subjects: [`${prefix}own.y.new`], handler: async (e) => void seen.push(e.type) });
      await bus.publish(newRawEvent(`${prefix}own.y.old`, WORKSPACE, {}));
      await bus.publish(newRawEvent(`${prefix}own.y.new`, WORKSPACE, {}));

      await expectEventually(() => expect(seen).toContain(`${prefix}own.y.new`));
      expect(seen).toEqual([`${prefix}own.y.new`]);
    });

    test('publishAll stores a batch in its order, settles each event alone and drops a repeat', async () => {
      const batchStream = `${ownStream}_ALL`;
      try {
        bus = await createNatsBus({ servers: TEST_NATS_URL, stream: batchStream, subjects: [`${prefix}all.>`], onError: quiet });
        const events = Array.from({ length: 40 }, (_, n) => newRawEvent(`${prefix}all.z.${n % 3}`, WORKSPACE, { n }));
        // No stream takes this subject: the server refuses it, and the events after it still go.
        const outside = newRawEvent(`${prefix}elsewhere.z`, WORKSPACE, {});
        const outcomes = await bus.publishAll!([
          ...events.slice(0, 20).map((event) => ({ event })),
          { event: outside },
          ...events.slice(20).map((event) => ({ event })),
          { event: events[5]! },
        ]);
        expect(outcomes.map((o) => o.status)).toEqual([...Array(20).fill('fulfilled'), 'rejected', ...Array(21).fill('fulfilled')]);
        const stored = await withManager(async (jsm) => {
          const { state } = await jsm.streams.info(batchStream);
          const ns: number[] = [];
          for (let seq = state.first_seq; seq <= state.last_seq; seq++) ns.push((await jsm.streams.getMessage(batchStream, { seq })).json<{ data: { n: number } }>().data.n);
          return ns;
        });
        expect(stored).toEqual(events.map((_, n) => n));
      } finally {
        await deleteStream(batchStream);
      }
    });

    test('newDurablesFrom: a durable created by the bus starts at that time; one that exists keeps its place', async () => {
      const startStream = `${ownStream}_FROM`;
      const older = await createNatsBus({ servers: TEST_NATS_URL, stream: startStream, subjects: [`${prefix}from.>`], onError: quiet });
      try {
        const seen: Record<string, number[]> = { fresh: [], kept: [] };
        const handler = (name: string) => async (event: { data: unknown }) => void seen[name]!.push((event.data as { n: number }).n);
        // `kept` exists before the first event; `fresh` is created after it, told to start later.
        await (await older.subscribe({ durable: 'kept', subjects: [`${prefix}from.e`], handler: async () => undefined })).stop();
        await older.publish(newRawEvent(`${prefix}from.e`, WORKSPACE, { n: 1 }));
        const firstStored = await withManager(async (jsm) => (await jsm.streams.getMessage(startStream, { seq: 1 })).time);
        const from = new Date(firstStored.getTime() + 1);
        await expectEventually(() => expect(Date.now()).toBeGreaterThan(from.getTime() + 1));

        bus = await createNatsBus({ servers: TEST_NATS_URL, stream: startStream, subjects: [`${prefix}from.>`], onError: quiet, newDurablesFrom: from });
        await bus.subscribe({ durable: 'fresh', subjects: [`${prefix}from.e`], handler: handler('fresh') });
        await bus.subscribe({ durable: 'kept', subjects: [`${prefix}from.e`], handler: handler('kept') });
        await older.publish(newRawEvent(`${prefix}from.e`, WORKSPACE, { n: 2 }));

        await expectEventually(() => expect(seen.kept!.sort()).toEqual([1, 2]));
        await expectEventually(() => expect(seen.fresh).toEqual([2]));
        const { config, delivered } = await withManager((jsm) => jsm.consumers.info(startStream, 'fresh'));
        expect(config.opt_start_time && new Date(config.opt_start_time).getTime()).toBe(from.getTime());
        expect(delivered.consumer_seq).toBe(1);
        expect(seen.fresh).toEqual([2]);
      } finally {
        await older.close();
        await bus?.close();
        bus = undefined;
        await deleteStream(startStream);
      }
    });

    test('a consumer of several subjects is filtered by the server from 2.10 on, and takes the whole stream before', async () => {
      bus = await createNatsBus({ servers: TEST_NATS_URL, stream: ownStream, subjects: [`${prefix}own.>`], onError: quiet });
      const subjects = [`${prefix}own.m.a`, `${prefix}own.m.b`];
      await bus.subscribe({ durable: 'several', subjects, handler: async () => undefined });
      const { version, config } = await withManager(async (jsm) => ({
        version: jsm.nc.info?.version ?? '',
        config: (await jsm.consumers.info(ownStream, 'several')).config,
      }));
      const [major, minor] = version.split('.').map(Number) as [number, number];
      if (major > 2 || (major === 2 && minor >= 10)) {
        expect([...(config.filter_subjects ?? [])].sort()).toEqual(subjects);
      } else {
        // Local filtering (the handler still sees only its subjects: the contract's wildcard test).
        expect(config.filter_subjects ?? []).toEqual([]);
      }
      expect(config.filter_subject ?? '').toBe('');
    });
  });
});

describe('the NATS server list', () => {
  test('one URL, a comma-separated list or a list, each entry trimmed', () => {
    expect(parseNatsServers('nats://a:4222')).toEqual(['nats://a:4222']);
    expect(parseNatsServers('nats://a:4222, nats://b:4222 ,tls://c:4222,d:4222')).toEqual(['nats://a:4222', 'nats://b:4222', 'tls://c:4222', 'd:4222']);
    expect(parseNatsServers(['nats://a:4222', 'b'])).toEqual(['nats://a:4222', 'b']);
  });

  test.each([
    ['', /no NATS server given/],
    ['nats://a:4222,', /NATS server 2 of 2 is empty \(a stray comma\?\)/],
    ['nats://a:4222;nats://b:4222', /the NATS server is not a server address/],
    ['http://a:4222', /the NATS server is not a server address/],
    ['nats://a:4222,nats://b:99999', /NATS server 2 of 2 is not a server address/],
  ])('%j is refused with a reason', (servers, reason) => {
    expect(() => parseNatsServers(servers)).toThrow(reason);
  });

  test('a refused entry is named by position, never echoed (it may carry a password)', () => {
    expect(() => parseNatsServers('nats://u:hunter2@a:4222/x')).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
  });

  test('a replica count JetStream cannot keep is refused before connecting', async () => {
    await expect(createNatsBus({ servers: 'nats://127.0.0.1:1', streamReplicas: 6 })).rejects.toThrow('stream replicas must be a whole number from 1 to 5, got 6');
    await expect(createNatsBus({ servers: 'nats://127.0.0.1:1', streamReplicas: 0 })).rejects.toThrow(/from 1 to 5/);
  });
});
