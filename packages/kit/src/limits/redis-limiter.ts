import type { Redis } from 'ioredis';
import type { RateLimiter, RateLimits } from './rate-limiter';

/**
 * Both windows in one Lua script, on the Redis server's clock (never the gateways'), so any number
 * of gateways share exact limits. Each window is a sorted set of admission times; an entry leaves
 * when it is `window` ms old. The two keys share a hash tag, so the script also runs on a cluster.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local kl, kw, wl, ww = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
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
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], kw)
  redis.call('ZADD', KEYS[2], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ww)
  return {1, kl - kc - 1, kw, wl - wc - 1, ww, 0, now}
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
return {0, math.max(0, kl - kc), newest(KEYS[1]) + kw - now, math.max(0, wl - wc), newest(KEYS[2]) + ww - now, wait, now}
`;

interface ScriptedRedis extends Redis {
  crmRateLimit(keyWindow: string, workspaceWindow: string, ...args: (string | number)[]): Promise<number[]>;
}

export function createRedisLimiter(redis: Redis, limits: RateLimits, prefix = 'crm:rl'): RateLimiter {
  if (!('crmRateLimit' in redis)) redis.defineCommand('crmRateLimit', { numberOfKeys: 2, lua: SCRIPT });
  const scripted = redis as ScriptedRedis;
  return {
    async hit(workspaceId, keyId, requestId) {
      const tag = `{${workspaceId}}`;
      const [admitted, keyRemaining, keyReset, workspaceRemaining, workspaceReset, wait, at] = await scripted.crmRateLimit(
        `${prefix}:${tag}:k:${keyId}`,
        `${prefix}:${tag}:w`,
        limits.keyLimit,
        limits.keyWindowMs,
        limits.workspaceLimit,
        limits.workspaceWindowMs,
        `${requestId}:${Math.random().toString(36).slice(2)}`,
      );
      return {
        admitted: admitted === 1,
        at: at!,
        key: { remaining: keyRemaining!, resetMs: Math.max(0, keyReset!) },
        workspace: { remaining: workspaceRemaining!, resetMs: Math.max(0, workspaceReset!) },
        retryAfterMs: Math.max(0, wait!),
      };
    },
    async close() {
      // The connection belongs to the caller.
    },
  };
}
