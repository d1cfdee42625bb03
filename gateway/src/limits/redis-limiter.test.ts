import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { type RedisLimiterOptions, createRedisLimiter } from './redis-limiter';
import { runRateLimiterContract } from './rate-limiter.contract';
import type { RateLimiter, RateLimits } from './rate-limiter';

if (serviceAvailable('Redis', TEST_REDIS_URL)) {
  const prefix = `crm:test:${process.pid}`;
  const connections: Redis[] = [];
  const connect = () => {
    const redis = new Redis(TEST_REDIS_URL);
    connections.push(redis);
    return redis;
  };
  afterAll(() => connections.forEach((c) => c.disconnect()));
  // Three connections, as three gateway processes would hold.
  runRateLimiterContract('redis (3 instances)', async (limits) => Array.from({ length: 3 }, () => createRedisLimiter(connect(), limits, { prefix })));

  describe('leases: admissions taken from Redis several at a time', () => {
    const roomy: RateLimits = { keyLimit: 10_000, keyWindowMs: 10_000, workspaceLimit: 100_000, workspaceWindowMs: 60_000 };
    const keyWindow = (workspace: string, key: string) => `${prefix}:{${workspace}}:k:${key}`;
    /** A limiter on its own connection, and how many script calls it has made. */
    const open = (limits: RateLimits, options: RedisLimiterOptions = {}) => {
      const redis = connect() as Redis & { crmRateLimit?: (...args: unknown[]) => Promise<number[]> };
      const limiter = createRedisLimiter(redis, limits, { prefix, ...options });
      const script = redis.crmRateLimit!.bind(redis);
      const counted = { calls: 0, limiter };
      redis.crmRateLimit = (...args) => {
        counted.calls++;
        return script(...args);
      };
      return counted;
    };

    test('far from both limits a key asks Redis once per lease, and every answer counts exactly', async () => {
      // Leases held long enough (windows ten times longer, so a tenth of one allows 10 s) that no
      // lease runs out between two requests on a loaded machine, which would hand admissions back.
      const counted = open({ ...roomy, keyWindowMs: 100_000, workspaceWindowMs: 600_000 }, { leaseMs: 10_000 });
      const workspace = randomUUID();
      const remaining: number[] = [];
      for (let i = 0; i < 320; i++) {
        const decision = await counted.limiter.hit(workspace, 'k', `r${i}`);
        expect(decision.admitted).toBe(true);
        remaining.push(decision.key.remaining);
      }
      expect(remaining).toEqual(Array.from({ length: 320 }, (_, i) => roomy.keyLimit - 1 - i));
      expect(counted.calls).toBe(10);
      await counted.limiter.close();
      // Closing handed back nothing: every admission was used.
      expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(320);
    });

    test('concurrent requests for one key wait for the lease being asked for instead of asking too', async () => {
      const counted = open(roomy);
      const workspace = randomUUID();
      const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => counted.limiter.hit(workspace, 'k', `r${i}`)));
      expect(decisions.every((d) => d.admitted)).toBe(true);
      expect(counted.calls).toBe(1);
      await counted.limiter.close();
    });

    test('more concurrent requests than a lease holds queue for the next lease: one call in flight per key, nothing left unused', async () => {
      const counted = open(roomy, { leaseMax: 4 });
      const workspace = randomUUID();
      const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => counted.limiter.hit(workspace, 'k', `r${i}`)));
      expect(decisions.every((d) => d.admitted)).toBe(true);
      // Five leases of four, one after the other; a lease asked for by every waiter at once would be 17 calls.
      expect(counted.calls).toBe(5);
      expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(20);
      await counted.limiter.close();
    });

    test('what a lease did not use goes back to Redis when it ends, and on close', async () => {
      const counted = open(roomy, { leaseMs: 50 });
      const workspace = randomUUID();
      for (let i = 0; i < 5; i++) await counted.limiter.hit(workspace, 'k', `r${i}`);
      expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(32);
      await expectEventually(async () => expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(5), { timeoutMs: 2_000 });
      await counted.limiter.hit(workspace, 'k', 'again');
      await counted.limiter.close();
      expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(6);
      // A request that arrives while the gateway closes takes one admission, and holds none.
      expect((await counted.limiter.hit(workspace, 'k', 'closing')).admitted).toBe(true);
      expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(7);
    });

    test('a window over half full is decided by Redis for every request', async () => {
      const limits = { ...roomy, keyLimit: 100 };
      const counted = open(limits);
      const workspace = randomUUID();
      for (let i = 0; i < 100; i++) expect((await counted.limiter.hit(workspace, 'k', `r${i}`)).admitted).toBe(true);
      const refused = await counted.limiter.hit(workspace, 'k', 'over');
      expect(refused.admitted).toBe(false);
      // Leases of at most a tenth of the limit (10) until the window is half full, then one call each.
      expect(counted.calls).toBe(5 + 50 + 1);
      await counted.limiter.close();
    });

    test('three gateways hammering one key never admit more than the limit, and hand back what they did not use', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 10, max: 300 }),
          fc.integer({ min: 1, max: 64 }),
          fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 50, maxLength: 600 }),
          async (keyLimit, leaseMax, order) => {
            const limits = { ...roomy, keyLimit };
            const gateways: RateLimiter[] = [0, 1, 2].map(() => open(limits, { leaseMax }).limiter);
            const workspace = randomUUID();
            const decisions = await Promise.all(order.map((g, i) => gateways[g]!.hit(workspace, 'k', `r${i}`)));
            const admitted = decisions.filter((d) => d.admitted).length;
            expect(admitted).toBeLessThanOrEqual(keyLimit);
            // What is refused early is at most what the gateways held unused: a lease each, and one
            // being handed back.
            const lease = Math.max(1, Math.min(leaseMax, Math.floor(keyLimit / 10)));
            expect(admitted).toBeGreaterThanOrEqual(Math.min(order.length, keyLimit) - 6 * (lease - 1));
            await Promise.all(gateways.map((g) => g.close()));
            expect(await connections[0]!.zcard(keyWindow(workspace, 'k'))).toBe(admitted);
            // With nothing held any more, the decisions are exact again.
            const after = open(limits, { leaseMax: 1 }).limiter;
            const more = await Promise.all(Array.from({ length: keyLimit }, (_, i) => after.hit(workspace, 'k', `more${i}`)));
            expect(more.filter((d) => d.admitted)).toHaveLength(keyLimit - admitted);
            await after.close();
          },
        ),
        { numRuns: 25 },
      );
    });
  });
} else {
  test.skip('redis limiter contract (Redis unreachable)', () => undefined);
}
