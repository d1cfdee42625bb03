import fc from 'fast-check';
import { createLimiter, mapLimit } from './map-limit';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('mapLimit and createLimiter', () => {
  test('mapLimit keeps the order of the items and never runs more than the limit at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), async (delays, limit) => {
        let running = 0;
        let most = 0;
        const out = await mapLimit(delays, limit, async (delay) => {
          most = Math.max(most, ++running);
          for (let i = 0; i < delay; i++) await tick();
          running--;
          return delay * 2;
        });
        expect(out).toEqual(delays.map((d) => d * 2));
        expect(most).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 50 },
    );
  });

  test('a limiter runs every function once, at most `limit` at a time, and passes failures through', async () => {
    const limit = createLimiter(3);
    let running = 0;
    let most = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        limit(async () => {
          most = Math.max(most, ++running);
          await tick();
          running--;
          if (i % 7 === 0) throw new Error(`failed ${i}`);
          return i;
        }),
      ),
    );
    expect(most).toBe(3);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(3);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : -1))).toEqual(Array.from({ length: 20 }, (_, i) => (i % 7 === 0 ? -1 : i)));
    // A failure frees its place: more can still run.
    await expect(limit(async () => 'after')).resolves.toBe('after');
  });
});
