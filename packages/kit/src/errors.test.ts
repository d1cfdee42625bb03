import { status } from '@grpc/grpc-js';
import { ERROR_TABLE, GRPC_STATUS_TO_CODE } from './errors';

describe('error mapping', () => {
  test('every gRPC status maps to a public code', () => {
    const statuses = Object.values(status).filter((v): v is number => typeof v === 'number');
    for (const s of statuses) expect(ERROR_TABLE[GRPC_STATUS_TO_CODE[s as status]]).toBeDefined();
  });

  test('HTTP statuses follow DESIGN.md', () => {
    expect(ERROR_TABLE.invalid_request.http).toBe(400);
    expect(ERROR_TABLE.validation_failed.http).toBe(422);
    expect(ERROR_TABLE.idempotency_key_reused.http).toBe(422);
    expect(ERROR_TABLE.conflict.http).toBe(409);
    expect(ERROR_TABLE.unavailable.http).toBe(503);
    expect(ERROR_TABLE.timeout.http).toBe(504);
  });
});
