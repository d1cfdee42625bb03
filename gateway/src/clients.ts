import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type CallOptions, type ClientConstructor, type ResourceSpec, createClient, unary } from '@crm/kit';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { type AuthenticateResponse__Output, loadDirectory } from '@crm/proto';
import { CONTEXTS } from './contexts';
import type { ResolveKey } from './plugins/auth';
import type { ResourceClient } from './routes/resource.routes';

const pascal = (snake: string) => snake.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

/** The generic resource RPCs (`ListContacts`, `GetContact`, ...) of a service client. */
export function resourceClient(client: grpc.Client, spec: ResourceSpec): ResourceClient {
  const plural = pascal(spec.name);
  const singular = pascal(spec.singular);
  const call = <Res>(method: string) => (request: unknown, options: CallOptions) => unary<unknown, Res>(client, method, request, options);
  return {
    list: call(`List${plural}`),
    get: call(`Get${singular}`),
    create: call(`Create${singular}`),
    update: call(`Update${singular}`),
    delete: call(`Delete${singular}`),
  };
}

export interface ServiceClients {
  directory: grpc.Client;
  /** One client per context, by context name. */
  contexts: Map<string, grpc.Client>;
  close(): void;
}

/** Clients for the directory and every context, from their addresses (`host:port`). */
export function createServiceClients(directoryAddr: string, addresses: Record<string, string>): ServiceClients {
  const directory = createClient(loadDirectory().crm.directory.v1.DirectoryService, directoryAddr);
  const contexts = new Map<string, grpc.Client>();
  for (const context of CONTEXTS) {
    const address = addresses[context.name];
    if (!address) throw new Error(`no address for the ${context.name} service`);
    contexts.set(context.name, createClient(context.client(), address));
  }
  return {
    directory,
    contexts,
    close() {
      directory.close();
      for (const client of contexts.values()) client.close();
    },
  };
}

export function directoryKeyResolver(directory: grpc.Client, deadlineMs: number): ResolveKey {
  return async (key) => {
    const response = await unary<{ key: string }, AuthenticateResponse__Output>(directory, 'Authenticate', { key }, { deadlineMs });
    return {
      workspaceId: response.workspace_id,
      keyId: response.key_id,
      scopes: response.scopes,
      userId: response.user_id || undefined,
    };
  };
}

const healthProto = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String, keepCase: true, defaults: true })) as unknown as {
  grpc: { health: { v1: { Health: ClientConstructor<grpc.Client> } } };
};

/** grpc.health.v1 Check over an existing client's channel, answered within the deadline. */
export async function checkHealth(client: grpc.Client, deadlineMs = 1_000): Promise<boolean> {
  const health = new healthProto.grpc.health.v1.Health('unused', grpc.credentials.createInsecure(), {
    channelOverride: client.getChannel(),
  });
  try {
    const response = await unary<{ service: string }, { status: string }>(health, 'Check', { service: '' }, { deadlineMs });
    return response.status === 'SERVING';
  } catch {
    return false;
  }
}
