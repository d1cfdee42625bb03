import { type Logger, contacts } from '@crm/kit';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { checkHealth, createServiceClients, directoryKeyResolver, resourceClient } from './clients';
import { type AuthCacheOptions, DEFAULT_AUTH_CACHE, createKeyCache } from './plugins/auth';

export interface GatewayConfig {
  host: string;
  port: number;
  directoryAddr: string;
  peopleAddr: string;
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
  const clients = createServiceClients({ directory: config.directoryAddr, people: config.peopleAddr });
  const deadlineMs = config.upstreamDeadlineMs ?? 5_000;
  const app = await buildApp({
    logger: config.logger,
    resolveKey: createKeyCache(directoryKeyResolver(clients.directory, deadlineMs), config.authCache ?? DEFAULT_AUTH_CACHE),
    resources: [
      {
        spec: contacts,
        client: resourceClient(clients.people, contacts),
        operations: ['list', 'create', 'get', 'update', 'delete'],
        deadlineMs,
      },
    ],
    ready: async () => {
      const [directory, people] = await Promise.all([checkHealth(clients.directory), checkHealth(clients.people)]);
      return { directory, people };
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
