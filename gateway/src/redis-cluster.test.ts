/**
 * The gateway's shared state on a private six-node Redis Cluster (test/support/redis-cluster.ts):
 * limits exact and idempotency held across gateways, as on one server, and what a primary's failure
 * under load costs (Redis replicates asynchronously, so a write acknowledged in its last instant
 * may be gone; gateway/README.md, "Redis Cluster").
 */
import type { RedisClient } from '@crm/kit';
import { toolAvailable } from '@crm/kit/testing';
import { REDIS_CLI_BINARY, REDIS_SERVER_BINARY, type RedisCluster, clusterClient, startRedisCluster, underLoad } from '../../test/support/redis-cluster';
import { runRateLimiterContract } from './limits/rate-limiter.contract';
import { createRedisLimiter } from './limits/redis-limiter';
import { createRedisSignInThrottle } from './limits/sign-in-throttle';
import { createRedisIdempotencyStore, idempotencyKeyOf } from './plugins/idempotency';
import { runIdempotencyStoreContract } from './plugins/idempotency.contract';

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

  // Three gateways, each with its own cluster client.
  runRateLimiterContract('redis cluster (3 gateways)', async (limits) =>
    Promise.all(Array.from({ length: 3 }, async () => createRedisLimiter(await connect(), limits, { prefix: 'crm:test:rl' }))),
  );
  runIdempotencyStoreContract('redis cluster (3 gateways)', async () =>
    Promise.all(Array.from({ length: 3 }, async () => createRedisIdempotencyStore(await connect(), 'crm:test:idem'))),
  );

  test('two gateways share exact sign-in counts on the cluster', async () => {
    const limits = { accountLimit: 5, addressLimit: 20, windowMs: 60_000 };
    const [a, b] = [createRedisSignInThrottle(await connect(), limits, 'crm:test:signin'), createRedisSignInThrottle(await connect(), limits, 'crm:test:signin')];
    const attempts = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).attempt('Someone@Example.com', `198.51.100.${i}`)));
    expect(attempts.filter((attempt) => attempt.admitted)).toHaveLength(5);
  });

  describe('a primary killed under load', () => {
    const workspace = '0190f0a0-0000-7000-8000-failover0000';

    test('the limiter loses at most the admissions of its last instant', async () => {
      const roomy = { keyLimit: 1_000_000, keyWindowMs: 600_000, workspaceLimit: 1_000_000, workspaceWindowMs: 600_000 };
      // No leases: every admission is one script call, so each one is counted where it is lost.
      const gateways = [createRedisLimiter(await connect(true), roomy, { prefix: 'crm:test:rl-kill', leaseMax: 1 }), createRedisLimiter(await connect(true), roomy, { prefix: 'crm:test:rl-kill', leaseMax: 1 })];
      const window = `crm:test:rl-kill:{${workspace}}:k:key`;
      const { primary } = await cluster.ownerOf(window);
      const outcome = await underLoad(
        (i) => gateways[i % 2]!.hit(workspace, 'key', `req-${i}`),
        async () => {
          await cluster.kill(primary);
          await cluster.settled();
        },
      );
      await cluster.restart(primary);
      // Read back through a client that starts with the cluster as it is now.
      const client = await connect();
      const admitted = outcome.succeeded.filter((s) => s.value.admitted).map((s) => `req-${s.index}`);
      const held = new Set((await client.zrange(window, 0, -1)).map((member) => member.split(':')[0]));
      const lost = admitted.filter((request) => !held.has(request));
      // eslint-disable-next-line no-console
      console.info(`rate limiter, primary killed: ${admitted.length} admitted, ${lost.length} lost, ${outcome.failed.length} failed over ${outcome.outageMs} ms`);
      expect(lost.length).toBeLessThanOrEqual(16);
      await Promise.all(gateways.map((gateway) => gateway.close()));
    });

    test('idempotency loses at most the claims of its last instant', async () => {
      const stores = [createRedisIdempotencyStore(await connect(true), 'crm:test:idem-kill'), createRedisIdempotencyStore(await connect(true), 'crm:test:idem-kill')];
      const scope = (i: number) => `${workspace}:key-${i}`;
      const { primary } = await cluster.ownerOf(idempotencyKeyOf(scope(0), 'crm:test:idem-kill'));
      const outcome = await underLoad(
        (i) => stores[i % 2]!.claim(scope(i), 'fingerprint'),
        async () => {
          await cluster.kill(primary);
          await cluster.settled();
        },
      );
      await cluster.restart(primary);
      // Read back through a client that starts with the cluster as it is now.
      const client = await connect();
      // Each scope is claimed once: every success is a fresh claim.
      expect(outcome.succeeded.every((s) => s.value === undefined)).toBe(true);
      const claimed = outcome.succeeded.map((s) => idempotencyKeyOf(scope(s.index), 'crm:test:idem-kill'));
      const lost: string[] = [];
      // In batches: thousands of commands at once would crowd one connection.
      for (let i = 0; i < claimed.length; i += 100) {
        const batch = claimed.slice(i, i + 100);
        const present = await Promise.all(batch.map((key) => client.exists(key)));
        lost.push(...batch.filter((_, j) => present[j] === 0));
      }
      // eslint-disable-next-line no-console
      console.info(`idempotency, primary killed: ${claimed.length} claimed, ${lost.length} lost, ${outcome.failed.length} failed over ${outcome.outageMs} ms`);
      expect(lost.length).toBeLessThanOrEqual(16);
    });
  });
} else {
  test.skip('limits and idempotency on a Redis Cluster (no redis-server or redis-cli)', () => undefined);
}
