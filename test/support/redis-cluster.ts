import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REDIS_CLUSTER_OPTIONS, REDIS_OPTIONS, type RedisClient, createRedis } from '@crm/kit';
import { expectEventually } from '@crm/kit/testing';
import { Cluster } from 'ioredis';
import { freePort } from './processes';

/**
 * A private Redis Cluster of six `redis-server` processes (three primaries, one replica each) on
 * free loopback ports, for tests that kill a node or fail a primary over under load. Nothing is
 * persisted: each node's cluster config and data live in one temporary directory, removed on close.
 */
export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of every node, comma-separated: a REDIS_URL with REDIS_CLUSTER=true. */
  readonly seeds: string;
  readonly ports: readonly number[];
  /** The live primary serving a key's slot, and its live replica if it has one (as the cluster sees them now). */
  ownerOf(key: string): Promise<{ primary: number; replica?: number }>;
  /** Promotes the replica of `primaryPort` (CLUSTER FAILOVER on it) and waits until every live node agrees. */
  failover(primaryPort: number): Promise<void>;
  /** Kills a node (SIGKILL) and waits until it has exited. */
  kill(port: number): Promise<void>;
  /** Starts a killed node again with its cluster config: it rejoins as the replica of its successor. */
  restart(port: number): Promise<void>;
  /** Waits until every live node reports cluster_state:ok and the replica of a killed primary serves its slots. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const onPath = (name: string) =>
  (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, name))
    .find((file) => existsSync(file));
export const REDIS_SERVER_BINARY = existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : onPath('redis-server');
export const REDIS_CLI_BINARY = existsSync('/usr/bin/redis-cli') ? '/usr/bin/redis-cli' : onPath('redis-cli');

const run = promisify(execFile);

/** One command to one node through redis-cli; its reply as text. */
async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI_BINARY!, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

interface NodeLine {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  primaryId: string;
  slots: string[];
}

/** CLUSTER NODES as one node sees the cluster. */
async function nodesSeenBy(port: number): Promise<NodeLine[]> {
  return (await cli(port, 'CLUSTER', 'NODES'))
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, primaryId, , , , , ...slots] = line.split(' ');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address!)![1]),
        primary: flags!.includes('master'),
        failed: flags!.includes('fail'),
        primaryId: primaryId!,
        slots,
      };
    });
}

const slotCount = (range: string) => {
  if (range.startsWith('[')) return 0; // a slot being migrated, listed beside its range
  const [from, to = from] = range.split('-').map(Number);
  return to! - from! + 1;
};

const inSlots = (slot: number, ranges: string[]) =>
  ranges.some((range) => {
    const [from, to = from] = range.split('-').map(Number);
    return slot >= from! && slot <= to!;
  });

