import { existsSync } from 'node:fs';
import { startLocalServer } from './local-server';

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

export async function startNatsServer(): Promise<NatsServer> {
  if (!NATS_SERVER_BINARY) throw new Error('no nats-server binary on this machine');
  const server = await startLocalServer({
    binary: NATS_SERVER_BINARY,
    args: (port, store) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store],
    stopSignal: 'SIGTERM',
  });
  return { url: `nats://127.0.0.1:${server.port}`, start: server.start, stop: server.stop, close: server.close };
}
