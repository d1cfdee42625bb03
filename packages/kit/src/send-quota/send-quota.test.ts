import { Redis } from 'ioredis';
import { createRedis } from '../redis';
import { TEST_REDIS_URL, serviceAvailable } from '../testing/reachability';
import { createMemorySendQuota, createRedisSendQuota } from './send-quota';
import { runSendQuotaContract } from './send-quota.contract';

runSendQuotaContract('memory', async (limit, windowMs) => [createMemorySendQuota(limit, windowMs)]);

if (serviceAvailable('Redis', TEST_REDIS_URL)) {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  // Three connections, as three messaging instances would hold.
  runSendQuotaContract('redis (3 instances)', async (limit, windowMs) =>
    Array.from({ length: 3 }, () => {
      const redis = new Redis(TEST_REDIS_URL);
      connections.push(redis);
      return createRedisSendQuota(redis, limit, windowMs, `crm:test:${process.pid}`);
    }),
  );
} else {
  test.skip('redis send quota contract (Redis unreachable)', () => undefined);
}

test('with Redis down a reservation fails at once instead of granting past the quota', async () => {
  const redis = createRedis('redis://127.0.0.1:1');
  try {
    const quota = createRedisSendQuota(redis, 10);
    const started = Date.now();
    await expect(quota.reserve('ws', 'send')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
  } finally {
    redis.disconnect();
  }
});
