import { toolAvailable } from '@crm/kit/testing';
import { Cluster } from 'ioredis';
import { REDIS_CLI_BINARY, REDIS_SERVER_BINARY, type RedisCluster, startRedisCluster } from './redis-cluster';

jest.setTimeout(120_000);

const suite = toolAvailable('redis-server and redis-cli', REDIS_SERVER_BINARY !== undefined && REDIS_CLI_BINARY !== undefined) ? describe : describe.skip;

suite('a private Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.seeds.split(',').map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })));
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.close();
  });

  test('serves every slot, and a failover moves a primary to its replica with the data', async () => {
    await client.set('{a}x', '1');
    const before = await cluster.ownerOf('{a}x');
    await cluster.failover(before.primary);
    const after = await cluster.ownerOf('{a}x');
    expect(after.primary).toBe(before.replica);
    expect(await client.get('{a}x')).toBe('1');
  });

  test('a killed primary is replaced by its replica', async () => {
    const before = await cluster.ownerOf('{b}y');
    await cluster.kill(before.primary);
    await cluster.settled();
    expect((await cluster.ownerOf('{b}y')).primary).toBe(before.replica);
  });
});
