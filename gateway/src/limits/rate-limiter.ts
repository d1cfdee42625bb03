/**
 * Rate limits (gateway/README.md, "Rate limits"): per key, N requests in any sliding window of W
 * ms; per workspace, M requests in any window of V ms. Both are checked and recorded in one atomic
 * step, and only admitted requests are recorded, so refused requests never extend a client's wait.
 */
export interface RateLimits {
  keyLimit: number;
  keyWindowMs: number;
  workspaceLimit: number;
  workspaceWindowMs: number;
}

export const DEFAULT_LIMITS: RateLimits = { keyLimit: 20, keyWindowMs: 10_000, workspaceLimit: 1_000, workspaceWindowMs: 60_000 };

export interface WindowState {
  /** Requests left in this window after this decision. */
  remaining: number;
  /** Milliseconds until every request now in the window has left it. */
  resetMs: number;
}

export interface RateDecision {
  admitted: boolean;
  /** The limiter's clock at the decision (ms since the epoch): Redis's, or this process's. */
  at: number;
  key: WindowState;
  workspace: WindowState;
  /** When refused: milliseconds until the next request would be admitted. */
  retryAfterMs: number;
}

/** The narrow interface: one implementation on Redis, one in memory, one contract suite. */
export interface RateLimiter {
  hit(workspaceId: string, keyId: string, requestId: string): Promise<RateDecision>;
  close(): Promise<void>;
}

/** Admitted timestamps inside one window, oldest first: an array, or the memory limiter's log. */
export interface WindowLog {
  readonly length: number;
  /** The timestamp at `index` (0 is the oldest), for 0 ≤ index < length. */
  at(index: number): number | undefined;
}

/** Sliding-window log over timestamps already pruned to the window; shared by the memory limiter. */
export function decide(
  limits: RateLimits,
  now: number,
  keyLog: WindowLog,
  workspaceLog: WindowLog,
): { decision: RateDecision; record: boolean } {
  const keyFull = keyLog.length >= limits.keyLimit;
  const workspaceFull = workspaceLog.length >= limits.workspaceLimit;
  const admitted = !keyFull && !workspaceFull;
  const keyCount = keyLog.length + (admitted ? 1 : 0);
  const workspaceCount = workspaceLog.length + (admitted ? 1 : 0);
  const newest = (log: WindowLog) => (admitted ? now : (log.at(log.length - 1) ?? now));
  // To admit one more, the entry at (count - limit) must leave: it is older than every entry that stays.
  const waitFor = (log: WindowLog, limit: number, window: number) =>
    log.length >= limit ? log.at(log.length - limit)! + window - now : 0;
  return {
    record: admitted,
    decision: {
      admitted,
      at: now,
      key: { remaining: Math.max(0, limits.keyLimit - keyCount), resetMs: Math.max(0, newest(keyLog) + limits.keyWindowMs - now) },
      workspace: {
        remaining: Math.max(0, limits.workspaceLimit - workspaceCount),
        resetMs: Math.max(0, newest(workspaceLog) + limits.workspaceWindowMs - now),
      },
      retryAfterMs: admitted
        ? 0
        : Math.max(waitFor(keyLog, limits.keyLimit, limits.keyWindowMs), waitFor(workspaceLog, limits.workspaceLimit, limits.workspaceWindowMs)),
    },
  };
}
