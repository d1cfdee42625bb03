import { runCrm } from '../../../test/support/processes';

describe('crm start reads its whole configuration before starting anything', () => {
  test('every missing or malformed variable of a component is named in one error', async () => {
    const result = await runCrm(['start', 'people'], {
      DATABASE_URL: 'mysql://root:hunter2@db/crm',
      DB_POOL_SIZE: 'many',
      GRPC_ADDR: 'nowhere',
      CURSOR_SECRET: '',
    });
    expect(result.code).not.toBe(0);
    for (const name of ['DATABASE_URL', 'DB_POOL_SIZE', 'GRPC_ADDR', 'CURSOR_SECRET']) expect(result.stderr).toContain(name);
    expect(result.stderr).toMatch(/4 problems/);
    expect(result.stderr).not.toContain('hunter2');
  });

  test('the gateway names a malformed service address and port together', async () => {
    const result = await runCrm(['start', 'gateway'], { PEOPLE_ADDR: 'people', PORT: '-1' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('PEOPLE_ADDR');
    expect(result.stderr).toContain('PORT');
  });

  test('the gateway names malformed client and shutdown limits, and a header limit longer than the request limit', async () => {
    const malformed = await runCrm(['start', 'gateway'], { HEADERS_TIMEOUT_MS: '10s', KEEP_ALIVE_TIMEOUT_MS: '0', SHUTDOWN_TIMEOUT_MS: '-1' });
    expect(malformed.code).not.toBe(0);
    for (const name of ['HEADERS_TIMEOUT_MS', 'KEEP_ALIVE_TIMEOUT_MS', 'SHUTDOWN_TIMEOUT_MS']) expect(malformed.stderr).toContain(name);
    const inverted = await runCrm(['start', 'gateway'], { HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' });
    expect(inverted.code).not.toBe(0);
    expect(inverted.stderr).toMatch(/HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS/);
  });
});
