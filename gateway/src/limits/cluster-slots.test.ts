/**
 * On a Redis Cluster a script, a MULTI or any one command may only touch keys of one slot. Every
 * call the shared limiter, the sign-in throttle, the idempotency store and the send quota make is
 * recorded here (a fake client, no I/O) and the slot of each key computed as the cluster does
 * (ioredis's own cluster-key-slot): one slot per call, and a workspace's calls all in its slot.
 */
import { type RedisClient, createRedisSendQuota } from '@crm/kit';
import { createRedisIdempotencyStore } from '../plugins/idempotency';
import { createRedisLimiter } from './redis-limiter';
import { createRedisSignInThrottle } from './sign-in-throttle';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const slotOf = require('cluster-key-slot') as (key: string) => number;

/** Each call's keys: a defined script's KEYS, a MULTI's keys together, a plain command's key. */
function recordingRedis(replies: Record<string, unknown>) {
  const calls: { command: string; keys: string[] }[] = [];
  const fake: Record<string, unknown> = {
    defineCommand(name: string, { numberOfKeys }: { numberOfKeys: number }) {
      fake[name] = async (...args: unknown[]) => {
        calls.push({ command: name, keys: args.slice(0, numberOfKeys) as string[] });
        return replies[name];
      };
    },
    multi() {
      const keys: string[] = [];
      const chain = {
        zrem: (key: string) => (keys.push(key), chain),
        del: (key: string) => (keys.push(key), chain),
        exec: async () => (calls.push({ command: 'multi', keys }), []),
      };
      return chain;
    },
    set: async (key: string) => (calls.push({ command: 'set', keys: [key] }), 'OK'),
    get: async (key: string) => (calls.push({ command: 'get', keys: [key] }), null),
    del: async (key: string) => (calls.push({ command: 'del', keys: [key] }), 1),
  };
  return { redis: fake as unknown as RedisClient, calls };
}

const slots = (keys: string[]) => new Set(keys.map(slotOf));
// Workspace ids are UUIDs; these fall in many different slots.
const WORKSPACES = Array.from({ length: 50 }, (_, i) => `0190f0a0-0000-7000-8000-${String(i).padStart(12, '0')}`);

test('the workspaces used here spread over many slots, so one slot per call is not an accident', () => {
  expect(slots(WORKSPACES.map((w) => `{${w}}`)).size).toBeGreaterThan(40);
});

test('the rate limiter: both windows of every script call, and every hand-back, in the workspace slot', async () => {
  const { redis, calls } = recordingRedis({ crmRateLimit: [1, 900, 10_000, 9_000, 60_000, 0, Date.now(), 8] });
  const limiter = createRedisLimiter(redis, { keyLimit: 1_000, keyWindowMs: 10_000, workspaceLimit: 10_000, workspaceWindowMs: 60_000 });
  for (const workspace of WORKSPACES) {
    for (const key of ['key-a', 'key-b']) await limiter.hit(workspace, key, `req-${workspace}-${key}`);
  }
  await limiter.close(); // hands every lease back: one MULTI per lease
  expect(calls.filter((c) => c.command === 'crmRateLimit')).toHaveLength(100);
  expect(calls.filter((c) => c.command === 'multi')).toHaveLength(100);
  for (const call of calls) {
    expect(call.keys).toHaveLength(2);
    expect(slots(call.keys).size).toBe(1);
  }
  for (const call of calls) {
    const workspace = WORKSPACES.find((w) => call.keys[1]!.includes(w))!;
    expect(slotOf(call.keys[0]!)).toBe(slotOf(`{${workspace}}`));
  }
});

test('the sign-in throttle: the account and the address of every attempt, its success and its withdrawal in one slot', async () => {
  const { redis, calls } = recordingRedis({ crmSignInAttempt: [1, 0] });
  const throttle = createRedisSignInThrottle(redis);
  for (let i = 0; i < 50; i++) {
    const attempt = await throttle.attempt(`user${i}@example.com`, `203.0.113.${i}`);
    await (i % 2 ? attempt.succeeded() : attempt.withdraw());
  }
  expect(calls.filter((c) => c.command === 'crmSignInAttempt')).toHaveLength(50);
  expect(calls.filter((c) => c.command === 'multi')).toHaveLength(50);
  for (const call of calls) {
    expect(call.keys).toHaveLength(2);
    expect(slots(call.keys).size).toBe(1);
  }
});

test('idempotency records live in their workspace slot', async () => {
  const { redis, calls } = recordingRedis({});
  const store = createRedisIdempotencyStore(redis);
  for (const workspace of WORKSPACES) {
    const scope = `${workspace}:order-42:with:colons`;
    await store.claim(scope, 'fingerprint');
    await store.complete(scope, { fingerprint: 'fingerprint', state: 'done', status: 201, body: '{}' });
    await store.release(scope);
  }
  expect(calls).toHaveLength(WORKSPACES.length * 3);
  for (const call of calls) {
    const workspace = WORKSPACES.find((w) => call.keys[0]!.includes(w))!;
    expect(slotOf(call.keys[0]!)).toBe(slotOf(`{${workspace}}`));
  }
  // The key after the workspace keeps every character, colons included: two keys stay two records.
  expect(new Set(calls.map((c) => c.keys[0])).size).toBe(WORKSPACES.length);
});

test('the send quota: every reservation and release in its workspace slot', async () => {
  const { redis, calls } = recordingRedis({ crmSendQuota: [1, 10, 0], crmSendQuotaRelease: 1 });
  const quota = createRedisSendQuota(redis, 100);
  for (const workspace of WORKSPACES) {
    await quota.reserve(workspace, 'send-1');
    await quota.reserve(workspace, 'batch-1', 5);
    await quota.release(workspace, 'send-1');
  }
  expect(calls).toHaveLength(WORKSPACES.length * 3);
  for (const [i, call] of calls.entries()) {
    expect(call.keys).toHaveLength(1);
    expect(slotOf(call.keys[0]!)).toBe(slotOf(`{${WORKSPACES[Math.floor(i / 3)]}}`));
  }
});