export async function startRedisCluster(): Promise<RedisCluster> {
  if (!REDIS_SERVER_BINARY || !REDIS_CLI_BINARY) throw new Error('no redis-server or redis-cli on this machine');
  const dir = mkdtempSync(path.join(tmpdir(), 'crm-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 6; i++) {
    let port = await freePort();
    // The cluster bus listens on port + 10000: both must be free, and distinct from the others'.
    while (ports.includes(port) || port > 55_535) port = await freePort();
    ports.push(port);
  }
  const children = new Map<number, ChildProcess>();
  const live = () => ports.filter((port) => !children.get(port)!.killed && children.get(port)!.exitCode === null && children.get(port)!.signalCode === null);
  const start = (port: number) => {
    const child = spawn(
      REDIS_SERVER_BINARY,
      [
        '--port', String(port),
        '--bind', '127.0.0.1',
        '--cluster-enabled', 'yes',
        '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout', '2000',
        '--dir', dir,
        '--save', '',
        '--appendonly', 'no',
      ],
      { stdio: 'ignore' },
    );
    children.set(port, child);
  };
  for (const port of ports) start(port);

  const settled = async () => {
    await expectEventually(
      async () => {
        for (const port of live()) expect(await cli(port, 'CLUSTER', 'INFO')).toContain('cluster_state:ok');
        // Every slot is served by a primary that is alive, as each live node sees it.
        for (const port of live()) {
          const served = (await nodesSeenBy(port)).filter((node) => node.primary && live().includes(node.port));
          expect(served.flatMap((node) => node.slots).reduce((sum, range) => sum + slotCount(range), 0)).toBe(16_384);
        }
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  };

  const ownerOf = async (key: string) => {
    const slot = Number((await cli(live()[0]!, 'CLUSTER', 'KEYSLOT', key)).trim());
    let owner: { primary: number; replica?: number } = { primary: 0 };
    // Right after a failover the nodes' views converge within a few gossip rounds.
    await expectEventually(async () => {
      const view = await nodesSeenBy(live()[0]!);
      const primary = view.find((node) => node.primary && !node.failed && live().includes(node.port) && inSlots(slot, node.slots));
      expect(primary).toBeDefined();
      const replica = view.find((node) => !node.primary && node.primaryId === primary!.id && live().includes(node.port));
      owner = { primary: primary!.port, replica: replica?.port };
    }, { timeoutMs: 30_000, intervalMs: 100 });
    return owner;
  };

  const kill = async (port: number) => {
    const child = children.get(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };

  const close = async () => {
    await Promise.all(ports.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await expectEventually(async () => {
      for (const port of ports) expect((await cli(port, 'PING')).trim()).toBe('PONG');
    }, { timeoutMs: 15_000, intervalMs: 50 });
    await cli(ports[0]!, '--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes');
    await settled();
    // Every replica has finished its first sync, so a failover finds the data there.
    await expectEventually(async () => {
      for (const port of ports) {
        const info = await cli(port, 'INFO', 'replication');
        if (info.includes('role:slave')) expect(info).toContain('master_link_status:up');
      }
    }, { timeoutMs: 30_000, intervalMs: 100 });
  } catch (error) {
    await close();
    throw error;
  }

  return {
    seeds: ports.map((port) => `redis://127.0.0.1:${port}`).join(','),
    ports,
    ownerOf,
    kill,
    settled,
    async failover(primaryPort) {
      const view = await nodesSeenBy(primaryPort);
      const primary = view.find((node) => node.port === primaryPort)!;
      const replica = view.find((node) => !node.primary && node.primaryId === primary.id && !node.failed);
      if (!replica) throw new Error(`the primary on ${primaryPort} has no live replica`);
      await cli(replica.port, 'CLUSTER', 'FAILOVER');
      await expectEventually(async () => {
        for (const port of live()) {
          const seen = (await nodesSeenBy(port)).find((node) => node.port === replica.port)!;
          expect(seen.primary).toBe(true);
        }
      }, { timeoutMs: 30_000, intervalMs: 100 });
      await settled();
    },
    async restart(port) {
      start(port);
      await expectEventually(async () => expect((await cli(port, 'PING')).trim()).toBe('PONG'), { timeoutMs: 15_000, intervalMs: 50 });
      await expectEventually(async () => {
        const info = await cli(port, 'INFO', 'replication');
        expect(info).toContain('role:slave');
        expect(info).toContain('master_link_status:up');
      }, { timeoutMs: 30_000, intervalMs: 100 });
      await settled();
    },
    close,
  };
}

export interface LoadOutcome<T> {
  /** Operations that succeeded, by index, in the order they were answered. */
  succeeded: { index: number; value: T }[];
  /**
   * Indexes of the operations that failed (the client's fail-fast error while a slot had no
   * primary). A command that timed out may still have been applied.
   */
  failed: number[];
  /** From the first failure to the last one: the window the callers answered without Redis. */
  outageMs: number;
}

/**
 * Runs `operation` (each call with its own index) from `workers` concurrent loops while `disrupt`
 * runs: it starts once the load is flowing and the loops stop once operations succeed again after
 * it, so what a failover costs is measured under traffic.
 */
export async function underLoad<T>(operation: (index: number) => Promise<T>, disrupt: () => Promise<void>, workers = 8): Promise<LoadOutcome<T>> {
  const succeeded: { index: number; value: T; at: number }[] = [];
  const failed: number[] = [];
  let firstFailure = 0;
  let lastFailure = 0;
  let next = 0;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const index = next++;
      try {
        succeeded.push({ index, value: await operation(index), at: Date.now() });
      } catch {
        failed.push(index);
        lastFailure = Date.now();
        firstFailure ||= lastFailure;
        // A failing call answers at once (fail-fast client): pace the retries as callers would.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  const loops = Array.from({ length: workers }, loop);
  try {
    await expectEventually(() => expect(succeeded.length).toBeGreaterThan(200), { timeoutMs: 20_000 });
    await disrupt();
    const disrupted = Date.now();
    await expectEventually(() => expect(succeeded.filter((s) => s.at > disrupted).length).toBeGreaterThan(200), { timeoutMs: 30_000 });
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  return { succeeded: succeeded.map(({ index, value }) => ({ index, value })), failed, outageMs: lastFailure - firstFailure };
}

/**
 * A client of the cluster, as one gateway or messaging replica holds, once it has the slot map.
 * `production`: createRedis's own (250 ms commands), where a failover is measured; otherwise the
 * same options with a 5 s command timeout, which a loaded test machine cannot push a command past,
 * as it can 250 ms (the exactness checks). The caller disconnects it.
 */
export async function clusterClient(cluster: RedisCluster, production = false): Promise<RedisClient> {
  const nodes = cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
  const client = production
    ? createRedis({ url: cluster.seeds, cluster: true })
    : new Cluster(nodes, { ...REDIS_CLUSTER_OPTIONS, redisOptions: { ...REDIS_OPTIONS, commandTimeout: 5_000 } });
  await expectEventually(() => expect(client.status).toBe('ready'), { timeoutMs: 10_000 });
  return client;
}
