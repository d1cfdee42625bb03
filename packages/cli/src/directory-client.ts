import type * as grpc from '@grpc/grpc-js';
import { CrmError, createClient, unary } from '@crm/kit';
import { loadDirectory } from '@crm/proto';

/** A directory client for the command line: calls fail fast with a message naming the address. */
export function directoryCaller(address: string) {
  const client: grpc.Client = createClient(loadDirectory().crm.directory.v1.DirectoryService, address);
  return {
    async call<Res>(method: string, request: unknown): Promise<Res> {
      try {
        return await unary<unknown, Res>(client, method, request, { deadlineMs: 10_000 });
      } catch (error) {
        if (error instanceof CrmError && (error.code === 'unavailable' || error.code === 'timeout')) {
          throw new Error(`cannot reach the directory at ${address} (is "crm start" running? set DIRECTORY_ADDR otherwise)`);
        }
        throw error;
      }
    },
    close: () => client.close(),
  };
}
