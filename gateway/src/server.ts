import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '@crm/kit';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { checkHealth, createServiceClients, directoryKeyResolver } from './clients';
import { CONTEXTS } from './contexts';
import { type AuthCacheOptions, DEFAULT_AUTH_CACHE, createKeyCache } from './plugins/auth';

export interface GatewayConfig {
  host: string;
  port: number;
  directoryAddr: string;
  /** Address of each context's service, by context name (see contexts.ts). */
  serviceAddrs: Record<string, string>;
  /** Deadline for each call to a service. */
  upstreamDeadlineMs?: number;
  authCache?: AuthCacheOptions;
  logger: Logger | false;
}

export interface RunningGateway {
  readonly url: string;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Wires the gateway to its services and starts listening; `close()` drains and disconnects. */
export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const clients = createServiceClients(config.directoryAddr, config.serviceAddrs);
  const deadlineMs = config.upstreamDeadlineMs ?? 5_000;
  const app = await buildApp({
    logger: config.logger,
    resolveKey: createKeyCache(directoryKeyResolver(clients.directory, deadlineMs), config.authCache ?? DEFAULT_AUTH_CACHE),
    resources: CONTEXTS.flatMap((context) => context.routes(clients.contexts.get(context.name)!, deadlineMs)),
    ready: async () => {
      const targets: [string, grpc.Client][] = [['directory', clients.directory], ...clients.contexts.entries()];
      const results = await Promise.all(targets.map(([, client]) => checkHealth(client)));
      return Object.fromEntries(targets.map(([name], i) => [name, results[i]!]));
    },
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    app,
    async close() {
      await app.close();
      clients.close();
    },
  };
}
