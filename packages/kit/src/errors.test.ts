import { status } from '@grpc/grpc-js';
import { ERROR_TABLE, GRPC_STATUS_TO_CODE } from './errors';

describe('error mapping', () => {
  test('every gRPC status maps to a public code', () => {
    const statuses = Object.values(status).filter((v): v is number => typeof v === 'number');
    for (const s of statuses) expect(ERROR_TABLE[GRPC_STATUS_TO_CODE[s as status]]).toBeDefined();
  });

  test('HTTP statuses follow the error table (gateway/README.md, Errors)', () => {
    expect(ERROR_TABLE.invalid_request.http).toBe(400);
    expect(ERROR_TABLE.validation_failed.http).toBe(422);
    expect(ERROR_TABLE.idempotency_key_reused.http).toBe(422);
    expect(ERROR_TABLE.conflict.http).toBe(409);
    expect(ERROR_TABLE.unavailable.http).toBe(503);
    expect(ERROR_TABLE.timeout.http).toBe(504);
  });
});

describe("a context's own errors", () => {
  test('travel with their gRPC status and reason; an illegal transition is FAILED_PRECONDITION and 409 at the edge', async () => {
    const grpc = await import('@grpc/grpc-js');
    const { loadPeople } = await import('@crm/proto');
    const { DomainError } = await import('./errors');
    const { createServiceClient, implement, startGrpcServer } = await import('./grpc');
    const { createLogger } = await import('./logger');
    const transition = { status: status.FAILED_PRECONDITION, code: 'conflict' as const };
    const service = loadPeople().crm.people.v1.PeopleService;
    const server = await startGrpcServer('127.0.0.1:0', [
      {
        name: 'crm.people.v1.PeopleService',
        definition: service.service,
        implementation: implement<Pick<typeof service.service, 'GetContact'>>(
          {
            GetContact: async () => {
              throw new DomainError('invalid_transition', transition, 'a completed enrollment cannot be paused', { field: 'status' });
            },
          },
          createLogger('test', 'silent'),
        ),
      },
    ]);
    const raw = new service(server.address, grpc.credentials.createInsecure());
    const client = createServiceClient(service, server.address);
    try {
      const code = await new Promise<number>((resolve) => raw.GetContact({ workspace_id: 'w', id: 'i' }, (error) => resolve(error!.code)));
      expect(code).toBe(status.FAILED_PRECONDITION);
      const error = await client.call('GetContact', { workspace_id: 'w', id: 'i' }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'conflict',
        reason: 'invalid_transition',
        message: 'a completed enrollment cannot be paused',
        details: { field: 'status' },
      });
      expect(ERROR_TABLE[(error as { code: 'conflict' }).code].http).toBe(409);
    } finally {
      raw.close();
      client.close();
      await server.shutdown();
    }
  });
});
