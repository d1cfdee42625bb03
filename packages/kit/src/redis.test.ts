import { Cluster, Redis } from 'ioredis';
import { ConfigError, readConfig } from './config';
import { REDIS_CLUSTER_OPTIONS, REDIS_OPTIONS, REDIS_SETTINGS, createRedis, redisSeeds } from './redis';

describe('REDIS_URL and REDIS_CLUSTER', () => {
  test('one URL is one server; REDIS_CLUSTER defaults to false', () => {
    expect(readConfig(REDIS_SETTINGS, { REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER: false });
    expect(readConfig(REDIS_SETTINGS, {})).toEqual({ REDIS_URL: undefined, REDIS_CLUSTER: false });
  });

  test('several comma-separated seed URLs are read as given, spaces aside', () => {
    expect(readConfig(REDIS_SETTINGS, { REDIS_URL: 'redis://a:7000, redis://b:7001', REDIS_CLUSTER: 'true' })).toEqual({
      REDIS_URL: 'redis://a:7000,redis://b:7001',
      REDIS_CLUSTER: true,
    });
  });

  test('a URL that is not redis or rediss, and a REDIS_CLUSTER that is not true or false, are refused without echoing the URL', () => {
    const read = () => readConfig(REDIS_SETTINGS, { REDIS_URL: 'redis://a:1,http://user:secret@b:2', REDIS_CLUSTER: 'yes' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/REDIS_URL must be a redis or rediss URL/);
    expect(read).toThrow(/REDIS_CLUSTER must be true or false, got "yes"/);
    expect(read).not.toThrow(/secret/);
  });

  test('several URLs without REDIS_CLUSTER=true are a start-up error that says what to do', () => {
    expect(() => redisSeeds({ url: 'redis://a:7000,redis://b:7001' })).toThrow(ConfigError);
    expect(() => redisSeeds({ url: 'redis://a:7000,redis://b:7001' })).toThrow('REDIS_URL names 2 servers: set REDIS_CLUSTER=true');
    expect(() => createRedis('redis://a:7000,redis://b:7001')).toThrow(ConfigError);
    expect(redisSeeds({ url: 'redis://a:7000,redis://b:7001', cluster: true }).map((url) => url.port)).toEqual(['7000', '7001']);
  });
});

describe('createRedis', () => {
  test('one server: a Redis client with the fail-fast options', () => {
    const client = createRedis('redis://127.0.0.1:1');
    try {
      expect(client).toBeInstanceOf(Redis);
      expect(client.options).toMatchObject(REDIS_OPTIONS);
    } finally {
      client.disconnect();
    }
  });

  test('a cluster: a Cluster client over every seed, the fail-fast options on each node, credentials from the URL', () => {
    const client = createRedis({ url: 'redis://user:p%40ss@127.0.0.1:1,redis://user:p%40ss@[::1]:2', cluster: true });
    try {
      expect(client).toBeInstanceOf(Cluster);
      const cluster = client as Cluster;
      expect(cluster.options).toMatchObject({ ...REDIS_CLUSTER_OPTIONS, redisOptions: { ...REDIS_OPTIONS, username: 'user', password: 'p@ss' } });
      expect(cluster.options.redisOptions).not.toHaveProperty('tls');
      expect((cluster as unknown as { startupNodes: unknown[] }).startupNodes).toEqual([
        { host: '127.0.0.1', port: 1 },
        { host: '::1', port: 2 },
      ]);
    } finally {
      client.disconnect();
    }
  });

  test('with nothing listening, a cluster client fails a command at once instead of queueing it', async () => {
    const client = createRedis({ url: 'redis://127.0.0.1:1', cluster: true });
    try {
      const started = Date.now();
      await expect(client.get('k')).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      client.disconnect();
    }
  });
});
