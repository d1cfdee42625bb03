import fc from 'fast-check';
import { CallBatchesFull, createCallBatches } from './call-batches';

/** A call that answers when told to, recording what each call carried. */
function heldCalls<I>() {
  const calls: { items: I[]; answer: (answers: unknown[]) => void; fail: (error: Error) => void }[] = [];
  const call = (items: I[]) =>
    new Promise<unknown[]>((resolve, reject) => {
      calls.push({ items, answer: resolve, fail: reject });
    });
  return { calls, call };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('call batches', () => {
  test('an item with nothing under way goes at once, alone; what arrives meanwhile goes together in the next call', async () => {
    const { calls, call } = heldCalls<number>();
    const batches = createCallBatches<number, unknown>({ call, limit: 10 });
    const first = batches.add(1);
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => batches.add(n));
    expect(calls).toHaveLength(1);
    calls[0]!.answer(['one']);
    await expect(first).resolves.toBe('one');
    await settle();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.answer(['two', 'three', 'four']);
    await expect(Promise.all(later)).resolves.toEqual(['two', 'three', 'four']);
  });

  test('a call carries at most the limit; a failed call fails only its own items; a short answer fails its call', async () => {
    const { calls, call } = heldCalls<number>();
    const batches = createCallBatches<number, unknown>({ call, limit: 2 });
    const added = Promise.allSettled([0, 1, 2, 3, 4, 5].map((n) => batches.add(n)));
    calls[0]!.answer(['a']);
    await settle();
    expect(calls[1]!.items).toEqual([1, 2]);
    calls[1]!.fail(new Error('messaging is down'));
    await settle();
    expect(calls[2]!.items).toEqual([3, 4]);
    calls[2]!.answer(['d']);
    await settle();
    expect(calls[3]!.items).toEqual([5]);
    calls[3]!.answer(['f']);
    const settled = await added;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'a',
      'messaging is down',
      'messaging is down',
      'a batched call answered 1 items of 2',
      'a batched call answered 1 items of 2',
      'f',
    ]);
  });

  test('past maxWaiting an item is refused at once, and is taken again once the queue drains', async () => {
    const { calls, call } = heldCalls<number>();
    const batches = createCallBatches<number, unknown>({ call, limit: 2, maxWaiting: 3 });
    const sent = batches.add(0);
    const queued = [1, 2, 3].map((n) => batches.add(n));
    await expect(batches.add(4)).rejects.toBeInstanceOf(CallBatchesFull);
    calls[0]!.answer(['a']);
    await expect(sent).resolves.toBe('a');
    await settle();
    expect(calls[1]!.items).toEqual([1, 2]);
    const later = batches.add(5);
    calls[1]!.answer(['b', 'c']);
    await settle();
    expect(calls[2]!.items).toEqual([3, 5]);
    calls[2]!.answer(['d', 'e']);
    await expect(Promise.all([...queued, later])).resolves.toEqual(['b', 'c', 'd', 'e']);
  });

  test('every item gets its own answer, whatever the arrivals, limits and concurrency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 3 }),
        async (gaps, limit, concurrency) => {
          let underWay = 0;
          let most = 0;
          const sizes: number[] = [];
          const batches = createCallBatches<number, number>({
            limit,
            concurrency,
            maxWaiting: Number.POSITIVE_INFINITY,
            call: async (items) => {
              underWay += 1;
              most = Math.max(most, underWay);
              sizes.push(items.length);
              await settle();
              underWay -= 1;
              return items.map((n) => n * 2);
            },
          });
          const answers: Promise<number>[] = [];
          for (const [n, gap] of gaps.entries()) {
            answers.push(batches.add(n));
            for (let i = 0; i < gap; i++) await settle();
          }
          expect(await Promise.all(answers)).toEqual(gaps.map((_, n) => n * 2));
          expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
          expect(most).toBeLessThanOrEqual(concurrency);
          expect(sizes.reduce((a, b) => a + b, 0)).toBe(gaps.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
