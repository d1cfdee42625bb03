import { type Server, type Socket, connect, createServer } from 'node:net';
import { freePort } from './processes';

/**
 * A loopback TCP proxy in front of a server (Postgres), for tests of what the system does when that
 * server restarts. `outage(ms)` does what clients of a restarting server see: every connection is
 * cut at once, connections are refused for `ms` (nothing listens on the port), then taken again.
 * The real server is untouched, so other suites sharing it carry on.
 */
export interface TcpProxy {
  /** `host:port` of the proxy. */
  readonly address: string;
  readonly port: number;
  /** Cuts every connection and refuses new ones for `ms`, then listens again on the same port. */
  outage(ms: number): Promise<void>;
  /** Connections made through it so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startTcpProxy(upstream: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let made = 0;
  const serve = (): Server =>
    createServer((inbound) => {
      made++;
      const outbound = connect(upstream.port, upstream.host);
      sockets.add(inbound).add(outbound);
      const drop = () => {
        inbound.destroy();
        outbound.destroy();
        sockets.delete(inbound);
        sockets.delete(outbound);
      };
      inbound.on('error', drop).on('close', drop);
      outbound.on('error', drop).on('close', drop);
      inbound.pipe(outbound).pipe(inbound);
    });
  const listen = (server: Server) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  let server = serve();
  await listen(server);
  return {
    address: `127.0.0.1:${port}`,
    port,
    connections: () => made,
    async outage(ms) {
      const closing = close(server);
      for (const socket of sockets) socket.destroy();
      await closing;
      await new Promise((resolve) => setTimeout(resolve, ms));
      server = serve();
      await listen(server);
    },
    async close() {
      const closing = close(server);
      for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}
