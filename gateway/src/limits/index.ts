import type { Logger, RedisClient } from '@crm/kit';
import { createMemoryLimiter } from './memory-limiter';
import type { RateLimiter, RateLimits } from './rate-limiter';
import { type RedisLimiterOptions, createRedisLimiter } from './redis-limiter';
import { createResilientLimiter } from './resilient-limiter';

export { DEFAULT_LIMITS, type RateDecision, type RateLimiter, type RateLimits, type WindowState } from './rate-limiter';
export { createMemoryLimiter } from './memory-limiter';
export { DEFAULT_LEASE_MAX, type RedisLimiterOptions } from './redis-limiter';
export { rateLimitHeaders } from './rate-limit-headers';

/** The rate limiter: shared through Redis when there is one, with this instance's memory as the fallback. */
export function createRateLimiter(redis: RedisClient | undefined, limits: RateLimits, log: Logger, options?: RedisLimiterOptions): RateLimiter {
  const memory = createMemoryLimiter(limits);
  return redis ? createResilientLimiter(createRedisLimiter(redis, limits, options), memory, log) : memory;
}
export {
  SIGN_IN_LIMITS,
  type SignInAttempt,
  type SignInLimits,
  type SignInThrottle,
  createMemorySignInThrottle,
  createSignInThrottle,
} from './sign-in-throttle';
