import { createMemoryLimiter } from './memory-limiter';
import { maxInAnyWindow, runRateLimiterContract } from './rate-limiter.contract';

runRateLimiterContract('memory', async (limits) => [createMemoryLimiter(limits)]);

test('maxInAnyWindow counts the densest window', () => {
  expect(maxInAnyWindow([0, 100, 200, 1000, 1050], 1000)).toBe(4);
  expect(maxInAnyWindow([0, 100, 1100, 1200], 1000)).toBe(2);
  expect(maxInAnyWindow([0, 999, 1000], 1000)).toBe(2);
});
