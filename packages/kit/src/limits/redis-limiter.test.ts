import { Redis } from 'ioredis';
import { TEST_REDIS_URL, serviceAvailable } from '../testing/reachability';
import { createRedisLimiter } from './redis-limiter';
import { runRateLimiterContract } from './rate-limiter.contract';

if (serviceAvailable('Redis', TEST_REDIS_URL)) {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  // Three connections, as three gateway processes would hold.
  runRateLimiterContract('redis (3 instances)', async (limits) =>
    Array.from({ length: 3 }, () => {
      const redis = new Redis(TEST_REDIS_URL);
      connections.push(redis);
      return createRedisLimiter(redis, limits, `crm:test:${process.pid}`);
    }),
  );
} else {
  test.skip('redis limiter contract (Redis unreachable)', () => undefined);
}
