import type { SendQuota } from './send-quota';

/**
 * One behaviour for every send quota. `open(limit, windowMs)` returns quotas that share state (several
 * messaging instances on one Redis, or one process), so exactness across instances is part of the
 * contract.
 */
export function runSendQuotaContract(name: string, open: (limit: number, windowMs: number) => Promise<SendQuota[]>): void {
  describe(`send quota contract: ${name}`, () => {
    let counter = 0;
    const workspace = () => `ws-${name}-${Date.now()}-${counter++}`;
    const opened: SendQuota[] = [];
    const openTracked = async (limit: number, windowMs = 60_000) => {
      const quotas = await open(limit, windowMs);
      opened.push(...quotas);
      return quotas;
    };
    afterAll(async () => {
      await Promise.all(opened.map((q) => q.close()));
    });

    test('grants exactly the limit to concurrent reservations from every instance, and says when the next fits', async () => {
      const quotas = await openTracked(7);
      const ws = workspace();
      const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => quotas[i % quotas.length]!.reserve(ws, `send-${i}`)));
      expect(decisions.filter((d) => d.granted)).toHaveLength(7);
      expect(decisions.filter((d) => d.granted).map((d) => d.remaining).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
      for (const refused of decisions.filter((d) => !d.granted)) {
        expect(refused.remaining).toBe(0);
        expect(refused.retryAfterMs).toBeGreaterThan(50_000);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
      }
      // Another workspace has its own quota.
      expect((await quotas[0]!.reserve(workspace(), 'elsewhere')).granted).toBe(true);
    });

    test('a repeated reservation is granted again without taking a second place', async () => {
      const [quota] = await openTracked(2);
      const ws = workspace();
      expect((await quota!.reserve(ws, 'a')).granted).toBe(true);
      expect((await quota!.reserve(ws, 'a')).granted).toBe(true);
      expect((await quota!.reserve(ws, 'b')).granted).toBe(true);
      expect((await quota!.reserve(ws, 'c')).granted).toBe(false);
    });

    test('several places are reserved all or none, and a release gives them all back', async () => {
      const quotas = await openTracked(5);
      const ws = workspace();
      expect((await quotas[0]!.reserve(ws, 'batch', 3)).granted).toBe(true);
      const tooMany = await quotas[0]!.reserve(ws, 'second', 3);
      expect(tooMany).toMatchObject({ granted: false, remaining: 2 });
      expect((await quotas[0]!.reserve(ws, 'small', 2)).granted).toBe(true);
      await quotas[quotas.length - 1]!.release(ws, 'batch');
      expect(await quotas[0]!.reserve(ws, 'second', 3)).toMatchObject({ granted: true, remaining: 0 });
      await quotas[0]!.release(ws, 'unknown');
      await expect(quotas[0]!.reserve(ws, 'bad', 0)).rejects.toThrow(RangeError);
    });

    test('a rolling window: places leave as they age, never more than the limit in any window', async () => {
      const [quota] = await openTracked(3, 400);
      const ws = workspace();
      for (const id of ['x', 'y', 'z']) expect((await quota!.reserve(ws, id)).granted).toBe(true);
      const refused = await quota!.reserve(ws, 'w');
      expect(refused.granted).toBe(false);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(400);
      await new Promise((resolve) => setTimeout(resolve, refused.retryAfterMs + 20));
      expect((await quota!.reserve(ws, 'w')).granted).toBe(true);
    });
  });
}
