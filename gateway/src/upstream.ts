import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type ClientConstructor, type ServiceClient, createServiceClient, unary } from '@crm/kit';
import { type DirectoryServiceDefinition, loadDirectory } from '@crm/proto';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import type { ResolveKey } from './plugins/auth';

/** The directory, which the gateway asks to resolve API keys. */
export const connectDirectory = (address: string): ServiceClient<DirectoryServiceDefinition> =>
  createServiceClient(loadDirectory().crm.directory.v1.DirectoryService, address);

export function directoryKeyResolver(directory: ServiceClient<DirectoryServiceDefinition>, deadlineMs: number): ResolveKey {
  return async (key) => {
    const response = await directory.call('Authenticate', { key }, { deadlineMs });
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

/** grpc.health.v1 Check over an existing client's channel, answered within the deadline: the server's readiness, or a named status. */
export async function checkHealth(client: grpc.Client, deadlineMs = 1_000, service = ''): Promise<boolean> {
  const health = new healthProto.grpc.health.v1.Health('unused', grpc.credentials.createInsecure(), {
    channelOverride: client.getChannel(),
  });
  try {
    const response = await unary<{ service: string }, { status: string }>(health, 'Check', { service }, { deadlineMs });
    return response.status === 'SERVING';
  } catch {
    return false;
  }
}
