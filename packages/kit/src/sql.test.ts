import * as net from 'node:net';
import fc from 'fast-check';
import { types as pgTypes } from 'pg';
import { createPgClient, isoTimestamp } from './sql';
import { TEST_DATABASE_URL, serviceAvailable } from './testing/reachability';
import { isBackingServiceUnavailable } from './unavailable';
import { type SqlBackend, sqlBackends } from './testing/sql-backends';

/**
 * `isoTimestamps`: the strings a query gives instead of Dates are exactly what printing those Dates
 * gave (`toISOString`), for every value Postgres can print, in both backends.
 */
const parseDate = pgTypes.getTypeParser(1184, 'text') as (text: string) => unknown;
const printed = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** Postgres's text form in a UTC session: `YYYY-MM-DD HH:MM:SS[.ffffff]+00`, fraction without trailing zeros. */
const pgText = fc
  .record({
    ms: fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }),
    micros: fc.integer({ min: 0, max: 999_999 }),
  })
  .map(({ ms, micros }) => {
    const base = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    const fraction = String(micros).padStart(6, '0').replace(/0+$/, '');
    return `${base}${fraction ? `.${fraction}` : ''}+00`;
  });

test('a UTC timestamp prints as its Date printed, milliseconds truncated', () => {
  fc.assert(fc.property(pgText, (text) => expect(isoTimestamp(text)).toBe(printed(parseDate(text)))), { numRuns: 2_000 });
  expect(isoTimestamp('2026-11-26 11:18:57+00')).toBe('2026-11-26T11:18:57.000Z');
  expect(isoTimestamp('2026-11-26 11:18:57.5+00')).toBe('2026-11-26T11:18:57.500Z');
  expect(isoTimestamp('2026-11-26 11:18:57.999999+00')).toBe('2026-11-26T11:18:57.999Z');
});

test('any other form is parsed as pg parses it', () => {
  for (const text of ['2026-11-26 12:18:57.123+01', '2026-11-26 06:18:57.123-05:30', '0044-03-15 00:00:00+00 BC', '12026-11-26 11:18:57+00', 'infinity', '-infinity']) {
    const ours = isoTimestamp(text);
    const theirs = parseDate(text);
    expect(printed(ours)).toEqual(printed(theirs));
  }
  expect(isoTimestamp('2026-11-26 12:18:57.123+01')).toEqual(new Date('2026-11-26T11:18:57.123Z'));
});

describe.each(sqlBackends().map((backend) => [backend.name, backend] as const))('%s', (_name, backend: SqlBackend) => {
  test('isoTimestamps gives the strings of the Dates a plain query gives, and leaves other types alone', async () => {
    const { db, drop } = await backend.open('iso_timestamps');
    try {
      await db.exec(`CREATE TABLE moments (id int PRIMARY KEY, at timestamptz, n int, label text)`);
      const values = ['2026-11-26 11:18:57.123456+00', '1999-12-31 23:59:59.9995+00', '2026-01-01 00:00:00+00', '2026-06-01 02:00:00.5+02', null];
      for (const [i, at] of values.entries()) await db.query(`INSERT INTO moments VALUES ($1, $2, $1, 'x')`, [i, at]);
      await db.query(`INSERT INTO moments VALUES (9, 'infinity', 9, 'x')`);
      const select = `SELECT id, at, n, label FROM moments ORDER BY id`;
      const plain = (await db.query(select)).rows;
      const iso = (await db.query(select, [], { isoTimestamps: true })).rows;
      expect(iso.map((row) => row.at)).toEqual(plain.map((row) => printed(row.at)));
      expect(iso.map((row) => typeof row.at)).toEqual(['string', 'string', 'string', 'string', 'object', 'number']);
      expect(iso.map(({ id, n, label }) => ({ id, n, label }))).toEqual(plain.map(({ id, n, label }) => ({ id, n, label })));
      // Inside a transaction too, and a plain query after it still gets Dates.
      const inTx = await db.transaction(async (tx) => (await tx.query(select, [], { isoTimestamps: true })).rows);
      expect(inTx.map((row) => row.at)).toEqual(iso.map((row) => row.at));
      expect((await db.query(select)).rows[0]!.at).toBeInstanceOf(Date);
    } finally {
      await drop();
    }
  });
});

describe('a Postgres connection lost in the middle of a transaction', () => {
  const haveDatabase = serviceAvailable('Postgres', TEST_DATABASE_URL);
  (haveDatabase ? test : test.skip)('fails that transaction as unavailable, does not end the process, and the next one runs', async () => {
    // The pool reaches Postgres through a proxy the test cuts, as a server restart cuts its clients.
    const upstream = new URL(TEST_DATABASE_URL);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((inbound) => {
      const outbound = net.connect(Number(upstream.port || 5432), upstream.hostname);
      sockets.add(inbound).add(outbound);
      inbound.on('error', () => undefined);
      outbound.on('error', () => undefined);
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const db = await createPgClient({ url: url.toString(), schema: 'kit_sql_cut', max: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const failed = await db
        .transaction(async (tx) => {
          await tx.query('SELECT 1');
          // Between two statements, in the caller's code: the connection goes.
          for (const socket of sockets) socket.destroy();
          await new Promise((resolve) => setTimeout(resolve, 100));
          await tx.query('SELECT 2');
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isBackingServiceUnavailable(failed)).toBe(true);
      expect(uncaught).toEqual([]);
      // The broken client was discarded, not pooled: the next transaction gets a new connection.
      expect(await db.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT 3 AS n')).rows[0]!.n)).toBe(3);
    } finally {
      process.off('uncaughtException', onUncaught);
      await db.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
