import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { expectEventually } from '@crm/kit/testing';
import { NATS_SERVER_BINARY } from './nats-server';
import { freePort } from './processes';

/**
 * A private 3-node NATS cluster with JetStream (the machine's `nats-server` binary) on free
 * loopback ports: each node with its own store, routes to the other two, one cluster name. For
 * tests that take a node away under a running system, as a node failure in a real cluster would.
 */
export interface NatsCluster {
  /** The three client URLs, comma-separated (what NATS_URL is set to). */
  readonly url: string;
  readonly nodes: readonly NatsNode[];
  /**
   * Client connections the running nodes hold, but the test's own (those this module opens, named
   * TEST_CONNECTION): the processes under test, once each has (re)connected.
   */
  clientConnections(): Promise<number>;
  /** The node that leads the stream's group now (its server name is the node's `name`). */
  streamLeader(stream: string): Promise<NatsNode>;
  /** Stops every node and removes their stores. */
  close(): Promise<void>;
}

export interface NatsNode {
  /** The server name (`-n`), as JetStream reports a leader or a replica. */
  readonly name: string;
  readonly url: string;
  readonly running: boolean;
  /** SIGKILL: gone at once, as a crashed machine, and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts it again, same ports and store, and waits until the cluster has a JetStream leader. */
  start(): Promise<void>;
}

const SIZE = 3;
/** The name of the connections the test itself opens, left out of clientConnections(). */
export const TEST_CONNECTION = 'crm-test';

/** Waits until the cluster answers JetStream requests, which needs a meta leader elected. */
async function awaitJetStream(servers: string[], timeoutMs: number): Promise<void> {
  await expectEventually(
    async () => {
      const nc = await connect({ servers, name: TEST_CONNECTION, timeout: 1_000, maxReconnectAttempts: 0 });
      try {
        const info = await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
        expect(info).toBeDefined();
      } finally {
        await nc.close();
      }
    },
    { timeoutMs, intervalMs: 200 },
  );
}

export async function startNatsCluster(clusterName = 'crm-test'): Promise<NatsCluster> {
  if (!NATS_SERVER_BINARY) throw new Error('no nats-server binary on this machine');
  const binary = NATS_SERVER_BINARY;
  const specs: { name: string; port: number; clusterPort: number; monitorPort: number; store: string }[] = [];
  for (let i = 1; i <= SIZE; i++) {
    const [port, clusterPort, monitorPort] = [await freePort(), await freePort(), await freePort()];
    specs.push({ name: `n${i}`, port, clusterPort, monitorPort, store: mkdtempSync(path.join(tmpdir(), `crm-nats-${i}-`)) });
  }
  const clientUrls = specs.map((s) => `nats://127.0.0.1:${s.port}`);
  const children = new Map<string, ChildProcess>();
  const spawners = new Map<string, () => void>();

  const nodes: NatsNode[] = specs.map((spec) => {
    const routes = specs.filter((other) => other !== spec).map((other) => `nats://127.0.0.1:${other.clusterPort}`);
    const args = [
      ...['-a', '127.0.0.1', '-p', String(spec.port), '-m', String(spec.monitorPort), '-n', spec.name, '-js', '-sd', spec.store],
      ...['--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${spec.clusterPort}`, '--routes', routes.join(',')],
    ];
    const spawnNode = () => {
      const child = spawn(binary, args, { stdio: 'ignore' });
      children.set(spec.name, child);
    };
    spawners.set(spec.name, spawnNode);
    return {
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      get running() {
        const child = children.get(spec.name);
        return child !== undefined && child.exitCode === null && child.signalCode === null;
      },
      async kill() {
        const child = children.get(spec.name);
        children.delete(spec.name);
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      },
      async start() {
        if (this.running) return;
        spawnNode();
        await awaitJetStream([`nats://127.0.0.1:${spec.port}`], 30_000);
      },
    };
  });

  const close = async () => {
    await Promise.all(
      [...children.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    children.clear();
    for (const spec of specs) rmSync(spec.store, { recursive: true, force: true });
  };

  /** Connects to whichever nodes answer, for one piece of work. */
  const withConnection = async <T>(work: (nc: NatsConnection) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: clientUrls, name: TEST_CONNECTION, timeout: 2_000 });
    try {
      return await work(nc);
    } finally {
      await nc.close();
    }
  };

  try {
    for (const spec of specs) spawners.get(spec.name)!();
    await awaitJetStream(clientUrls, 60_000);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: clientUrls.join(','),
    nodes,
    close,
    async clientConnections() {
      const running = specs.filter((spec) => nodes.find((n) => n.name === spec.name)!.running);
      const counts = await Promise.all(
        running.map(async (spec) => {
          const connz = (await (await fetch(`http://127.0.0.1:${spec.monitorPort}/connz?limit=10000`)).json()) as { connections?: { name?: string }[] };
          return (connz.connections ?? []).filter((c) => c.name !== TEST_CONNECTION).length;
        }),
      );
      return counts.reduce((a, b) => a + b, 0);
    },
    async streamLeader(stream) {
      // Right after a node's loss the group may still be electing: wait for a leader among the running nodes.
      return expectEventually(
        () =>
          withConnection(async (nc) => {
            const leader = (await (await jetstreamManager(nc, { timeout: 2_000 })).streams.info(stream)).cluster?.leader;
            const node = nodes.find((n) => n.name === leader && n.running);
            if (!node) throw new Error(`stream ${stream} has no leader among the running nodes (${leader ?? 'none'})`);
            return node;
          }),
        { timeoutMs: 30_000, intervalMs: 200 },
      );
    },
  };
}
