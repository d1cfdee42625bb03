import type { RedisClient } from '../redis';

/**
 * The send quota (gateway/README.md, Messaging, "Send quota"): at most `limit` emails per workspace
 * in any rolling hour, whoever sends (the API or the flow engine). A send reserves its place when
 * it is queued; the queueing transaction gives it back if it fails. Reservations are named (the
 * send's id), so a retry of the same reservation is granted again without counting twice.
 *
 * Two implementations pass one contract suite: Redis (exact across any number of instances, on
 * the Redis clock) and memory (all-in-one). There is deliberately no fallback from Redis to
 * memory: a per-instance quota would let N instances send N× the quota, and the quota protects
 * the workspace's sender reputation, so a reservation fails (the caller answers 503) while Redis
 * is down.
 */
export interface SendQuotaDecision {
  granted: boolean;
  /** Sends left in the window after this decision. */
  remaining: number;
  /** When refused: milliseconds until `count` more sends would be granted. */
  retryAfterMs: number;
}

export interface SendQuota {
  readonly limit: number;
  /**
   * Reserves `count` places (default 1) for the reservation `id`, all or none. Granting a
   * reservation that already holds its places changes nothing.
   */
  reserve(workspaceId: string, id: string, count?: number): Promise<SendQuotaDecision>;
  /** Gives the reservation's places back (its queueing failed). Unknown ids are ignored. */
  release(workspaceId: string, id: string): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_SEND_QUOTA_PER_HOUR = 5_000;
export const SEND_QUOTA_WINDOW_MS = 60 * 60 * 1000;

/** Places a reservation holds: `id` for one, `id#0`..`id#n-1` for several. */
const members = (id: string, count: number): string[] => (count === 1 ? [id] : Array.from({ length: count }, (_, i) => `${id}#${i}`));

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`a reservation holds a positive whole number of sends, got ${count}`);
}

export function createMemorySendQuota(limit = DEFAULT_SEND_QUOTA_PER_HOUR, windowMs = SEND_QUOTA_WINDOW_MS, now: () => number = Date.now): SendQuota {
  /** Per workspace: place → when it was reserved, in reservation order. */
  const logs = new Map<string, Map<string, number>>();
  const prune = (workspaceId: string, at: number): Map<string, number> => {
    const log = logs.get(workspaceId) ?? new Map<string, number>();
    for (const [place, time] of log) {
      if (time > at - windowMs) break;
      log.delete(place);
    }
    logs.set(workspaceId, log);
    return log;
  };
  return {
    limit,
    async reserve(workspaceId, id, count = 1) {
      checkCount(count);
      const at = now();
      const log = prune(workspaceId, at);
      const places = members(id, count);
      if (log.has(places[0]!)) return { granted: true, remaining: Math.max(0, limit - log.size), retryAfterMs: 0 };
      if (log.size + count > limit) {
        // The place that must leave for `count` more to fit is the (size + count - limit)-th oldest.
        const mustLeave = [...log.values()][log.size + count - limit - 1];
        const retryAfterMs = mustLeave === undefined ? windowMs : Math.max(1, mustLeave + windowMs - at);
        return { granted: false, remaining: Math.max(0, limit - log.size), retryAfterMs };
      }
      for (const place of places) log.set(place, at);
      return { granted: true, remaining: limit - log.size, retryAfterMs: 0 };
    },
    async release(workspaceId, id) {
      const log = logs.get(workspaceId);
      if (!log) return;
      if (!log.delete(id)) for (let i = 0; log.delete(`${id}#${i}`); i++);
    },
    async close() {
      logs.clear();
    },
  };
}

/**
 * One Lua script, on the Redis server's clock: prune, check, add, all or nothing. Each workspace's
 * window is a sorted set of places scored by reservation time.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, window, count = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local size = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  return {1, math.max(0, limit - size), 0}
end
if size + count > limit then
  local e = redis.call('ZRANGE', KEYS[1], size + count - limit - 1, size + count - limit - 1, 'WITHSCORES')
  local wait = window
  if e[2] then wait = math.max(1, tonumber(e[2]) + window - now) end
  return {0, math.max(0, limit - size), wait}
end
for i = 4, #ARGV do redis.call('ZADD', KEYS[1], now, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], window)
return {1, limit - size - count, 0}
`;

/** Removes a reservation's places: `id`, or `id#0`, `id#1`, ... */
const RELEASE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then return 1 end
local i = 0
while redis.call('ZREM', KEYS[1], ARGV[1] .. '#' .. i) == 1 do i = i + 1 end
return i
`;

type QuotaRedis = RedisClient & {
  crmSendQuota(key: string, ...args: (string | number)[]): Promise<number[]>;
  crmSendQuotaRelease(key: string, id: string): Promise<number>;
};

export function createRedisSendQuota(redis: RedisClient, limit = DEFAULT_SEND_QUOTA_PER_HOUR, windowMs = SEND_QUOTA_WINDOW_MS, prefix = 'crm:quota'): SendQuota {
  if (!('crmSendQuota' in redis)) {
    redis.defineCommand('crmSendQuota', { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand('crmSendQuotaRelease', { numberOfKeys: 1, lua: RELEASE });
  }
  const scripted = redis as QuotaRedis;
  const keyOf = (workspaceId: string) => `${prefix}:{${workspaceId}}:send`;
  return {
    limit,
    async reserve(workspaceId, id, count = 1) {
      checkCount(count);
      const [granted, remaining, wait] = await scripted.crmSendQuota(keyOf(workspaceId), limit, windowMs, count, ...members(id, count));
      return { granted: granted === 1, remaining: remaining!, retryAfterMs: wait! };
    },
    async release(workspaceId, id) {
      await scripted.crmSendQuotaRelease(keyOf(workspaceId), id);
    },
    async close() {
      // The connection belongs to the caller.
    },
  };
}
