import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { freePort } from './processes';

/**
 * A server of this machine's (nats-server, redis-server) on a free loopback port with a folder of
 * its own, that a test stops under a running system and starts again on the same port and folder,
 * as an operator's restart would.
 */
export interface LocalServer {
  readonly port: number;
  /** Stops the server (with `stopSignal`) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again, same port and folder, and waits until it takes connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

export interface LocalServerOptions {
  binary: string;
  /** Its arguments, given its port and its folder. */
  args(port: number, dir: string): string[];
  /** SIGTERM for an orderly stop, SIGKILL for a crash. */
  stopSignal: NodeJS.Signals;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), `crm-${path.basename(options.binary)}-`));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(options.binary, options.args(port, dir), { stdio: 'ignore' });
    await expectEventually(async () => expect(await accepts(port)).toBe(true), { timeoutMs: 15_000, intervalMs: 50 });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(options.stopSignal);
    await exited;
  };
  await start();
  return {
    port,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
