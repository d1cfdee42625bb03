import { randomUUID } from 'node:crypto';
import { createLogger, createRedis } from '@crm/kit';
import { TEST_REDIS_URL, serviceAvailable } from '@crm/kit/testing';
import { Redis } from 'ioredis';
import {
  type SignInLimits,
  type SignInThrottle,
  addressName,
  createMemorySignInThrottle,
  createRedisSignInThrottle,
  createResilientSignInThrottle,
  createSignInThrottle,
} from './sign-in-throttle';

const log = createLogger('test', 'silent');

/** A throttle under test, and how to let time pass for it (a clock of its own, or real time). */
interface Subject {
  throttle: SignInThrottle;
  pass(ms: number): Promise<void>;
}

/** What every implementation must do; run against memory and against Redis. */
function runSignInThrottleContract(name: string, open: (limits: SignInLimits) => Promise<Subject>, windowMs: number) {
  const limits: SignInLimits = { accountLimit: 5, addressLimit: 20, windowMs };
  const email = () => `${randomUUID()}@example.com`;
  let n = 0;
  const address = () => `198.51.100.${++n % 250}`;

  describe(`sign-in throttle contract: ${name}`, () => {
    test('the sixth failure of an account within the window is refused, with how long to wait', async () => {
      const { throttle } = await open(limits);
      const account = email();
      const from = address();
      for (let i = 0; i < 5; i++) expect((await throttle.attempt(account, from)).admitted).toBe(true);
      const sixth = await throttle.attempt(account, from);
      expect(sixth.admitted).toBe(false);
      expect(sixth.retryAfterMs).toBeGreaterThan(0);
      expect(sixth.retryAfterMs).toBeLessThanOrEqual(windowMs);
      // From another address too: the account is what is protected.
      expect((await throttle.attempt(account, address())).admitted).toBe(false);
      // Another account from the same address is still admitted.
      expect((await throttle.attempt(email(), from)).admitted).toBe(true);
    });

    test('the twenty-first failure from one address is refused, whichever account it names', async () => {
      const { throttle } = await open(limits);
      const from = address();
      for (let i = 0; i < 20; i++) expect((await throttle.attempt(email(), from)).admitted).toBe(true);
      const refused = await throttle.attempt(email(), from);
      expect(refused.admitted).toBe(false);
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect((await throttle.attempt(email(), address())).admitted).toBe(true);
    });

    test('a success is not a failure, and forgets the account\'s earlier failures', async () => {
      const { throttle } = await open(limits);
      const account = email();
      const from = address();
      for (let i = 0; i < 4; i++) await throttle.attempt(account, from);
      await (await throttle.attempt(account, from)).succeeded();
      for (let i = 0; i < 5; i++) expect((await throttle.attempt(account, from)).admitted).toBe(true);
      expect((await throttle.attempt(account, from)).admitted).toBe(false);
      // The address counted the nine failures, not the success: eleven more are admitted.
      for (let i = 0; i < 11; i++) expect((await throttle.attempt(email(), from)).admitted).toBe(true);
      expect((await throttle.attempt(email(), from)).admitted).toBe(false);
    });

    test('an attempt that could not be judged is withdrawn, and counts nowhere', async () => {
      const { throttle } = await open(limits);
      const account = email();
      const from = address();
      for (let i = 0; i < 10; i++) await (await throttle.attempt(account, from)).withdraw();
      for (let i = 0; i < 5; i++) expect((await throttle.attempt(account, from)).admitted).toBe(true);
      expect((await throttle.attempt(account, from)).admitted).toBe(false);
      for (let i = 0; i < 15; i++) expect((await throttle.attempt(email(), from)).admitted).toBe(true);
      expect((await throttle.attempt(email(), from)).admitted).toBe(false);
    });

    test('case and surrounding space do not make another account', async () => {
      const { throttle } = await open(limits);
      const account = email();
      for (const variant of [account, account.toUpperCase(), ` ${account}`, `${account}\t`, account]) await throttle.attempt(variant, address());
      expect((await throttle.attempt(account, address())).admitted).toBe(false);
    });

    test('concurrent guesses at one account: exactly the limit is admitted', async () => {
      const { throttle } = await open(limits);
      const account = email();
      const attempts = await Promise.all(Array.from({ length: 30 }, () => throttle.attempt(account, address())));
      expect(attempts.filter((a) => a.admitted)).toHaveLength(5);
    });

    test('failures leave the window when it has passed', async () => {
      const subject = await open(limits);
      const account = email();
      const from = address();
      for (let i = 0; i < 5; i++) await subject.throttle.attempt(account, from);
      const refused = await subject.throttle.attempt(account, from);
      expect(refused.admitted).toBe(false);
      await subject.pass(refused.retryAfterMs + 20);
      expect((await subject.throttle.attempt(account, from)).admitted).toBe(true);
    });
  });
}

