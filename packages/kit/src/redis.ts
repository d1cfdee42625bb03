import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { ConfigError, type Setting } from './config';

/**
 * Redis settings for every limiter, quota and idempotency store: never queue commands while
 * disconnected and time out quickly, so an outage costs a request milliseconds (the caller's
 * fallback, or its refusal, answers) instead of hanging.
 */
export const REDIS_OPTIONS = { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 250, connectTimeout: 1_000 };

/**
 * One Redis server or a Redis Cluster: the limiters, the sign-in throttle, the idempotency store
 * and the send quota take either. Their multi-key scripts keep every key of one call under one
 * hash tag (the workspace, or `{signin}`), so each call lands in one slot of a cluster.
 */
export type RedisClient = Redis | Cluster;

const reconnectDelay = (attempt: number) => Math.min(attempt * 250, 2_000);

/**
 * A cluster client that fails as fast as one server's does (REDIS_OPTIONS on every node
 * connection, and no queue while the slot map is not known). Reads go to primaries: a replica may
 * lag, and every read here decides a write (a window's count, an idempotency claim). A redirection
 * (MOVED, ASK, TRYAGAIN, CLUSTERDOWN) is followed at most 4 times, 100 ms apart; a command for a
 * node that cannot be reached fails at once, and the caller's fallback or refusal answers until
 * the promoted replica is in the refreshed map (gateway/README.md, "Redis Cluster").
 */
export const REDIS_CLUSTER_OPTIONS = {
  enableOfflineQueue: false,
  scaleReads: 'master',
  maxRedirections: 4,
  retryDelayOnFailover: 100,
  retryDelayOnClusterDown: 100,
  retryDelayOnTryAgain: 100,
  slotsRefreshTimeout: 1_000,
  clusterRetryStrategy: reconnectDelay,
} as const satisfies ClusterOptions;

/** Where the shared state lives: REDIS_URL with REDIS_CLUSTER, as the services read them. */
export interface RedisTarget {
  /** One `redis://` or `rediss://` URL, or (a cluster) several, comma-separated: the seed nodes. */
  url: string;
  /** The URLs are seeds of a Redis Cluster. */
  cluster?: boolean;
}

const REDIS_PROTOCOLS = ['redis:', 'rediss:'];

/** The settings every process that shares state through Redis declares (the root README.md). */
export const REDIS_SETTINGS = {
  // One URL names one server; with REDIS_CLUSTER=true, one or more comma-separated seed URLs.
  REDIS_URL: {
    describe: 'a redis/rediss URL (comma-separated seed URLs with REDIS_CLUSTER=true); optional',
    read: (raw, name) => {
      if (raw === undefined) return { value: undefined };
      const urls = raw.split(',').map((part) => part.trim());
      // Reported without echoing the value: a URL may carry credentials.
      if (urls.some((url) => !REDIS_PROTOCOLS.includes(URL.parse(url)?.protocol ?? ''))) {
        return { problem: `${name} must be a redis or rediss URL, or comma-separated ones with REDIS_CLUSTER=true` };
      }
      return { value: urls.join(',') };
    },
  } satisfies Setting<string | undefined>,
  REDIS_CLUSTER: {
    describe: 'true or false; default false',
    read: (raw, name) => {
      if (raw === undefined || raw === 'false') return { value: false };
      if (raw === 'true') return { value: true };
      return { problem: `${name} must be true or false, got "${raw.slice(0, 20)}"` };
    },
  } satisfies Setting<boolean>,
} as const;

/** The seed nodes of a target; throws a ConfigError for several URLs that do not name a cluster. */
export function redisSeeds(target: RedisTarget): URL[] {
  const urls = target.url
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const parsed = urls.map((url) => URL.parse(url));
  if (!parsed.length || parsed.some((url) => !url || !REDIS_PROTOCOLS.includes(url.protocol))) {
    throw new ConfigError('REDIS_URL must be a redis or rediss URL, or comma-separated ones with REDIS_CLUSTER=true');
  }
  if (parsed.length > 1 && !target.cluster) {
    throw new ConfigError(`REDIS_URL names ${parsed.length} servers: set REDIS_CLUSTER=true if they are seeds of one Redis Cluster, or give one URL`);
  }
  return parsed as URL[];
}

/**
 * The client for a target: `Redis` for one server, `Cluster` for a cluster (every seed's
 * credentials and TLS are the nodes' too: a cluster's nodes share them).
 */
export function createRedis(target: RedisTarget | string): RedisClient {
  const { url, cluster } = typeof target === 'string' ? { url: target, cluster: false } : target;
  const seeds = redisSeeds({ url, cluster });
  const client = cluster ? createCluster(seeds) : new Redis(url, { ...REDIS_OPTIONS, retryStrategy: reconnectDelay });
  // Connection errors surface through the callers' fallbacks; without a listener they would crash the process.
  client.on('error', () => undefined);
  if (client instanceof Cluster) client.on('node error', () => undefined);
  return client;
}

function createCluster(seeds: URL[]): Cluster {
  const first = seeds[0]!;
  const redisOptions: RedisOptions = {
    ...REDIS_OPTIONS,
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    ...(first.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const nodes = seeds.map((seed) => ({ host: seed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(seed.port || 6379) }));
  return new Cluster(nodes, { ...REDIS_CLUSTER_OPTIONS, redisOptions });
}
