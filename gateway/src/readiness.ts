import type * as grpc from '@grpc/grpc-js';
import type { RedisClient } from '@crm/kit';
import { checkHealth } from './upstream';

export interface GatewayReadinessDeps {
  /** The directory's client: the gateway authenticates every request through it. */
  directory: grpc.Client;
  /** Keys the directory resolved recently still authenticate while it does not answer. */
  keyCache: { warm(): boolean };
  /** Shared limiter and idempotency state, when the gateway is configured with REDIS_URL. */
  redis?: RedisClient;
}

/** What `/readyz` reports: `checks` decide readiness; `dependencies` are reported and do not. */
export interface GatewayReadiness {
  checks: Record<string, boolean>;
  dependencies: Record<string, boolean>;
}

/** Whether Redis answers PING (the offline queue is disabled and commands time out in 250 ms: kit/redis.ts). */
export async function redisReachable(redis: RedisClient): Promise<boolean> {
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/**
 * `/readyz` means "this gateway can serve": it can authenticate (the directory answers, or its key
 * cache is warm). The contexts' services are not part of it: one that is down makes its own routes
 * answer 503 `unavailable`, and taking every gateway out of its Service for that would take every
 * other context's routes down with it. Redis is reported, not required: without it each gateway
 * applies the limits and idempotency records in its own memory and keeps answering (gateway
 * README, "When Redis is down"), which a readiness that followed Redis would turn into an outage.
 */
export function gatewayReadiness(deps: GatewayReadinessDeps): () => Promise<GatewayReadiness> {
  return async () => {
    const [directory, redis] = await Promise.all([checkHealth(deps.directory), deps.redis ? redisReachable(deps.redis) : undefined]);
    const dependencies: Record<string, boolean> = {};
    if (redis !== undefined) dependencies.redis = redis;
    return { checks: { authentication: directory || deps.keyCache.warm() }, dependencies };
  };
}
