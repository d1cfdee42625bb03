import type { Logger } from '@crm/kit';
import type { RateLimiter } from './rate-limiter';

/**
 * Redis first; while Redis cannot answer, this gateway enforces the same limits on its own (the
 * memory limiter), so it keeps answering and every instance still caps a key at the limit it sees.
 * Across N gateways a key may then get up to N× the limit until Redis returns; the first
 * successful Redis call switches back. Degradation is logged at most every 30 s.
 */
export function createResilientLimiter(primary: RateLimiter, fallback: RateLimiter, log: Logger): RateLimiter & { degraded(): boolean } {
  let degraded = false;
  let lastWarning = 0;
  return {
    degraded: () => degraded,
    async hit(workspaceId, keyId, requestId) {
      try {
        const decision = await primary.hit(workspaceId, keyId, requestId);
        if (degraded) log.info('rate limiter: Redis is back, shared limits restored');
        degraded = false;
        return decision;
      } catch (error) {
        degraded = true;
        if (Date.now() - lastWarning > 30_000) {
          lastWarning = Date.now();
          log.warn({ err: error }, 'rate limiter: Redis unavailable, enforcing limits per gateway instance');
        }
        return fallback.hit(workspaceId, keyId, requestId);
      }
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
