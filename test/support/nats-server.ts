import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { freePort } from './processes';

/**
 * A private NATS server with JetStream (the machine's `nats-server` binary) on a free loopback port,
 * for tests that stop the broker under a running system and start it again on the same port with
 * the same store, as an operator's restart would.
 */
export interface NatsServer {
  readonly url: string;
  /** Stops the server (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again, same port and store, and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its store. */
  close(): Promise<void>;
}

export const NATS_SERVER_BINARY = ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((p) => existsSync(p));

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

export async function startNatsServer(): Promise<NatsServer> {
  if (!NATS_SERVER_BINARY) throw new Error('no nats-server binary on this machine');
  const port = await freePort();
  const store = mkdtempSync(path.join(tmpdir(), 'crm-nats-'));
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore' });
    await expectEventually(async () => expect(await accepts(port)).toBe(true), { timeoutMs: 15_000, intervalMs: 50 });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
}
