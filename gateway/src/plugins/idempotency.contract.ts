import type { IdempotencyStore } from './idempotency';

/**
 * One behaviour for every store of the gateway's Idempotency-Key records. `open()` returns stores
 * that share state (several gateways on one Redis, or one process).
 */
export function runIdempotencyStoreContract(name: string, open: () => Promise<IdempotencyStore[]>): void {
  describe(`idempotency store contract: ${name}`, () => {
    let counter = 0;
    const scope = () => `ws-${name}-${Date.now()}-${counter++}:key`;

    test('exactly one of many concurrent claims wins; the others see it in flight', async () => {
      const stores = await open();
      const s = scope();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % stores.length]!.claim(s, 'fp')));
      expect(results.filter((r) => r === undefined)).toHaveLength(1);
      for (const r of results.filter(Boolean)) expect(r).toEqual({ fingerprint: 'fp', state: 'in_flight' });
    });

    test('a completed record is replayed as it was stored, from any instance', async () => {
      const stores = await open();
      const s = scope();
      expect(await stores[0]!.claim(s, 'fp')).toBeUndefined();
      await stores[0]!.complete(s, { fingerprint: 'fp', state: 'done', status: 201, body: '{"data":{"id":"x"}}' });
      expect(await stores[stores.length - 1]!.claim(s, 'other')).toEqual({ fingerprint: 'fp', state: 'done', status: 201, body: '{"data":{"id":"x"}}' });
    });

    test('a released claim can be claimed again', async () => {
      const [store] = await open();
      const s = scope();
      expect(await store!.claim(s, 'fp')).toBeUndefined();
      await store!.release(s);
      expect(await store!.claim(s, 'fp')).toBeUndefined();
    });
  });
}
