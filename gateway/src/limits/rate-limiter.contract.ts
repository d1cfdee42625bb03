import { expectEventually } from '@crm/kit/testing';
import type { RateDecision, RateLimiter, RateLimits } from './rate-limiter';

/** Admissions never exceed `limit` inside any window of `windowMs`, judged on the limiter's clock. */
export function maxInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/**
 * One behaviour for every limiter. `open(limits)` returns limiters that share state (several
 * gateways on one Redis, or one process), so concurrency across instances is part of the contract.
 */
export function runRateLimiterContract(name: string, open: (limits: RateLimits) => Promise<RateLimiter[]>): void {
  describe(`rate limiter contract: ${name}`, () => {
    let counter = 0;
    const ids = () => ({ workspace: `ws-${name}-${Date.now()}-${counter++}`, key: `key-${counter++}` });
    const limiters: RateLimiter[] = [];
    const openTracked = async (limits: RateLimits) => {
      const opened = await open(limits);
      limiters.push(...opened);
      return opened;
    };
    afterAll(async () => {
      await Promise.all(limiters.map((l) => l.close()));
    });

    test('admits exactly the per-key limit from concurrent instances and reports what is left', async () => {
      const limits = { keyLimit: 5, keyWindowMs: 10_000, workspaceLimit: 100, workspaceWindowMs: 60_000 };
      const instances = await openTracked(limits);
      const { workspace, key } = ids();
      const decisions = await Promise.all(
        Array.from({ length: 30 }, (_, i) => instances[i % instances.length]!.hit(workspace, key, `r${i}`)),
      );
      const admitted = decisions.filter((d) => d.admitted);
      expect(admitted).toHaveLength(5);
      expect(admitted.map((d) => d.key.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
      for (const refused of decisions.filter((d) => !d.admitted)) {
        expect(refused.key.remaining).toBe(0);
        expect(refused.retryAfterMs).toBeGreaterThan(9_000);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
      }
    });

    test('the workspace limit binds across keys, and refused requests are not counted', async () => {
      const limits = { keyLimit: 100, keyWindowMs: 10_000, workspaceLimit: 6, workspaceWindowMs: 60_000 };
      const [limiter] = await openTracked(limits);
      const { workspace } = ids();
      const results: RateDecision[] = [];
      for (let i = 0; i < 10; i++) results.push(await limiter!.hit(workspace, `k${i % 3}`, `r${i}`));
      expect(results.filter((d) => d.admitted)).toHaveLength(6);
      const refused = results[9]!;
      expect(refused.workspace.remaining).toBe(0);
      expect(refused.retryAfterMs).toBeGreaterThan(55_000);
      // Another workspace is unaffected.
      expect((await limiter!.hit(`${workspace}-other`, 'k0', 'r')).admitted).toBe(true);
    });

    test('a sliding window: never more than the limit in any window, and a client that waits is admitted', async () => {
      const limits = { keyLimit: 4, keyWindowMs: 600, workspaceLimit: 1000, workspaceWindowMs: 60_000 };
      const instances = await openTracked(limits);
      const { workspace, key } = ids();
      const admittedAt: number[] = [];
      const deadline = Date.now() + 2_000;
      let i = 0;
      await Promise.all(
        instances.map(async (limiter) => {
          while (Date.now() < deadline) {
            const decision = await limiter.hit(workspace, key, `r${i++}`);
            if (decision.admitted) admittedAt.push(decision.at);
            else await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      );
      expect(admittedAt.length).toBeGreaterThanOrEqual(8);
      expect(maxInAnyWindow(admittedAt, limits.keyWindowMs)).toBeLessThanOrEqual(limits.keyLimit);

      const refused = await expectEventually(async () => {
        const d = await instances[0]!.hit(workspace, key, 'probe');
        expect(d.admitted).toBe(false);
        return d;
      });
      await new Promise((resolve) => setTimeout(resolve, refused.retryAfterMs + 5));
      expect((await instances[0]!.hit(workspace, key, 'after-wait')).admitted).toBe(true);
    });
  });
}
