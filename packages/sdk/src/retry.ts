/**
 * When to try a request again, and how long to wait first. Pure but for the clock and randomness,
 * both injectable for tests.
 */

/** Answers worth another attempt: the server said so (`Retry-After`), nothing was done. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /** First backoff when the server gave no `Retry-After` (default 500 ms), doubled per retry. */
  baseDelayMs: number;
  /** Longest backoff without `Retry-After` (default 8 s). */
  maxBackoffMs: number;
  /**
   * Longest `Retry-After` worth waiting for (default 60 s): a longer one is thrown at once (as a
   * `CrmRateLimitError` carrying `retry_after`), since the caller may prefer to schedule the work.
   */
  maxRetryAfterMs: number;
  /** Added to a `Retry-After` wait: a random part of up to this (default 1 s), so waiters spread out. */
  retryAfterJitterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxBackoffMs: 8_000,
  maxRetryAfterMs: 60_000,
  retryAfterJitterMs: 1_000,
};

/**
 * The wait before retry number `retry` (0-based): the server's `Retry-After` plus a random part,
 * else exponential backoff with full jitter (a random wait up to the doubled delay, capped).
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000 + random() * policy.retryAfterJitterMs;
  return random() * Math.min(policy.maxBackoffMs, policy.baseDelayMs * 2 ** retry);
}

/**
 * A retry budget shared by every call of one client, as gRPC's retry throttling defines it: a
 * bucket of `maxTokens` (default 10) tokens; each failure that could be retried takes one, each
 * success gives back `tokenRatio` (default 0.1); retries are made only while more than half the
 * bucket is left. So a client whose calls mostly fail (a service down, a key throttled for long)
 * stops multiplying its traffic, while occasional failures are always retried.
 */
export interface RetryBudget {
  /** Records a retryable failure; true when a retry may be made. */
  onFailure(): boolean;
  onSuccess(): void;
  /** Tokens left, for tests and metrics. */
  tokens(): number;
}

export interface RetryBudgetOptions {
  maxTokens?: number;
  tokenRatio?: number;
}

export function createRetryBudget({ maxTokens = 10, tokenRatio = 0.1 }: RetryBudgetOptions = {}): RetryBudget {
  let tokens = maxTokens;
  return {
    onFailure() {
      tokens = Math.max(0, tokens - 1);
      return tokens > maxTokens / 2;
    },
    onSuccess() {
      tokens = Math.min(maxTokens, tokens + tokenRatio);
    },
    tokens: () => tokens,
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
