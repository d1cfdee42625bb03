/**
 * The send quota on a private six-node Redis Cluster (test/support/redis-cluster.ts): exact across
 * instances with workspaces in every part of the slot space, and what a primary's failure costs.
 */
import { REDIS_CLI_BINARY, REDIS_SERVER_BINARY, type RedisCluster, clusterClient, startRedisCluster, underLoad } from '../../../../test/support/redis-cluster';
import type { RedisClient } from '../redis';
import { expectEventually } from '../testing/expect-eventually';
import { toolAvailable } from '../testing/reachability';
import { createRedisSendQuota } from './send-quota';
import { runSendQuotaContract } from './send-quota.contract';

jest.setTimeout(120_000);

const haveRedis = toolAvailable('redis-server and redis-cli', REDIS_SERVER_BINARY !== undefined && REDIS_CLI_BINARY !== undefined);

if (haveRedis) {
  let cluster: RedisCluster;
  const clients: RedisClient[] = [];
  const connect = async (production = false) => {
    const client = await clusterClient(cluster, production);
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await cluster?.close();
  });

  // Three clients, as three messaging replicas would hold.
  runSendQuotaContract('redis cluster (3 instances)', async (limit, windowMs) =>
    Promise.all(Array.from({ length: 3 }, async () => createRedisSendQuota(await connect(), limit, windowMs, 'crm:test:cluster'))),
  );

  test('two replicas grant exactly the quota of each of many workspaces spread over every primary', async () => {
    const [a, b] = [createRedisSendQuota(await connect(), 5, 60_000, 'crm:test:spread'), createRedisSendQuota(await connect(), 5, 60_000, 'crm:test:spread')];
    const workspaces = Array.from({ length: 60 }, (_, i) => `0190f0a0-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const owners = new Set(await Promise.all(workspaces.map(async (w) => (await cluster.ownerOf(`{${w}}`)).primary)));
    expect(owners.size).toBe(3);
    for (const w of workspaces) {
      // Twelve concurrent reservations per workspace, half through each replica.
      const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).reserve(w, `send-${i}`)));
      expect(decisions.filter((d) => d.granted)).toHaveLength(5);
    }
  });

  describe('a primary fails over under load', () => {
    const workspace = '0190f0a0-0000-7000-8000-failover0000';
    const key = (prefix: string) => `${prefix}:{${workspace}}:send`;
    /** Reservations acknowledged by the cluster that it no longer holds after the failover. */
    const lostOf = async (client: RedisClient, prefix: string, granted: string[]) => {
      const held = new Set(await client.zrange(key(prefix), 0, -1));
      return granted.filter((id) => !held.has(id));
    };

    test('a manual failover (CLUSTER FAILOVER: the replica catches up first) loses no reservation', async () => {
      const quotas = [createRedisSendQuota(await connect(true), 1_000_000, 3_600_000, 'crm:test:manual'), createRedisSendQuota(await connect(true), 1_000_000, 3_600_000, 'crm:test:manual')];
      const { primary } = await cluster.ownerOf(key('crm:test:manual'));
      const outcome = await underLoad((i) => quotas[i % 2]!.reserve(workspace, `send-${i}`), () => cluster.failover(primary));
      const client = await connect();
      const granted = outcome.succeeded.filter((s) => s.value.granted).map((s) => `send-${s.index}`);
      await expectEventually(async () => expect(await lostOf(client, 'crm:test:manual', granted)).toEqual([]), { timeoutMs: 10_000 });
      // eslint-disable-next-line no-console
      console.info(`send quota, CLUSTER FAILOVER: ${granted.length} granted, 0 lost, ${outcome.failed.length} refused in ${outcome.outageMs} ms`);
    });

    test('a killed primary loses at most the reservations of its last instant, and the quota never counts one twice', async () => {
      const quotas = [createRedisSendQuota(await connect(true), 1_000_000, 3_600_000, 'crm:test:killed'), createRedisSendQuota(await connect(true), 1_000_000, 3_600_000, 'crm:test:killed')];
      const { primary } = await cluster.ownerOf(key('crm:test:killed'));
      const outcome = await underLoad(
        (i) => quotas[i % 2]!.reserve(workspace, `send-${i}`),
        async () => {
          await cluster.kill(primary);
          await cluster.settled();
        },
      );
      await cluster.restart(primary);
      // Read back through a client that starts with the cluster as it is now.
      const client = await connect();
      const granted = outcome.succeeded.filter((s) => s.value.granted).map((s) => `send-${s.index}`);
      const lost = await lostOf(client, 'crm:test:killed', granted);
      // eslint-disable-next-line no-console
      console.info(`send quota, primary killed: ${granted.length} granted, ${lost.length} lost, ${outcome.failed.length} refused in ${outcome.outageMs} ms`);
      // Asynchronous replication: what the primary acknowledged but had not yet sent on is gone.
      // On loopback that is at most a few milliseconds of reservations (8 callers in flight).
      expect(lost.length).toBeLessThanOrEqual(16);
      // Every place held is a reservation that was granted, or one whose answer the failover cut
      // off (applied, then the connection dropped): the quota may count a failed call, which errs
      // towards fewer sends, and never holds a place nobody asked for.
      const asked = new Set([...granted, ...outcome.failed.map((i) => `send-${i}`)]);
      const held = await client.zrange(key('crm:test:killed'), 0, -1);
      expect(held.filter((id) => !asked.has(id))).toEqual([]);
      expect(held.length).toBeGreaterThanOrEqual(granted.length - lost.length);
    });
  });
} else {
  test.skip('send quota on a Redis Cluster (no redis-server or redis-cli)', () => undefined);
}
