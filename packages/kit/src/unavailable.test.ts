import * as net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { CrmError } from './errors';
import { toServiceError } from './grpc';
import { createLogger } from './logger';
import { TEST_DATABASE_URL, serviceAvailable } from './testing';
import { isBackingServiceUnavailable } from './unavailable';

const log = createLogger('test', 'silent');
const havePostgres = serviceAvailable('Postgres', TEST_DATABASE_URL);
const withPostgres = havePostgres ? describe : describe.skip;

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The error `run` rejects with; fails the test if it resolves. */
async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const grpcStatusOf = (error: unknown) => toServiceError(error, log, 'Test/Method').code;

describe('real failures of a backing service are unavailable, and answered UNAVAILABLE', () => {
  test('a refused connection to Postgres', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await closedPort(), user: 'postgres', database: 'test' });
    const error = await failure(() => client.connect());
    expect(isBackingServiceUnavailable(error)).toBe(true);
    expect(grpcStatusOf(error)).toBe(grpc.status.UNAVAILABLE);
  });

  test('a refused connection to Redis', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: await closedPort(), lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    try {
      await redis.connect().catch(() => undefined);
      const error = await failure(() => redis.get('k'));
      expect(isBackingServiceUnavailable(error)).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  withPostgres('Postgres', () => {
    test('a session ended by the server (pg_terminate_backend, as a restart does: 57P01)', async () => {
      const victim = new pg.Client({ connectionString: TEST_DATABASE_URL });
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await victim.connect();
      await admin.connect();
      victim.on('error', () => undefined);
      try {
        const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const running = failure(() => victim.query('SELECT pg_sleep(5)'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        const error = await running;
        expect(isBackingServiceUnavailable(error)).toBe(true);
        expect(grpcStatusOf(error)).toBe(grpc.status.UNAVAILABLE);
        // And the next query on the dead client.
        expect(isBackingServiceUnavailable(await failure(() => victim.query('SELECT 1')))).toBe(true);
      } finally {
        await victim.end().catch(() => undefined);
        await admin.end();
      }
    });

    test('a connection cut under a query (the network, or a proxy in front of a failover)', async () => {
      const [host, port] = ['127.0.0.1', Number(new URL(TEST_DATABASE_URL).port || 5432)];
      const sockets = new Set<net.Socket>();
      const proxy = net.createServer((inbound) => {
        const outbound = net.connect(port, host);
        sockets.add(inbound).add(outbound);
        inbound.pipe(outbound).pipe(inbound);
        inbound.on('error', () => undefined);
        outbound.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const url = new URL(TEST_DATABASE_URL);
      url.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const client = new pg.Client({ connectionString: url.toString() });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const running = failure(() => client.query('SELECT pg_sleep(5)'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (const socket of sockets) socket.destroy();
        const error = await running;
        expect(isBackingServiceUnavailable(error)).toBe(true);
        expect(grpcStatusOf(error)).toBe(grpc.status.UNAVAILABLE);
      } finally {
        await client.end().catch(() => undefined);
        await new Promise<void>((resolve) => proxy.close(() => resolve()));
      }
    });

    test('a pool with no connection to give within its wait', async () => {
      const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1, connectionTimeoutMillis: 100 });
      const held = await pool.connect();
      try {
        const error = await failure(() => pool.query('SELECT 1'));
        expect(isBackingServiceUnavailable(error)).toBe(true);
      } finally {
        held.release();
        await pool.end();
      }
      // A pool that was ended (the process stopping).
      expect(isBackingServiceUnavailable(await failure(() => pool.query('SELECT 1')))).toBe(true);
    });

    test('what a bad query or a conflict raises is not unavailable: it stays internal', async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const syntax = await failure(() => client.query('SELEC 1'));
        expect((syntax as { code: string }).code).toBe('42601');
        expect(isBackingServiceUnavailable(syntax)).toBe(false);
        expect(grpcStatusOf(syntax)).toBe(grpc.status.INTERNAL);
        const division = await failure(() => client.query('SELECT 1 / 0'));
        expect(isBackingServiceUnavailable(division)).toBe(false);
      } finally {
        await client.end();
      }
    });
  });
});

describe('isBackingServiceUnavailable', () => {
  test('a programming error, a CrmError and non-errors are not', () => {
    expect(isBackingServiceUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isBackingServiceUnavailable(new CrmError('internal', 'x'))).toBe(false);
    for (const value of [undefined, null, 'ECONNREFUSED', 42, {}, []]) expect(isBackingServiceUnavailable(value)).toBe(false);
    expect(grpcStatusOf(new TypeError('x'))).toBe(grpc.status.INTERNAL);
  });

  test('an unavailable error wrapped in causes, or every error of an AggregateError, is; one of several is not', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.string(), (depth, message) => {
        let error: unknown = refused;
        for (let i = 0; i < depth; i++) error = new Error(message, { cause: error });
        return isBackingServiceUnavailable(error);
      }),
    );
    expect(isBackingServiceUnavailable(new AggregateError([refused, refused]))).toBe(true);
    expect(isBackingServiceUnavailable(new AggregateError([refused, new TypeError('x')]))).toBe(false);
    expect(isBackingServiceUnavailable(new AggregateError([]))).toBe(false);
    // Not without end: a cycle of causes stops at the depth bound.
    const cyclic = new Error('a') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(isBackingServiceUnavailable(cyclic)).toBe(false);
  });

  test('generated SQLSTATEs: only connection exceptions, shutdowns and too many connections', () => {
    const listed = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '53300']);
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Z]{5}$/), fc.string(), (code, message) => {
        // A message pg-pool or ioredis would use makes the error unavailable whatever its code.
        fc.pre(!/^(Connection|timeout exceeded|Client |Cannot use a pool|Query read timeout|Reached the max|Stream isn't)/.test(message));
        const error = Object.assign(new Error(message), { code });
        return isBackingServiceUnavailable(error) === listed.has(code);
      }),
      { numRuns: 2_000 },
    );
  });
});
