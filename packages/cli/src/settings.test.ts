import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort, runCrm } from '../../../test/support/processes';

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

  test('a malformed NATS server list and an impossible replica count are named, credentials not echoed', async () => {
    const result = await runCrm(['start', 'people'], {
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      CURSOR_SECRET: 'x',
      NATS_URL: 'nats://u:hunter2@a:4222,,nats://c:4222',
      NATS_STREAM_REPLICAS: '7',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('NATS_URL: NATS server 2 of 3 is empty');
    expect(result.stderr).toContain('NATS_STREAM_REPLICAS must be a whole number from 1 to 5');
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

describe('a port that cannot be taken is one error naming the variable that set it', () => {
  const held: Server[] = [];
  /** A loopback port this test listens on, so `crm` finds it taken. */
  async function takenPort(): Promise<number> {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
    held.push(server);
    return port;
  }
  let dataDir: string;
  beforeEach(() => {
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'crm-ports-')), 'data');
  });
  afterEach(() => {
    for (const server of held.splice(0)) server.close();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });
  const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m);

  test('all-in-one: PORT and METRICS_PORT, together, before anything starts', async () => {
    const [api, metrics] = [await takenPort(), await takenPort()];
    const embedded = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '' };
    const result = await runCrm(['start'], { ...embedded, CRM_DATA_DIR: dataDir, PORT: String(api), METRICS_PORT: String(metrics) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`PORT=${api}: 127.0.0.1:${api} is already in use (EADDRINUSE)`);
    expect(result.stderr).toContain(`METRICS_PORT=${metrics}: 127.0.0.1:${metrics} is already in use (EADDRINUSE)`);
    noStackTrace(result.stderr);
    // Nothing started: not even the data folder was created.
    expect(existsSync(dataDir)).toBe(false);
  });

  test('all-in-one: a service address the user set (DIRECTORY_ADDR)', async () => {
    const directory = await takenPort();
    const result = await runCrm(['start'], { CRM_DATA_DIR: dataDir, PORT: String(await freePort()), DIRECTORY_ADDR: `127.0.0.1:${directory}`, METRICS_PORT: 'off' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`DIRECTORY_ADDR=127.0.0.1:${directory}: 127.0.0.1:${directory} is already in use (EADDRINUSE)`);
    noStackTrace(result.stderr);
  });

  test('a component: GRPC_ADDR, and the gateway: PORT', async () => {
    const taken = await takenPort();
    const people = await runCrm(['start', 'people'], {
      CRM_DATA_DIR: dataDir,
      GRPC_ADDR: `127.0.0.1:${taken}`,
      CURSOR_SECRET: 'a-cursor-secret-of-32-characters',
      METRICS_PORT: 'off',
    });
    expect(people.code).not.toBe(0);
    expect(people.stderr).toContain(`GRPC_ADDR=127.0.0.1:${taken}: 127.0.0.1:${taken} is already in use (EADDRINUSE)`);
    noStackTrace(people.stderr);
    const gateway = await runCrm(['start', 'gateway'], { PORT: String(taken), METRICS_PORT: 'off' });
    expect(gateway.code).not.toBe(0);
    expect(gateway.stderr).toContain(`PORT=${taken}: 127.0.0.1:${taken} is already in use (EADDRINUSE)`);
    noStackTrace(gateway.stderr);
  });
});
