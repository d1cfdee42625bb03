import type { IncomingMessage } from 'node:http';
import { type Logger, type RedisClient, type ServiceClient, createLogger, createRedis, monitorHealth, observeGauges } from '@crm/kit';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { DEFAULT_LIMITS, type RateLimits, createRateLimiter, createSignInThrottle } from './limits';
import type { ClientTimeouts } from './slow-clients';
import { CONTEXTS } from './contexts';
import { connectDirectory, directoryKeyResolver } from './upstream';
import { gatewayReadiness, redisReachable } from './readiness';
import { registerTrackingRoutes } from './routes/tracking.routes';
import { registerSettingsPages } from './pages/pages.routes';
import type { MessagingServiceDefinition } from '@crm/proto';
import { type AuthCacheOptions, DEFAULT_AUTH_CACHE, createKeyCache } from './plugins/auth';
import {
  type IdempotencyStore,
  createMemoryIdempotencyStore,
  createRedisIdempotencyStore,
  createResilientIdempotencyStore,
} from './plugins/idempotency';

export interface GatewayConfig {
  host: string;
  port: number;
  directoryAddr: string;
  /** Address of each context's service, by context name (see contexts.ts). */
  serviceAddrs: Record<string, string>;
  /** Deadline for each call to a service. */
  upstreamDeadlineMs?: number;
  authCache?: AuthCacheOptions;
  /** Shared rate-limit state; without it each gateway limits on its own (all-in-one). */
  redisUrl?: string;
  /** `redisUrl` holds the seed URLs of a Redis Cluster (REDIS_CLUSTER). */
  redisCluster?: boolean;
  limits?: RateLimits;
  /** Most admissions one Redis call may take for this gateway (RATE_LIMIT_LEASE; 1: one call per request). */
  rateLimitLease?: number;
  /** How long clients have to send a request (slow-clients.ts); default DEFAULT_CLIENT_TIMEOUTS. */
  clientTimeouts?: ClientTimeouts;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For gives the client's address (app.ts). */
  trustProxy?: readonly string[];
  logger: Logger | false;
}

export function createIdempotencyStore(redis: RedisClient | undefined, log: Logger): IdempotencyStore {
  const memory = createMemoryIdempotencyStore();
  return redis ? createResilientIdempotencyStore(createRedisIdempotencyStore(redis), memory, log) : memory;
}

export interface RunningGateway {
  readonly url: string;
  readonly app: FastifyInstance;
  /**
   * Stops accepting connections, answers requests that arrive on open ones 503, lets the requests
   * being handled finish for up to `graceMs`, then closes every connection left (idle ones, and
   * requests still arriving, which were never accepted) and disconnects from the services.
   */
  close(graceMs?: number): Promise<void>;
}

function assertReachable(reachable: boolean): void {
  if (!reachable) throw new Error('no answer to PING');
}

/** Longer than the upstream deadline, so a request being handled ends with its own answer. */
const DEFAULT_CLOSE_GRACE_MS = 8_000;

/** Wires the gateway to its services and starts listening; `close()` drains and disconnects. */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const directory = connectDirectory(config.directoryAddr);
  const services = new Map<string, ServiceClient<unknown>>();
  for (const context of CONTEXTS) {
    // The directory's routes go over the connection that resolves keys.
    if (context.name === 'directory') {
      services.set(context.name, directory as ServiceClient<unknown>);
      continue;
    }
    const address = config.serviceAddrs[context.name];
    if (!address) throw new Error(`no address for the ${context.name} service`);
    services.set(context.name, context.connect(address));
  }
  const deadlineMs = config.upstreamDeadlineMs ?? 5_000;
  const limits = config.limits ?? DEFAULT_LIMITS;
  const log = config.logger || createLogger('gateway', 'silent');
  // One connection serves the limiter and the idempotency records.
  const redis = config.redisUrl ? createRedis({ url: config.redisUrl, cluster: config.redisCluster }) : undefined;
  const limiter = createRateLimiter(redis, limits, log, { leaseMax: config.rateLimitLease });
  const signInThrottle = createSignInThrottle(redis, log);
  const keyCache = createKeyCache(directoryKeyResolver(directory, deadlineMs), config.authCache ?? DEFAULT_AUTH_CACHE);
  const app = await buildApp({
    idempotency: createIdempotencyStore(redis, log),
    rateLimit: { limiter, limits },
    logger: config.logger,
    clientTimeouts: config.clientTimeouts,
    trustProxy: config.trustProxy,
    resolveKey: keyCache,
    resources: CONTEXTS.flatMap((context) => context.routes(services.get(context.name)!, deadlineMs)),
    register: (instance) => {
      registerTrackingRoutes(instance, services.get('messaging') as ServiceClient<MessagingServiceDefinition>, deadlineMs);
      registerSettingsPages(instance, { directory, deadlineMs, throttle: signInThrottle });
    },
    ready: gatewayReadiness({ directory: directory.channel, keyCache, redis }),
  });
  // Redis outages are seen on the metric and its alert (CrmRedisUnreachable), not in readiness.
  const redisHealth = redis
    ? monitorHealth(() => undefined, [{ name: 'redis', check: async () => assertReachable(await redisReachable(redis)) }], {
        log,
        messages: {
          down: 'Redis is unreachable: limits and idempotency records are kept in this instance only; still ready',
          up: 'Redis answers again: limits and idempotency records are shared again',
        },
      })
    : undefined;
  const unobserveRedis = redisHealth
    ? observeGauges((observe) => observe('crm.dependency.available', redisHealth.serving ? 1 : 0, { 'crm.context': 'gateway', 'crm.dependency': 'redis' }))
    : () => undefined;
  // Requests whose response has not ended. Only those received in full are waited for at close.
  const open = new Set<IncomingMessage>();
  app.server.on('request', (request: IncomingMessage, response) => {
    open.add(request);
    response.once('close', () => open.delete(request));
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    app,
    async close(graceMs = DEFAULT_CLOSE_GRACE_MS) {
      const deadline = Date.now() + graceMs;
      const closed = app.close();
      // Until the listener is closed (app.close gets there after its hooks), then while a request
      // received in full is still being answered.
      while ((app.server.listening || [...open].some((request) => request.complete)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      app.server.closeAllConnections();
      await closed;
      for (const client of new Set([directory, ...services.values()])) client.close();
      await limiter.close();
      await signInThrottle.close();
      redisHealth?.stop();
      unobserveRedis();
      redis?.disconnect();
    },
  };
}
