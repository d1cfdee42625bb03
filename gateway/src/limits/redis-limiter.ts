import type { RedisClient } from '@crm/kit';
import type { RateDecision, RateLimiter, RateLimits } from './rate-limiter';

/**
 * Both windows in one Lua script, on the Redis server's clock (never the gateways'), so any number
 * of gateways share exact limits. Each window is a sorted set of admission times; an entry leaves
 * when it is `window` ms old. The two keys share a hash tag, so the script also runs on a cluster.
 *
 * ARGV[6] asks for up to that many admissions at once (a lease, see createRedisLimiter): granted
 * only while both windows stay at most half full after it, else one. The extra entries are dated
 * ARGV[7] ms ahead (the longest the gateway may hold them), so each leaves the window no earlier
 * than the request that uses it would have: the log may overcount, never undercount.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local kl, kw, wl, ww = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local want, hold = tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - kw)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ww)
local kc = redis.call('ZCARD', KEYS[1])
local wc = redis.call('ZCARD', KEYS[2])
local function newest(key)
  local e = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if e[2] then return tonumber(e[2]) end
  return now
end
if kc < kl and wc < wl then
  local granted = math.max(1, math.min(want, math.floor(kl / 2) - kc, math.floor(wl / 2) - wc))
  local entries = {now, ARGV[5]}
  for i = 1, granted - 1 do
    entries[#entries + 1] = now + hold
    entries[#entries + 1] = ARGV[5] .. ':' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(entries))
  redis.call('PEXPIRE', KEYS[1], kw + hold)
  redis.call('ZADD', KEYS[2], unpack(entries))
  redis.call('PEXPIRE', KEYS[2], ww + hold)
  return {1, kl - kc - granted, kw, wl - wc - granted, ww, 0, now, granted}
end
local wait = 0
if kc >= kl then
  local e = redis.call('ZRANGE', KEYS[1], kc - kl, kc - kl, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + kw - now)
end
if wc >= wl then
  local e = redis.call('ZRANGE', KEYS[2], wc - wl, wc - wl, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + ww - now)
end
return {0, math.max(0, kl - kc), newest(KEYS[1]) + kw - now, math.max(0, wl - wc), newest(KEYS[2]) + ww - now, wait, now, 0}
`;

type ScriptedRedis = RedisClient & {
  crmRateLimit(keyWindow: string, workspaceWindow: string, ...args: (string | number)[]): Promise<number[]>;
};

export interface RedisLimiterOptions {
  /** Key prefix (tests use their own). Default `crm:rl`. */
  prefix?: string;
  /**
   * Most admissions one script call may take for this gateway (a lease): 1 asks Redis for every
   * request. Default DEFAULT_LEASE_MAX; never more than a tenth of either limit.
   */
  leaseMax?: number;
  /** Longest a gateway holds unused admissions before handing them back. Default 500 ms, at most a tenth of a window. */
  leaseMs?: number;
}

export const DEFAULT_LEASE_MAX = 32;
const DEFAULT_LEASE_MS = 500;

/** Admissions this gateway took from Redis and has not used yet, for one key. */
interface Lease {
  /** The script's member name; extra entries are `${member}:1` … `${member}:${granted - 1}`. */
  member: string;
  granted: number;
  used: number;
  /** performance.now() before the script was called: the lease ends `leaseMs` after it. */
  askedAt: number;
  /** The Redis clock when it was granted, and this process's monotonic clock when it arrived. */
  at: number;
  arrivedAt: number;
  keyRemaining: number;
  workspaceRemaining: number;
  /** The key's and the workspace's sorted sets, where unused admissions are handed back. */
  windows: [string, string];
}

/**
 * The shared limiter. Far from both limits a gateway takes several admissions in one round trip
 * (a lease) and hands them out from memory, so a busy key costs one Redis call per lease instead of
 * one per request; near a limit (a window over half full) every request asks Redis, so the
 * decisions there are exact. Admissions in hand count in Redis while held (dated for the longest
 * hold), which keeps every gateway together under the limit; what is unused after `leaseMs` is
 * handed back (`ZREM`), and on close.
 */
