import { startLocalServer } from './local-server';
import { REDIS_SERVER_BINARY } from './redis-cluster';

/**
 * A private Redis (the machine's `redis-server`) on a free loopback port, keeping nothing on disk,
 * for tests that stop it under a running system and start it again on the same port, as an
 * operator's restart would (empty, like a Redis without persistence).
 */
export interface RedisServer {
  readonly url: string;
  /** Stops the server (SIGKILL) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it takes connections. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  if (!REDIS_SERVER_BINARY) throw new Error('no redis-server binary on this machine');
  const server = await startLocalServer({
    binary: REDIS_SERVER_BINARY,
    args: (port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    stopSignal: 'SIGKILL',
  });
  return { url: `redis://127.0.0.1:${server.port}`, start: server.start, stop: server.stop, close: server.close };
}
