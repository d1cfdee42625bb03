import * as grpc from '@grpc/grpc-js';
import { checkHealth } from '../../gateway/src/upstream';

/** Whether the gRPC server at `address` reports SERVING over grpc.health.v1 (what a readiness probe asks). */
export async function grpcServing(address: string): Promise<boolean> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  try {
    return await checkHealth(client, 1_000);
  } finally {
    client.close();
  }
}
