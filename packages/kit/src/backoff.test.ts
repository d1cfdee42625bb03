import fc from 'fast-check';
import { backoffMs } from './backoff';

test('doubles from the base on each attempt, up to the cap', () => {
  expect([1, 2, 3, 4, 5].map((attempt) => backoffMs(attempt, 100, 1_000))).toEqual([100, 200, 400, 800, 1_000]);
});

test('is never below the base nor above the cap, and never shrinks as attempts grow, whatever the attempt', () => {
  fc.assert(
    fc.property(fc.integer({ min: -5, max: 10_000 }), fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 1, max: 3_600_000 }), (attempt, base, extra) => {
      const max = base + extra;
      const wait = backoffMs(attempt, base, max);
      expect(Number.isFinite(wait)).toBe(true);
      expect(wait).toBeGreaterThanOrEqual(base);
      expect(wait).toBeLessThanOrEqual(max);
      expect(backoffMs(attempt + 1, base, max)).toBeGreaterThanOrEqual(wait);
    }),
  );
});
