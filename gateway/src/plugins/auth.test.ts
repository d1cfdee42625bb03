import { CrmError } from '@crm/kit';
import type { FastifyRequest } from 'fastify';
import { type Principal, authenticate, createKeyCache } from './auth';

const KEY = `svc_live_${'a'.repeat(32)}`;
const principal: Principal = { workspaceId: 'ws', keyId: 'k', scopes: ['*'] };
const options = { ttlMs: 4_000, negativeTtlMs: 2_000, maxEntries: 3 };

describe('createKeyCache', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  test('concurrent requests share one lookup, and an answer is trusted for the TTL only', async () => {
    const resolve = jest.fn(async () => principal);
    const cached = createKeyCache(resolve, options);
    await Promise.all([cached(KEY), cached(KEY), cached(KEY)]);
    expect(resolve).toHaveBeenCalledTimes(1);
    jest.setSystemTime(1_000_000 + 3_999);
    await cached(KEY);
    expect(resolve).toHaveBeenCalledTimes(1);
    jest.setSystemTime(1_000_000 + 4_001);
    await cached(KEY);
    expect(resolve).toHaveBeenCalledTimes(2);
  });

  test('a refusal is remembered briefly; an outage is not remembered at all', async () => {
    const resolve = jest
      .fn<Promise<Principal>, [string]>()
      .mockRejectedValueOnce(new CrmError('unauthorized', 'invalid API key'))
      .mockRejectedValueOnce(new CrmError('unavailable', 'down'))
      .mockResolvedValue(principal);
    const cached = createKeyCache(resolve, options);
    await expect(cached(KEY)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(cached(KEY)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(resolve).toHaveBeenCalledTimes(1);
    jest.setSystemTime(1_000_000 + 2_001);
    await expect(cached(KEY)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(cached(KEY)).resolves.toEqual(principal);
    expect(resolve).toHaveBeenCalledTimes(3);
  });

  test('holds at most maxEntries keys', async () => {
    const resolve = jest.fn(async () => principal);
    const cached = createKeyCache(resolve, options);
    const keys = ['a', 'b', 'c', 'd'].map((c) => `svc_live_${c.repeat(32)}`);
    for (const key of keys) await cached(key);
    await cached(keys[0]!);
    expect(resolve).toHaveBeenCalledTimes(5);
  });
});

describe('authenticate', () => {
  const request = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as unknown as FastifyRequest;

  test.each([
    [undefined, /missing API key/],
    ['Basic abc', /Bearer/],
    ['Bearer', /Bearer/],
    ['Bearer svc_live_tooshort', /invalid API key/],
    [`Bearer ${KEY} extra`, /Bearer/],
  ])('%p is refused without asking the directory', async (header, message) => {
    const resolve = jest.fn(async () => principal);
    await expect(authenticate(request(header), resolve)).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(message) });
    expect(resolve).not.toHaveBeenCalled();
  });

  test('a well-formed key is resolved and attached to the request', async () => {
    const req = request(`bearer ${KEY}`);
    await expect(authenticate(req, async () => principal)).resolves.toEqual(principal);
    expect(req.principal).toEqual(principal);
  });
});
