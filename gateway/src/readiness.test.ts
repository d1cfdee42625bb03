import * as grpc from '@grpc/grpc-js';
import { type RunningGrpcServer, startGrpcServer } from '@crm/kit';
import type { Redis } from 'ioredis';
import { createKeyCache } from './plugins/auth';
import { gatewayReadiness } from './readiness';

const principal = { workspaceId: 'w', keyId: 'k', scopes: ['*'] };
const redisAnswering = (answer: () => Promise<string>) => ({ ping: answer }) as unknown as Redis;

describe('gateway readiness', () => {
  let directory: RunningGrpcServer;
  let client: grpc.Client;

  beforeAll(async () => {
    directory = await startGrpcServer('127.0.0.1:0', []);
    client = new grpc.Client(directory.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await directory.shutdown(1_000);
  });
  afterEach(() => directory.setServing(true));

  test('ready while the directory answers, whatever the contexts do (they are not asked)', async () => {
    const ready = gatewayReadiness({ directory: client, keyCache: createKeyCache(async () => principal) });
    expect(await ready()).toEqual({ checks: { authentication: true }, dependencies: {} });
  });

  test('without the directory, ready only while the key cache is warm', async () => {
    directory.setServing(false);
    const cold = createKeyCache(async () => principal);
    expect((await gatewayReadiness({ directory: client, keyCache: cold })()).checks).toEqual({ authentication: false });

    // The cache's own clock: the health check's time on a busy machine does not move it.
    let now = 1_000_000;
    const warm = createKeyCache(async () => principal, { ttlMs: 200, negativeTtlMs: 100, maxEntries: 10 }, () => now);
    await warm('svc_live_key');
    expect(warm.warm()).toBe(true);
    expect((await gatewayReadiness({ directory: client, keyCache: warm })()).checks).toEqual({ authentication: true });
    now += 201; // the trusted answer expires
    expect((await gatewayReadiness({ directory: client, keyCache: warm })()).checks).toEqual({ authentication: false });
  });

  test('a refused key does not warm the cache', async () => {
    const cache = createKeyCache(async () => {
      throw new Error('unknown key');
    });
    await cache('svc_live_bad').catch(() => undefined);
    expect(cache.warm()).toBe(false);
  });

  test('reports Redis when it has one, and stays ready without it: the limits fall back to memory', async () => {
    const keyCache = createKeyCache(async () => principal);
    expect(await gatewayReadiness({ directory: client, keyCache, redis: redisAnswering(async () => 'PONG') })()).toEqual({
      checks: { authentication: true },
      dependencies: { redis: true },
    });
    const down = redisAnswering(async () => {
      throw new Error('Connection is closed.');
    });
    expect(await gatewayReadiness({ directory: client, keyCache, redis: down })()).toEqual({
      checks: { authentication: true },
      dependencies: { redis: false },
    });
  });
});