runSignInThrottleContract(
  'memory',
  async (limits) => {
    let now = 1_000_000;
    return {
      throttle: createMemorySignInThrottle(limits, () => now),
      pass: async (ms) => {
        now += ms;
      },
    };
  },
  15 * 60_000,
);

if (serviceAvailable('Redis', TEST_REDIS_URL)) {
  const prefix = `crm:test:signin:${process.pid}:${randomUUID()}`;
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  // Real time on the Redis server's clock: a window short enough to wait out.
  runSignInThrottleContract(
    'redis',
    async (limits) => {
      const redis = new Redis(TEST_REDIS_URL);
      connections.push(redis);
      return { throttle: createRedisSignInThrottle(redis, limits, prefix), pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
    },
    1_500,
  );

  test('two gateways on one Redis share the counts', async () => {
    const limits: SignInLimits = { accountLimit: 5, addressLimit: 20, windowMs: 60_000 };
    const [a, b] = [new Redis(TEST_REDIS_URL), new Redis(TEST_REDIS_URL)];
    connections.push(a, b);
    const gateways = [createRedisSignInThrottle(a, limits, prefix), createRedisSignInThrottle(b, limits, prefix)];
    const account = `${randomUUID()}@example.com`;
    const admitted = [];
    for (let i = 0; i < 8; i++) admitted.push((await gateways[i % 2]!.attempt(account, '203.0.113.9')).admitted);
    expect(admitted).toEqual([true, true, true, true, true, false, false, false]);
  });
} else {
  test.skip('redis sign-in throttle contract (Redis unreachable)', () => undefined);
}

describe('when Redis is down', () => {
  test('sign-in is still throttled, per gateway instance, and answers at once', async () => {
    // Nothing listens on port 1: every Redis call fails, as in an outage.
    const redis = createRedis('redis://127.0.0.1:1');
    const throttle = createSignInThrottle(redis, log);
    try {
      const started = Date.now();
      const admitted = [];
      for (let i = 0; i < 6; i++) admitted.push((await throttle.attempt('someone@example.com', '192.0.2.1')).admitted);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(admitted).toEqual([true, true, true, true, true, false]);
    } finally {
      redis.disconnect();
      await throttle.close();
    }
  });

  test('the shared throttle is used again as soon as it answers', async () => {
    let failing = true;
    const shared = createMemorySignInThrottle();
    const primary: SignInThrottle = {
      attempt: async (...args) => {
        if (failing) throw new Error('connection refused');
        return shared.attempt(...args);
      },
      close: async () => undefined,
    };
    const throttle = createResilientSignInThrottle(primary, createMemorySignInThrottle(), log);
    await throttle.attempt('a@example.com', '192.0.2.1');
    expect(throttle.degraded()).toBe(true);
    failing = false;
    await throttle.attempt('a@example.com', '192.0.2.1');
    expect(throttle.degraded()).toBe(false);
  });
});

describe('client addresses are counted by what one client holds', () => {
  test.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.7', '64:ff9b:0:0::/64'],
  ])('%s counts as %s', (address, name) => {
    expect(addressName(address)).toBe(name);
  });
});