export function createRedisLimiter(redis: RedisClient, limits: RateLimits, options: RedisLimiterOptions = {}): RateLimiter {
  if (!('crmRateLimit' in redis)) redis.defineCommand('crmRateLimit', { numberOfKeys: 2, lua: SCRIPT });
  const scripted = redis as ScriptedRedis;
  const prefix = options.prefix ?? 'crm:rl';
  const leaseMax = Math.max(1, Math.min(options.leaseMax ?? DEFAULT_LEASE_MAX, Math.floor(limits.keyLimit / 10), Math.floor(limits.workspaceLimit / 10)));
  const leaseMs = Math.max(1, Math.min(options.leaseMs ?? DEFAULT_LEASE_MS, Math.floor(limits.keyWindowMs / 10), Math.floor(limits.workspaceWindowMs / 10)));
  const windows = (workspaceId: string, keyId: string): [string, string] => {
    const tag = `{${workspaceId}}`;
    return [`${prefix}:${tag}:k:${keyId}`, `${prefix}:${tag}:w`];
  };
  const leases = new Map<string, Lease>();
  /** Once closed, nothing is held any more: a request still arriving asks Redis for itself. */
  let closed = false;
  /** The script call in flight per key: requests arriving meanwhile wait for its lease. */
  const asking = new Map<string, Promise<unknown>>();

  /** Hands back what a lease did not use; the entries would otherwise count until their window ends. */
  const giveBack = (lease: Lease): Promise<unknown> => {
    if (lease.used >= lease.granted) return Promise.resolve();
    const members = Array.from({ length: lease.granted - lease.used }, (_, i) => `${lease.member}:${lease.used + i}`);
    lease.used = lease.granted;
    return redis
      .multi()
      .zrem(lease.windows[0], ...members)
      .zrem(lease.windows[1], ...members)
      .exec()
      .catch(() => undefined); // Redis away: the entries leave with their window.
  };
  const sweep = () => {
    const now = performance.now();
    for (const [name, lease] of leases) {
      if (now - lease.askedAt < leaseMs) continue;
      leases.delete(name);
      void giveBack(lease);
    }
  };
  const sweeper = leaseMax > 1 ? setInterval(sweep, leaseMs) : undefined;
  sweeper?.unref();

  /** An admission from the lease in hand, if it has one left and has not expired. */
  const fromLease = (name: string): RateDecision | undefined => {
    const lease = leases.get(name);
    if (!lease || lease.used >= lease.granted) return undefined;
    const now = performance.now();
    if (now - lease.askedAt >= leaseMs) return undefined;
    lease.used++;
    const left = lease.granted - lease.used;
    return {
      admitted: true,
      at: lease.at + Math.round(now - lease.arrivedAt),
      key: { remaining: lease.keyRemaining + left, resetMs: limits.keyWindowMs },
      workspace: { remaining: lease.workspaceRemaining + left, resetMs: limits.workspaceWindowMs },
      retryAfterMs: 0,
    };
  };

  const ask = async (name: string, workspaceId: string, keyId: string, requestId: string): Promise<RateDecision> => {
    const keys = windows(workspaceId, keyId);
    const member = `${requestId}:${Math.random().toString(36).slice(2)}`;
    const askedAt = performance.now();
    const [admitted, keyRemaining, keyReset, workspaceRemaining, workspaceReset, wait, at, granted] = await scripted.crmRateLimit(
      ...keys,
      limits.keyLimit,
      limits.keyWindowMs,
      limits.workspaceLimit,
      limits.workspaceWindowMs,
      member,
      closed ? 1 : leaseMax,
      leaseMs,
    );
    if (granted! > 1) {
      const previous = leases.get(name);
      if (previous) void giveBack(previous);
      leases.set(name, {
        member,
        granted: granted!,
        used: 1,
        askedAt,
        at: at!,
        arrivedAt: performance.now(),
        keyRemaining: keyRemaining!,
        workspaceRemaining: workspaceRemaining!,
        windows: keys,
      });
    }
    const left = Math.max(0, granted! - 1);
    return {
      admitted: admitted === 1,
      at: at!,
      key: { remaining: keyRemaining! + left, resetMs: Math.max(0, keyReset!) },
      workspace: { remaining: workspaceRemaining! + left, resetMs: Math.max(0, workspaceReset!) },
      retryAfterMs: Math.max(0, wait!),
    };
  };

  const hit = async (workspaceId: string, keyId: string, requestId: string): Promise<RateDecision> => {
    const name = `${workspaceId}\n${keyId}`;
    const leased = fromLease(name);
    if (leased) return leased;
    const pending = asking.get(name);
    if (pending) {
      // Another request is asking for this key: its lease may serve this one too. If it brought a
      // lease that others used up first, this one waits in line again, so a gateway has one call in
      // flight per key (one lease in hand, at most one being handed back). If it brought none (a
      // window over half full), this one asks on its own, without making others wait.
      const before = leases.get(name);
      await pending.catch(() => undefined);
      const brought = leases.get(name) !== before;
      return fromLease(name) ?? (brought ? hit(workspaceId, keyId, requestId) : ask(name, workspaceId, keyId, requestId));
    }
    const decision = ask(name, workspaceId, keyId, requestId);
    if (leaseMax > 1) {
      asking.set(name, decision);
      const settled = () => asking.get(name) === decision && asking.delete(name);
      decision.then(settled, settled);
    }
    return decision;
  };

  return {
    hit,
    async close() {
      // The connection belongs to the caller; what this gateway holds goes back before it does.
      closed = true;
      if (sweeper) clearInterval(sweeper);
      const held = [...leases.values()];
      leases.clear();
      await Promise.all(held.map(giveBack));
    },
  };
}
