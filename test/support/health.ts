import * as grpc from '@grpc/grpc-js';
import { checkHealth } from '../../gateway/src/upstream';

/**
 * Whether the gRPC server at `address` reports SERVING over grpc.health.v1: its readiness (what a
 * readiness probe asks), or the status of a named health service (`crm.event-bus`).
 */
export async function grpcServing(address: string, service = ''): Promise<boolean> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  try {
    return await checkHealth(client, 1_000, service);
  } finally {
    client.close();
  }
}
