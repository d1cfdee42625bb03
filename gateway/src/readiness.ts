import type * as grpc from '@grpc/grpc-js';
import type { Redis } from 'ioredis';
import { checkHealth } from './upstream';

export interface GatewayReadinessDeps {
  /** The directory's client: the gateway authenticates every request through it. */
  directory: grpc.Client;
  /** Keys the directory resolved recently still authenticate while it does not answer. */
  keyCache: { warm(): boolean };
  /** Shared limiter and idempotency state, when the gateway is configured with REDIS_URL. */
  redis?: Redis;
}

async function reachable(redis: Redis): Promise<boolean> {
  try {
    // Offline queue disabled and a short command timeout (kit/redis.ts): this answers in milliseconds.
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/**
 * `/readyz` means "this gateway can serve": it can authenticate (the directory answers, or its key
 * cache is warm) and reach Redis when it uses one. The contexts' services are not part of it: one
 * that is down makes its own routes answer 503 `unavailable`, and taking every gateway out of its
 * Service for that would take every other context's routes down with it.
 */
export function gatewayReadiness(deps: GatewayReadinessDeps): () => Promise<Record<string, boolean>> {
  return async () => {
    const [directory, redis] = await Promise.all([checkHealth(deps.directory), deps.redis ? reachable(deps.redis) : Promise.resolve(true)]);
    return {
      authentication: directory || deps.keyCache.warm(),
      ...(deps.redis ? { redis } : {}),
    };
  };
}
