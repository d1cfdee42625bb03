import { TEST_REDIS_URL, serviceAvailable } from '@crm/kit/testing';
import { Redis } from 'ioredis';
import { createMemoryIdempotencyStore, createRedisIdempotencyStore, fingerprintRequest } from './idempotency';
import { runIdempotencyStoreContract } from './idempotency.contract';

runIdempotencyStoreContract('memory', async () => [createMemoryIdempotencyStore()]);

if (serviceAvailable('Redis', TEST_REDIS_URL)) {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  // Three connections, as three gateway processes would hold.
  runIdempotencyStoreContract('redis (3 instances)', async () =>
    Array.from({ length: 3 }, () => {
      const redis = new Redis(TEST_REDIS_URL);
      connections.push(redis);
      return createRedisIdempotencyStore(redis, `crm:test:idem:${process.pid}`);
    }),
  );
} else {
  test.skip('redis idempotency store contract (Redis unreachable)', () => undefined);
}

test('the memory store forgets records when they expire', async () => {
  let now = 0;
  const store = createMemoryIdempotencyStore(() => now);
  expect(await store.claim('s', 'fp')).toBeUndefined();
  now += 61_000;
  expect(await store.claim('s', 'fp')).toBeUndefined();
});

test('the fingerprint is the method, the path under either prefix and the body, key order aside', () => {
  const a = fingerprintRequest('POST', '/v1/contacts?x=1', { b: 1, a: { d: 2, c: 3 } });
  expect(fingerprintRequest('POST', '/api/v1/contacts', { a: { c: 3, d: 2 }, b: 1 })).toBe(a);
  expect(fingerprintRequest('PATCH', '/v1/contacts', { a: { c: 3, d: 2 }, b: 1 })).not.toBe(a);
  expect(fingerprintRequest('POST', '/v1/contacts', { a: { c: 3, d: 2 }, b: 2 })).not.toBe(a);
});
