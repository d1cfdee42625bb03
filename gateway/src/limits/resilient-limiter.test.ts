import { createLogger, createRedis } from '@crm/kit';
import { createRateLimiter } from './index';
import { createMemoryLimiter } from './memory-limiter';
import type { RateLimiter } from './rate-limiter';
import { createResilientLimiter } from './resilient-limiter';

const limits = { keyLimit: 3, keyWindowMs: 10_000, workspaceLimit: 100, workspaceWindowMs: 60_000 };
const log = createLogger('test', 'silent');

describe('when Redis is down', () => {
  test('the gateway limiter answers at once and enforces the limits per instance', async () => {
    // Nothing listens on port 1: every Redis call fails, as in an outage.
    const redis = createRedis('redis://127.0.0.1:1');
    const limiter = createRateLimiter(redis, limits, log);
    try {
      const started = Date.now();
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await limiter.hit('ws', 'key', `r${i}`));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false, false]);
      expect(decisions[4]!.retryAfterMs).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });

  test('the shared limiter is used again as soon as it answers', async () => {
    let failing = true;
    const shared = createMemoryLimiter(limits);
    const primary: RateLimiter = {
      hit: async (...args) => {
        if (failing) throw new Error('connection refused');
        return shared.hit(...args);
      },
      close: async () => undefined,
    };
    const limiter = createResilientLimiter(primary, createMemoryLimiter(limits), log);
    await limiter.hit('ws', 'key', 'a');
    expect(limiter.degraded()).toBe(true);
    failing = false;
    const decision = await limiter.hit('ws', 'key', 'b');
    expect(limiter.degraded()).toBe(false);
    // The shared state saw only the request made while it answered.
    expect(decision.key.remaining).toBe(2);
  });
});
