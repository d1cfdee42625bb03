/**
 * The shared state on a Redis Cluster, through the real processes: two gateways and messaging
 * started with REDIS_CLUSTER=true and the seed URLs of a private six-node cluster
 * (test/support/redis-cluster.ts). Readiness covers the cluster, the rate limits hold exactly
 * across both gateways, an Idempotency-Key replays from the other gateway, and a send reserves its
 * place in the cluster. What a failover costs is measured beside the code
 * (gateway/src/redis-cluster.test.ts, packages/kit/src/send-quota/send-quota.cluster.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { createRedis } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, serviceAvailable, toolAvailable } from '@crm/kit/testing';
import { apiClient } from '../support/http';
import { REDIS_CLI_BINARY, REDIS_SERVER_BINARY, type RedisCluster, startRedisCluster } from '../support/redis-cluster';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(240_000);

// Postgres too: the same run on PGlite (CI's second pass) would add a minute and test nothing more.
const haveRedis =
  toolAvailable('redis-server and redis-cli', REDIS_SERVER_BINARY !== undefined && REDIS_CLI_BINARY !== undefined) &&
  serviceAvailable('Postgres', TEST_DATABASE_URL);
const unique = () => randomBytes(4).toString('hex');

(haveRedis ? describe : describe.skip)('gateways and messaging on a Redis Cluster', () => {
  let cluster: RedisCluster | undefined;
  let stack: Stack | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    const redis = { REDIS_URL: cluster.seeds, REDIS_CLUSTER: 'true' };
    stack = await startStack({
      gateways: 2,
      gatewayEnv: { ...redis, RATE_LIMIT_KEY: '5', RATE_LIMIT_KEY_WINDOW_MS: '60000', RATE_LIMIT_WORKSPACE: '100', RATE_LIMIT_WORKSPACE_WINDOW_MS: '60000' },
      componentEnv: { messaging: { ...redis, SEND_QUOTA_PER_HOUR: '3' } },
    });
  }, 200_000);
  afterAll(async () => {
    await stack?.stop();
    await cluster?.close();
  });

  test('both gateways are ready with the cluster and together admit exactly the per-key limit', async () => {
    for (const url of stack!.gatewayUrls) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect((await ready.json()).dependencies).toEqual({ redis: true });
    }
    const { key } = await stack!.workspaceWithKey(`cluster-rl-${unique()}`, 'contacts:read');
    const clients = stack!.gatewayUrls.map((url) => apiClient(url));
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => clients[i % 2]!('GET', '/v1/contacts?limit=1', { key })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(15);
  });

  test('an Idempotency-Key used through one gateway replays through the other', async () => {
    const { key } = await stack!.workspaceWithKey(`cluster-idem-${unique()}`, '*');
    const [a, b] = stack!.gatewayUrls.map((url) => apiClient(url));
    const request = { key, body: { first_name: 'Once' }, headers: { 'idempotency-key': `create-${unique()}` } };
    const first = await a!('POST', '/v1/contacts', request);
    expect(first.status).toBe(201);
    const repeat = await b!('POST', '/v1/contacts', request);
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.data.id).toBe(first.body.data.id);
  });

  test('messaging reserves sends in the cluster and holds the quota', async () => {
    const { key, workspaceId } = await stack!.workspaceWithKey(`cluster-quota-${unique()}`, '*');
    const contact = await stack!.api('POST', '/v1/contacts', { key, body: { first_name: 'Q', email: 'q@example.com' } });
    const sends = [];
    for (let i = 0; i < 4; i++) sends.push(await stack!.api('POST', '/v1/sent_emails', { key, body: { contact_id: contact.body.data.id, subject: `S${i}`, body: 'Hi' } }));
    expect(sends.map((r) => r.status)).toEqual([201, 201, 201, 429]);
    expect(sends[3]!.body.error.code).toBe('send_quota_exhausted');
    // The places are in the cluster, in the workspace's slot: not in the process's memory.
    const client = createRedis({ url: cluster!.seeds, cluster: true });
    try {
      await expectEventually(() => expect(client.status).toBe('ready'), { timeoutMs: 10_000 });
      expect(await client.zcard(`crm:quota:{${workspaceId}}:send`)).toBe(3);
    } finally {
      client.disconnect();
    }
  });
});
