import { createHash, randomUUID } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Logger, RedisClient } from '@crm/kit';

/**
 * Failed sign-ins (gateway/README.md, "The settings pages"): at most `accountLimit` per account and
 * `addressLimit` per client address in any window of `windowMs`; past either, sign-in is refused
 * (429) until the oldest failure that counts leaves the window. Unknown and known emails count
 * alike, so a refusal says nothing about whether an account exists.
 */
export interface SignInLimits {
  accountLimit: number;
  addressLimit: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { accountLimit: 5, addressLimit: 20, windowMs: 15 * 60_000 };

export interface SignInAttempt {
  admitted: boolean;
  /** When refused: milliseconds until an attempt would be admitted. */
  retryAfterMs: number;
  /**
   * The password was right: the attempt is not a failure, and the account's earlier failures are
   * forgotten (the address's are not, or one known password would reset a guesser's count).
   */
  succeeded(): Promise<void>;
  /** The attempt could not be judged (the directory did not answer): it does not count. */
  withdraw(): Promise<void>;
}

/**
 * The narrow interface: one implementation on Redis, one in memory. An admitted attempt counts as
 * a failure from the moment it is admitted, in the same atomic step as the check, so concurrent
 * guesses cannot all pass the check before any failure is recorded; `succeeded` takes it back.
 */
export interface SignInThrottle {
  attempt(email: string, address: string): Promise<SignInAttempt>;
  close(): Promise<void>;
}

/** An email as the account it names: case and surrounding space do not make another account. */
export const accountName = (email: string): string => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

/**
 * A client address as the unit it is counted in: an IPv4 address (IPv4-mapped IPv6 too) by
 * itself, an IPv6 address by its /64, which one subscriber usually holds whole.
 */
export function addressName(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const bare = address.toLowerCase().replace(/%.*$/, '');
  const [head = '', tail = ''] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A trailing dotted IPv4 part stands for two groups.
  const width = (parts: string[]) => parts.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = bare.includes('::') ? [...left, ...Array(Math.max(0, 8 - width(left) - width(right))).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const refused = (retryAfterMs: number): SignInAttempt => ({
  admitted: false,
  retryAfterMs,
  succeeded: async () => undefined,
  withdraw: async () => undefined,
});

interface Failure {
  at: number;
  id: string;
}

/**
 * This process's throttle: all-in-one's, and the fallback of a gateway that lost Redis. Keeps at
 * most `maxNames` accounts and addresses; past that the least recently failed is forgotten.
 */
export function createMemorySignInThrottle(limits: SignInLimits = SIGN_IN_LIMITS, now: () => number = Date.now, maxNames = 100_000): SignInThrottle {
  const logs = new Map<string, Failure[]>();
  const pruned = (name: string, at: number) => (logs.get(name) ?? []).filter((f) => f.at > at - limits.windowMs);
  const keep = (name: string, log: Failure[]) => {
    logs.delete(name);
    if (log.length) logs.set(name, log);
    while (logs.size > maxNames) logs.delete(logs.keys().next().value!);
  };
  const waitFor = (log: Failure[], limit: number, at: number) => (log.length >= limit ? log[log.length - limit]!.at + limits.windowMs - at : 0);
  return {
    async attempt(email, address) {
      const at = now();
      const account = `a:${accountName(email)}`;
      const client = `ip:${addressName(address)}`;
      const accountLog = pruned(account, at);
      const addressLog = pruned(client, at);
      if (accountLog.length >= limits.accountLimit || addressLog.length >= limits.addressLimit) {
        keep(account, accountLog);
        keep(client, addressLog);
        return refused(Math.max(waitFor(accountLog, limits.accountLimit, at), waitFor(addressLog, limits.addressLimit, at)));
      }
      const failure = { at, id: randomUUID() };
      keep(account, [...accountLog, failure]);
      keep(client, [...addressLog, failure]);
      const forget = (name: string) => {
        const log = logs.get(name);
        if (log) keep(name, log.filter((f) => f.id !== failure.id));
      };
      return {
        admitted: true,
        retryAfterMs: 0,
        async succeeded() {
          logs.delete(account);
          forget(client);
        },
        async withdraw() {
          forget(account);
          forget(client);
        },
      };
    },
    async close() {
      logs.clear();
    },
  };
}

/**
 * Both windows in one script on the Redis server's clock, so every gateway shares exact counts.
 * Each window is a sorted set of failure times; an entry leaves when it is `window` ms old. Every
 * key carries the `{signin}` hash tag so the script also runs on a cluster: sign-ins are few, one
 * slot holds them all.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local al, bl, w = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - w)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - w)
local ac = redis.call('ZCARD', KEYS[1])
local bc = redis.call('ZCARD', KEYS[2])
if ac < al and bc < bl then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], w)
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[2], w)
  return {1, 0}
end
local wait = 0
if ac >= al then
  local e = redis.call('ZRANGE', KEYS[1], ac - al, ac - al, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + w - now)
end
if bc >= bl then
  local e = redis.call('ZRANGE', KEYS[2], bc - bl, bc - bl, 'WITHSCORES')
  wait = math.max(wait, tonumber(e[2]) + w - now)
end
return {0, wait}
`;

type ScriptedRedis = RedisClient & {
  crmSignInAttempt(account: string, address: string, ...args: (string | number)[]): Promise<number[]>;
};

/** The shared throttle. `prefix` keeps tests apart (default `crm:signin`). */
export function createRedisSignInThrottle(redis: RedisClient, limits: SignInLimits = SIGN_IN_LIMITS, prefix = 'crm:signin'): SignInThrottle {
  if (!('crmSignInAttempt' in redis)) redis.defineCommand('crmSignInAttempt', { numberOfKeys: 2, lua: SCRIPT });
  const scripted = redis as ScriptedRedis;
  return {
    async attempt(email, address) {
      const account = `${prefix}:{signin}:a:${accountName(email)}`;
      const client = `${prefix}:{signin}:ip:${addressName(address)}`;
      const member = randomUUID();
      const [admitted, wait] = await scripted.crmSignInAttempt(account, client, limits.accountLimit, limits.addressLimit, limits.windowMs, member);
      if (admitted !== 1) return refused(Math.max(1, wait!));
      return {
        admitted: true,
        retryAfterMs: 0,
        // Redis away: the failure stays counted until its window ends, which errs on the safe side.
        async succeeded() {
          await redis.multi().del(account).zrem(client, member).exec().catch(() => undefined);
        },
        async withdraw() {
          await redis.multi().zrem(account, member).zrem(client, member).exec().catch(() => undefined);
        },
      };
    },
    // The connection belongs to the caller.
    async close() {},
  };
}

/**
 * Redis first; while Redis cannot answer, this gateway counts on its own (the memory throttle), so
 * sign-in keeps working and each instance still refuses past the limits it sees. Degradation is
 * logged at most every 30 s.
 */
export function createResilientSignInThrottle(primary: SignInThrottle, fallback: SignInThrottle, log: Logger): SignInThrottle & { degraded(): boolean } {
  let degraded = false;
  let lastWarning = 0;
  return {
    degraded: () => degraded,
    async attempt(email, address) {
      try {
        const attempt = await primary.attempt(email, address);
        if (degraded) log.info('sign-in throttle: Redis is back, shared counts restored');
        degraded = false;
        return attempt;
      } catch (error) {
        degraded = true;
        if (Date.now() - lastWarning > 30_000) {
          lastWarning = Date.now();
          log.warn({ err: error }, 'sign-in throttle: Redis unavailable, counting failures per gateway instance');
        }
        return fallback.attempt(email, address);
      }
    },
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}

/** The sign-in throttle: shared through Redis when there is one, with this instance's memory as the fallback. */
export function createSignInThrottle(redis: RedisClient | undefined, log: Logger, limits: SignInLimits = SIGN_IN_LIMITS): SignInThrottle {
  const memory = createMemorySignInThrottle(limits);
  return redis ? createResilientSignInThrottle(createRedisSignInThrottle(redis, limits), memory, log) : memory;
}
