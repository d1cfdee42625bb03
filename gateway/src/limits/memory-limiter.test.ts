import fc from 'fast-check';
import { TimeLog, createMemoryLimiter } from './memory-limiter';
import { type RateLimiter, type RateLimits, decide } from './rate-limiter';
import { maxInAnyWindow, runRateLimiterContract } from './rate-limiter.contract';

runRateLimiterContract('memory', async (limits) => [createMemoryLimiter(limits)]);

test('maxInAnyWindow counts the densest window', () => {
  expect(maxInAnyWindow([0, 100, 200, 1000, 1050], 1000)).toBe(4);
  expect(maxInAnyWindow([0, 100, 1100, 1200], 1000)).toBe(2);
  expect(maxInAnyWindow([0, 999, 1000], 1000)).toBe(2);
});

/**
 * The in-memory limiter as it was before TimeLog: both logs copied on every admitted hit. Kept as
 * the reference the log is held to.
 */
function arrayLogLimiter(limits: RateLimits, now: () => number): RateLimiter {
  const logs = new Map<string, number[]>();
  const pruned = (name: string, windowMs: number, at: number) => {
    const log = logs.get(name) ?? [];
    let drop = 0;
    while (drop < log.length && log[drop]! <= at - windowMs) drop++;
    const kept = drop ? log.slice(drop) : log;
    if (kept.length) logs.set(name, kept);
    else logs.delete(name);
    return kept;
  };
  return {
    async hit(workspaceId, keyId) {
      const at = now();
      const keyLog = pruned(`k:${keyId}`, limits.keyWindowMs, at);
      const workspaceLog = pruned(`w:${workspaceId}`, limits.workspaceWindowMs, at);
      const { decision, record } = decide(limits, at, keyLog, workspaceLog);
      if (record) {
        logs.set(`k:${keyId}`, [...keyLog, at]);
        logs.set(`w:${workspaceId}`, [...workspaceLog, at]);
      }
      return decision;
    },
    async close() {
      logs.clear();
    },
  };
}

const limitsArbitrary = fc.record({
  keyLimit: fc.integer({ min: 1, max: 40 }),
  keyWindowMs: fc.integer({ min: 1, max: 2_000 }),
  workspaceLimit: fc.integer({ min: 1, max: 80 }),
  workspaceWindowMs: fc.integer({ min: 1, max: 5_000 }),
});

test('decides as the array log did, for any limits, keys and clock (which may step back)', async () => {
  await fc.assert(
    fc.asyncProperty(
      limitsArbitrary,
      fc.array(fc.record({ step: fc.integer({ min: -100, max: 400 }), key: fc.constantFrom('a', 'b', 'c'), workspace: fc.constantFrom('x', 'y') }), {
        maxLength: 400,
      }),
      async (limits, hits) => {
        let clock = 1_000_000;
        const log = createMemoryLimiter(limits, () => clock);
        const reference = arrayLogLimiter(limits, () => clock);
        for (const hit of hits) {
          clock += hit.step;
          expect(await log.hit(hit.workspace, hit.key, 'r')).toEqual(await reference.hit(hit.workspace, hit.key, 'r'));
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('decides as the array log did over long runs, where the log reclaims its dropped front', async () => {
  // Thousands of admissions per window, as under load: the front is dropped and reclaimed many times,
  // and windows that are multiples of the clock step put entries exactly on their edge.
  const limits = { keyLimit: 1_000_000, keyWindowMs: 999, workspaceLimit: 2_500, workspaceWindowMs: 9_999 };
  let clock = 0;
  const log = createMemoryLimiter(limits, () => clock);
  const reference = arrayLogLimiter(limits, () => clock);
  let refused = 0;
  for (let i = 0; i < 20_000; i++) {
    clock += i % 7 === 0 ? 3 : 0;
    const decision = await log.hit('w', `k${i % 3}`, 'r');
    expect(decision).toEqual(await reference.hit('w', `k${i % 3}`, 'r'));
    if (!decision.admitted) refused++;
  }
  expect(refused).toBeGreaterThan(0);
});

test('a TimeLog reads oldest first, drops through a time, and reclaims its front', () => {
  const log = new TimeLog();
  for (let t = 0; t < 5_000; t++) log.append(t);
  log.dropThrough(2_999);
  expect([log.length, log.at(0), log.at(log.length - 1), log.at(-1), log.at(log.length)]).toEqual([2_000, 3_000, 4_999, undefined, undefined]);
  log.dropThrough(10_000);
  expect([log.length, log.at(0)]).toEqual([0, undefined]);
  log.append(7);
  expect([log.length, log.at(0)]).toEqual([1, 7]);
});
