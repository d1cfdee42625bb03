import { isIP } from 'node:net';
import { type ConfigOf, ConfigError, type ConfigSchema, DEFAULT_PORTS, REDIS_SETTINGS, redisSeeds, setting } from '@crm/kit';
import { DEFAULT_LEASE_MAX, DEFAULT_LIMITS } from './limits';
import type { GatewayConfig } from './server';

/**
 * The variables the gateway reads; their names are contracts (the root README.md, "Running
 * distributed"). The `crm` command reads them with the rest of the process's configuration.
 */
export const GATEWAY_SETTINGS = {
  HOST: setting.string('127.0.0.1'),
  PORT: setting.port(DEFAULT_PORTS.gateway),
  UPSTREAM_TIMEOUT_MS: setting.int(5_000, 1, 600_000),
  // Slow clients (gateway/README.md): a request's headers, and the whole request, must arrive
  // within these; an idle keep-alive connection is closed after the last.
  HEADERS_TIMEOUT_MS: setting.int(10_000, 1_000, 600_000),
  REQUEST_TIMEOUT_MS: setting.int(30_000, 1_000, 3_600_000),
  KEEP_ALIVE_TIMEOUT_MS: setting.int(5_000, 1_000, 600_000),
  // One server, or with REDIS_CLUSTER=true the seed URLs of a Redis Cluster (gateway/README.md, "Rate limits").
  REDIS_URL: REDIS_SETTINGS.REDIS_URL,
  REDIS_CLUSTER: REDIS_SETTINGS.REDIS_CLUSTER,
  RATE_LIMIT_KEY: setting.int(DEFAULT_LIMITS.keyLimit, 1),
  RATE_LIMIT_KEY_WINDOW_MS: setting.int(DEFAULT_LIMITS.keyWindowMs, 1),
  RATE_LIMIT_WORKSPACE: setting.int(DEFAULT_LIMITS.workspaceLimit, 1),
  RATE_LIMIT_WORKSPACE_WINDOW_MS: setting.int(DEFAULT_LIMITS.workspaceWindowMs, 1),
  // Most admissions a gateway takes from Redis in one call while both windows are under half full
  // (gateway/README.md, "Rate limits"); 1 asks Redis for every request.
  RATE_LIMIT_LEASE: setting.int(DEFAULT_LEASE_MAX, 1, 1_000),
  // The reverse proxies in front (comma-separated addresses or CIDR ranges) whose X-Forwarded-For
  // gives the client's address: sign-in is throttled per client address (gateway/README.md).
  TRUST_PROXY: setting.string(''),
} as const satisfies ConfigSchema;

export type GatewaySettings = ConfigOf<typeof GATEWAY_SETTINGS>;

/**
 * The gateway's part of its start configuration, from its settings; the host adds where the
 * services are and the logger. Throws a ConfigError for settings that are each valid but do not
 * agree with each other.
 */
export function gatewayConfigFrom(
  settings: GatewaySettings,
): Omit<GatewayConfig, 'directoryAddr' | 'serviceAddrs' | 'logger' | 'authCache'> {
  const trustProxy = settings.TRUST_PROXY.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of trustProxy) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8,192.168.1.5)`);
    }
  }
  if (settings.HEADERS_TIMEOUT_MS > settings.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS: the headers are part of the request');
  }
  // Several seed URLs name a cluster only when REDIS_CLUSTER says so: refused here, at start.
  if (settings.REDIS_URL) redisSeeds({ url: settings.REDIS_URL, cluster: settings.REDIS_CLUSTER });
  return {
    host: settings.HOST,
    port: settings.PORT,
    upstreamDeadlineMs: settings.UPSTREAM_TIMEOUT_MS,
    redisUrl: settings.REDIS_URL,
    redisCluster: settings.REDIS_CLUSTER,
    limits: {
      keyLimit: settings.RATE_LIMIT_KEY,
      keyWindowMs: settings.RATE_LIMIT_KEY_WINDOW_MS,
      workspaceLimit: settings.RATE_LIMIT_WORKSPACE,
      workspaceWindowMs: settings.RATE_LIMIT_WORKSPACE_WINDOW_MS,
    },
    rateLimitLease: settings.RATE_LIMIT_LEASE,
    trustProxy,
    clientTimeouts: {
      headersMs: settings.HEADERS_TIMEOUT_MS,
      requestMs: settings.REQUEST_TIMEOUT_MS,
      keepAliveMs: settings.KEEP_ALIVE_TIMEOUT_MS,
    },
  };
}
