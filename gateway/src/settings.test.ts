import { ConfigError, readConfig } from '@crm/kit';
import { buildApp } from './app';
import { GATEWAY_SETTINGS, gatewayConfigFrom } from './settings';

/**
 * TRUST_PROXY: which proxies' X-Forwarded-For gives the client's address, the address sign-in is
 * throttled by. Unset, a forwarded header is the client's own claim and is ignored.
 */
const configWith = (value: string) => gatewayConfigFrom(readConfig(GATEWAY_SETTINGS, { TRUST_PROXY: value }));

test('TRUST_PROXY takes addresses and CIDR ranges, and refuses anything else by name', () => {
  expect(configWith('10.0.0.0/8, 192.168.1.5,::1,fd00::/8').trustProxy).toEqual(['10.0.0.0/8', '192.168.1.5', '::1', 'fd00::/8']);
  expect(configWith('').trustProxy).toEqual([]);
  for (const bad of ['proxy.internal', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '10.0.0.1/x']) {
    expect(() => configWith(bad)).toThrow(ConfigError);
    expect(() => configWith(bad)).toThrow(/TRUST_PROXY/);
  }
});

test("the client's address is the forwarded one only when the connection comes from a trusted proxy", async () => {
  const ipOf = async (trustProxy: string[], remoteAddress: string) => {
    const app = await buildApp({
      resolveKey: async () => {
        throw new Error('unused');
      },
      resources: [],
      logger: false,
      trustProxy,
      register: (instance) => instance.get('/whoami', async (request) => ({ ip: request.ip })),
    });
    const response = await app.inject({ method: 'GET', url: '/whoami', remoteAddress, headers: { 'x-forwarded-for': '203.0.113.9' } });
    await app.close();
    return response.json().ip;
  };
  expect(await ipOf(['127.0.0.1'], '127.0.0.1')).toBe('203.0.113.9');
  expect(await ipOf(['10.0.0.0/8'], '127.0.0.1')).toBe('127.0.0.1');
  expect(await ipOf([], '127.0.0.1')).toBe('127.0.0.1');
});

test('REDIS_URL names one server, or with REDIS_CLUSTER=true the seeds of a cluster; several without it refuse to start', () => {
  const redisOf = (env: Record<string, string>) => {
    const config = gatewayConfigFrom(readConfig(GATEWAY_SETTINGS, env));
    return { url: config.redisUrl, cluster: config.redisCluster };
  };
  expect(redisOf({ REDIS_URL: 'redis://r:6379' })).toEqual({ url: 'redis://r:6379', cluster: false });
  expect(redisOf({ REDIS_URL: 'redis://a:7000,redis://b:7000', REDIS_CLUSTER: 'true' })).toEqual({ url: 'redis://a:7000,redis://b:7000', cluster: true });
  expect(() => redisOf({ REDIS_URL: 'redis://a:7000,redis://b:7000' })).toThrow(ConfigError);
  expect(() => redisOf({ REDIS_URL: 'redis://a:7000,redis://b:7000' })).toThrow(/REDIS_CLUSTER=true/);
});
