import { SpanKind, trace } from '@opentelemetry/api';
import type { PGlite } from '@electric-sql/pglite';
import { Pool, type PoolClient, types as pgTypes } from 'pg';
import { assertTimeLeft, remainingMs } from './deadline';
import { ended } from './tracing';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * timestamptz values come back as the API writes them (`2026-11-26T11:18:57.123Z`: UTC,
   * milliseconds, truncated) instead of as Dates. Rows that are only turned into records ask for
   * this: a Date would be parsed only to be printed again, for every timestamp of every row
   * (packages/kit/README.md, "The request path's own cost").
   */
  isoTimestamps?: boolean;
}

/** Anything that runs a parameterised statement: a client, or a transaction handle. */
export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/**
 * The narrow SQL interface every Postgres-backed service uses. Two implementations: `pg` against a
 * real server, PGlite (Postgres compiled to WASM) embedded for all-in-one. Each service works in its
 * own schema, set as the connection's search_path, so SQL text never names it.
 */
export interface SqlClient extends SqlQueryable {
  readonly kind: 'postgres' | 'pglite';
  readonly schema: string;
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * Runs fn on one connection of its own, outside any transaction (statements autocommit): what
   * `CREATE INDEX CONCURRENTLY` and a session-level advisory lock need. The connection is closed
   * afterwards, so nothing fn set on it (settings, session locks) outlives the call.
   */
  session<T>(fn: (conn: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The connection pool's use now (`pg` only; PGlite has one connection and no pool). */
  poolUse?(): PoolUse;
}

export interface PoolUse {
  /** The most connections the pool opens. */
  max: number;
  /** Connections open, in use or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

const tracer = trace.getTracer('crm.sql');

const TIMESTAMPTZ_OID = 1184;
const UTC_TIMESTAMP = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;
const parseTimestamptz = pgTypes.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;

/**
 * Postgres's text form of a timestamptz in a UTC session (`2026-11-26 11:18:57.123456+00`) as an
 * ISO string with milliseconds, the digits past them dropped as a Date drops them. Any other form
 * (another session time zone, BC, infinity) is parsed as pg parses it by default (a Date, or
 * ±Infinity), which rowToRecord prints the same way.
 */
export function isoTimestamp(text: string): unknown {
  const match = UTC_TIMESTAMP.exec(text);
  if (!match) return parseTimestamptz(text);
  const fraction = match[3] ?? '';
  return `${match[1]}T${match[2]}.${fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0')}Z`;
}

const ISO_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary' ? isoTimestamp : pgTypes.getTypeParser(oid, format ?? 'text'),
};
const ISO_PARSERS = { [TIMESTAMPTZ_OID]: (text: string) => isoTimestamp(text) };

/** Every statement runs inside a client span, so one trace covers gateway → gRPC → SQL. */
async function traced<T>(system: string, text: string, run: () => Promise<T>): Promise<T> {
  assertTimeLeft();
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  return tracer.startActiveSpan(
    `${operation} ${system}`,
    { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.statement': text, 'db.operation': operation } },
    (span) => ended(span, run),
  );
}

export function assertSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  return schema;
}

export interface PgClientOptions {
  url: string;
  schema: string;
  max?: number;
  applicationName?: string;
  /** Server-side cap on any one statement (ms); 0 for none. */
  statementTimeoutMs?: number;
  /** Creates the schema when it is missing (default); a reader that must change nothing says false. */
  createSchema?: boolean;
}

export async function createPgClient(options: PgClientOptions): Promise<SqlClient> {
  const schema = assertSchemaName(options.schema);
  const max = options.max ?? 10;
  const pool = new Pool({
    connectionString: options.url,
    max,
    application_name: options.applicationName ?? `crm-${schema}`,
    options: `-c search_path=${schema},public -c statement_timeout=${options.statementTimeoutMs ?? 0}`,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const bootstrap = await pool.connect();
  // Its query fails if its connection does; the 'error' event must not end the process meanwhile.
  const ignore = () => undefined;
  bootstrap.on('error', ignore);
  try {
    // Only when it is missing: CREATE SCHEMA, even IF NOT EXISTS, needs CREATE on the database, which
    // a service's runtime role (DML only, see infra/postgres/roles.sql) does not have.
    const { rows } = await bootstrap.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
    if (rows.length === 0 && options.createSchema !== false) {
      // Two processes creating it at once: the loser's IF NOT EXISTS can still meet the winner's
      // row in the catalog (23505); the schema exists either way.
      await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((error: { code?: string }) => {
        if (error.code !== '23505' && error.code !== '42P06') throw error;
      });
    }
  } finally {
    bootstrap.off('error', ignore);
    bootstrap.release();
  }
  const run = <R>(q: Pool | PoolClient, text: string, params?: readonly unknown[], options?: QueryOptions) =>
    traced('postgres', text, async () => {
      const values = params as unknown[] | undefined;
      const result = await (options?.isoTimestamps ? q.query({ text, values, types: ISO_TYPES }) : q.query(text, values));
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    });
  // Without parameters pg uses the simple protocol, which accepts several statements.
  const exec = async (q: Pool | PoolClient, script: string) => {
    await traced('postgres', script, () => q.query(script));
  };
  return {
    kind: 'postgres',
    schema,
    query: (text, params, options) => run(pool, text, params, options),
    exec: (script) => exec(pool, script),
    async transaction(fn) {
      const client = await pool.connect();
      // A checked-out client is ours to watch: if the server ends its connection (a restart, a
      // failover) between two statements, pg emits 'error' on it, which would end the process
      // unheard. The transaction's next statement fails instead, and the client is not returned
      // to the pool but discarded.
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
      };
      client.on('error', onError);
      try {
        // A transaction under a caller's deadline is cancelled by the server when the deadline
        // passes. One round trip for both (the simple protocol takes several statements).
        const left = remainingMs();
        await client.query(left === undefined ? 'BEGIN' : `BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(left))}`);
        const value = await fn({ query: (text, params, options) => run(client, text, params, options), exec: (script) => exec(client, script) });
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
          broken ??= rollbackFailed;
        });
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    async session(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      const onError = (error: Error) => {
        broken ??= error;
      };
      client.on('error', onError);
      try {
        return await fn({ query: (text, params, options) => run(client, text, params, options), exec: (script) => exec(client, script) });
      } finally {
        client.off('error', onError);
        client.release(broken ?? true);
      }
    },
    close: () => pool.end(),
    poolUse: () => ({ max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

export interface PgliteClientOptions {
  /** Folder for the database files; omitted means in memory. */
  dataDir?: string;
  schema: string;
}

export async function createPgliteClient(options: PgliteClientOptions): Promise<SqlClient> {
  const schema = assertSchemaName(options.schema);
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = await PGlite.create({ dataDir: options.dataDir, extensions: { pg_trgm } });
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}, public;`);
  const run = <R>(q: Pick<PGlite, 'query'>, text: string, params?: readonly unknown[], options?: QueryOptions) =>
    traced('pglite', text, async () => {
      const result = await q.query<R>(text, params as unknown[] | undefined, options?.isoTimestamps ? { parsers: ISO_PARSERS } : undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    });
  const exec = async (q: Pick<PGlite, 'exec'>, script: string) => {
    await traced('pglite', script, () => q.exec(script));
  };
  return {
    kind: 'pglite',
    schema,
    query: (text, params, options) => run(db, text, params, options),
    exec: (script) => exec(db, script),
    transaction: (fn) =>
      db.transaction((tx) => fn({ query: (text, params, options) => run(tx, text, params, options), exec: (script) => exec(tx, script) })),
    // PGlite is one connection, which autocommits between transactions.
    session: (fn) => fn({ query: (text, params, options) => run(db, text, params, options), exec: (script) => exec(db, script) }),
    close: () => db.close(),
  };
}

/** Postgres error fields the store layer translates into domain errors. */
export interface PgErrorLike {
  code?: string;
  constraint?: string;
  detail?: string;
}

export function pgErrorOf(error: unknown): PgErrorLike | undefined {
  if (error && typeof error === 'object' && typeof (error as PgErrorLike).code === 'string') return error as PgErrorLike;
  return undefined;
}
