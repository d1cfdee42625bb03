import { type RateLimiter, type RateLimits, decide } from './rate-limiter';

/**
 * The in-process limiter: all-in-one's default, and the fallback of a gateway that lost Redis. Same
 * algorithm as the Redis script, on this process's clock.
 */
export function createMemoryLimiter(limits: RateLimits, now: () => number = Date.now): RateLimiter {
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
      const keyName = `k:${keyId}`;
      const workspaceName = `w:${workspaceId}`;
      const keyLog = pruned(keyName, limits.keyWindowMs, at);
      const workspaceLog = pruned(workspaceName, limits.workspaceWindowMs, at);
      const { decision, record } = decide(limits, at, keyLog, workspaceLog);
      if (record) {
        logs.set(keyName, [...keyLog, at]);
        logs.set(workspaceName, [...workspaceLog, at]);
      }
      return decision;
    },
    async close() {
      logs.clear();
    },
  };
}
