/**
 * The 3-node test cluster itself, and what the event bus does on one: it creates its stream with
 * the replica count it is given, brings an existing stream to that count, and keeps publishing and
 * consuming when the stream's leader is killed.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createNatsBus, type EventBus, newRawEvent } from '@crm/kit';
import { expectEventually, toolAvailable } from '@crm/kit/testing';
import { type NatsCluster, startNatsCluster } from './nats-cluster';
import { NATS_SERVER_BINARY } from './nats-server';

jest.setTimeout(120_000);

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';
const suite = toolAvailable('nats-server', NATS_SERVER_BINARY !== undefined) ? describe : describe.skip;

suite('a 3-node NATS JetStream cluster', () => {
  let cluster: NatsCluster;
  const buses: EventBus[] = [];
  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 90_000);
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  afterAll(() => cluster?.close());

  const streamConfig = async (stream: string) => {
    const nc = await connect({ servers: cluster.url.split(',') });
    try {
      return (await (await jetstreamManager(nc)).streams.info(stream)).config;
    } finally {
      await nc.close();
    }
  };
  const open = async (stream: string, streamReplicas?: number) => {
    const bus = await createNatsBus({ servers: cluster.url, stream, subjects: [`${stream.toLowerCase()}.>`], streamReplicas, onError: () => undefined });
    buses.push(bus);
    return bus;
  };

  test('a stream created with 1 replica is brought to 3 when the bus is started again with 3, and back', async () => {
    await open('RECONCILE', 1);
    expect((await streamConfig('RECONCILE')).num_replicas).toBe(1);
    await buses.pop()!.close();

    await open('RECONCILE', 3);
    expect((await streamConfig('RECONCILE')).num_replicas).toBe(3);
    await buses.pop()!.close();

    // Without the setting: the default, 1.
    await open('RECONCILE');
    expect((await streamConfig('RECONCILE')).num_replicas).toBe(1);
  });

  test('more replicas than the cluster has servers is a start-up error that says so', async () => {
    await expect(open('TOOMANY', 5)).rejects.toThrow(/stream TOOMANY with 5 replicas/);
  });

  test('with 3 replicas, killing the stream leader loses no event and the bus goes on', async () => {
    const bus = await open('FAILOVER', 3);
    const seen = new Set<string>();
    await bus.subscribe({ durable: 'failover', subjects: ['failover.>'], handler: async (event) => void seen.add(event.id) });
    const ids: string[] = [];
    const publish = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const event = newRawEvent('failover.thing.happened', WORKSPACE, { i });
        ids.push(event.id);
        // A publish that lands while the group elects a new leader fails: published again, as an outbox relay does.
        await expectEventually(() => bus.publish(event), { timeoutMs: 30_000, intervalMs: 100 });
      }
    };
    await publish(20);
    // The bus's one connection (the test's own are left out).
    expect(await cluster.clientConnections()).toBe(1);
    const leader = await cluster.streamLeader('FAILOVER');
    await leader.kill();
    await expectEventually(async () => expect(await cluster.clientConnections()).toBe(1), { timeoutMs: 15_000, intervalMs: 50 });
    await publish(20);
    await expectEventually(() => expect(ids.filter((id) => !seen.has(id))).toEqual([]), { timeoutMs: 60_000, intervalMs: 100 });
    const next = await cluster.streamLeader('FAILOVER');
    expect(next.name).not.toBe(leader.name);
    await leader.start();
  });
});
