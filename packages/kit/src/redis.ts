import { Redis } from 'ioredis';

/**
 * Redis settings for every limiter, quota and idempotency store: never queue commands while
 * disconnected and time out quickly, so an outage costs a request milliseconds (the caller's
 * fallback, or its refusal, answers) instead of hanging.
 */
export const REDIS_OPTIONS = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 250, connectTimeout: 1_000 };

export function createRedis(url: string): Redis {
  const redis = new Redis(url, { ...REDIS_OPTIONS, retryStrategy: (attempt: number) => Math.min(attempt * 250, 2_000) });
  // Connection errors surface through the callers' fallbacks; without a listener they would crash the process.
  redis.on('error', () => undefined);
  return redis;
}
