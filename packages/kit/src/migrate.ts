import type { SqlClient, SqlQueryable } from './sql';

export type Migration = TransactionalMigration | StepMigration;

/** The usual migration: one script, in one transaction. */
export interface TransactionalMigration {
  /** Ordered, never renamed once released: `001_contacts`. */
  id: string;
  sql: string;
}

/**
 * A migration that must not hold its locks for the whole change: its steps run one at a time on a
 * connection of its own, outside any transaction, so a step can be `CREATE INDEX CONCURRENTLY`
 * (which refuses to run in one) and a step of several statements is one short transaction of its
 * own (Postgres runs a multi-statement script that way). It is recorded only when every step has
 * run, so a failure part-way leaves it pending and the next run starts again from the first step:
 * each step must therefore be re-runnable, which `skipIf` helps with.
 */
export interface StepMigration {
  id: string;
  transaction: false;
  steps: readonly MigrationStep[];
}

export interface MigrationStep {
  /** What the step does, for its timing and its error: `build contacts_pkey_new`. */
  name: string;
  sql: string;
  /** A query; the step is skipped when it returns a row (its work is already done). */
  skipIf?: string;
  /** Run before the step is tried again after a lock failure: what its failed try left behind goes. */
  beforeRetry?: string;
}

/** How often a step is tried when it fails to take a lock in time (its own `lock_timeout`) or deadlocks. */
const STEP_ATTEMPTS = 5;
const LOCK_FAILURES = new Set(['55P03', '40P01']);
/** How often a process waiting for another's migrations asks for the lock again. */
const LOCK_POLL_MS = 200;

export interface MigrationOptions {
  /** Called after each step of a step migration, run or skipped (the benchmark reports them). */
  onStep?(step: { migration: string; name: string; ms: number; skipped: boolean }): void;
}

/**
 * Applies pending migrations in order, each in its own transaction (a step migration step by step),
 * recording them in the service's schema. Several replicas starting at once are serialised by an
 * advisory lock, held by one connection for the whole run, so each migration runs exactly once.
 *
 * The lock is asked for with pg_try_advisory_lock, again every LOCK_POLL_MS, never waited for in a
 * statement: a statement waiting holds a snapshot, and `CREATE INDEX CONCURRENTLY` (another
 * process's step, holding the lock) waits for every older snapshot to end: a deadlock.
 */
export async function runMigrations(db: SqlClient, migrations: readonly Migration[], options: MigrationOptions = {}): Promise<string[]> {
  const ids = migrations.map((m) => m.id);
  if (new Set(ids).size !== ids.length || [...ids].sort().join() !== ids.join()) {
    throw new Error('migration ids must be unique and in order');
  }
  // One run at a time per client within the process: on PGlite every run shares the one session,
  // where the advisory lock is re-entrant and so serialises nothing.
  const run = (running.get(db) ?? Promise.resolve()).catch(() => undefined).then(() => migrate(db, migrations, options));
  running.set(db, run);
  return run;
}

const running = new WeakMap<SqlClient, Promise<unknown>>();

async function migrate(db: SqlClient, migrations: readonly Migration[], options: MigrationOptions): Promise<string[]> {
  return db.session(async (conn) => {
    // No statement cap: an index on a large table takes what it takes. The session's connection is
    // closed afterwards, so the setting goes with it.
    if (db.kind === 'postgres') await conn.query('SET statement_timeout = 0');
    await lockMigrations(conn);
    try {
      await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const applied: string[] = [];
      for (const migration of migrations) {
        if (await isApplied(conn, migration.id)) continue;
        if ('steps' in migration) await runSteps(conn, migration, options);
        else await runInTransaction(conn, migration);
        applied.push(migration.id);
      }
      return applied;
    } finally {
      // A broken connection loses the lock with it; its error must not hide the migration's.
      await conn.query(`SELECT pg_advisory_unlock(hashtext('crm.migrations'))`).catch(() => undefined);
    }
  });
}

async function lockMigrations(conn: SqlQueryable): Promise<void> {
  for (;;) {
    const { rows } = await conn.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext('crm.migrations')) AS locked`);
    if (rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

async function runInTransaction(conn: SqlQueryable, migration: TransactionalMigration): Promise<void> {
  await conn.query('BEGIN');
  try {
    await conn.exec(migration.sql);
    await conn.query(`INSERT INTO schema_migrations (id) VALUES ($1)`, [migration.id]);
    await conn.query('COMMIT');
  } catch (error) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function runSteps(conn: SqlQueryable, migration: StepMigration, options: MigrationOptions): Promise<void> {
  if (migration.transaction !== false || !migration.steps.length) throw new Error(`migration ${migration.id}: a step migration has transaction: false and steps`);
  for (const step of migration.steps) {
    const started = performance.now();
    const skipped = step.skipIf !== undefined && (await conn.query(step.skipIf)).rows.length > 0;
    if (!skipped) await runStep(conn, migration.id, step);
    options.onStep?.({ migration: migration.id, name: step.name, ms: performance.now() - started, skipped });
  }
  await conn.query(`INSERT INTO schema_migrations (id) VALUES ($1)`, [migration.id]);
}

async function runStep(conn: SqlQueryable, migrationId: string, step: MigrationStep): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await conn.exec(step.sql);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== undefined && LOCK_FAILURES.has(code) && attempt < STEP_ATTEMPTS) {
        if (step.beforeRetry) await conn.exec(step.beforeRetry);
        continue;
      }
      throw Object.assign(new Error(`migration ${migrationId}, step "${step.name}": ${(error as Error).message}`, { cause: error }), { code });
    }
  }
}

async function isApplied(q: SqlQueryable, id: string): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM schema_migrations WHERE id = $1`, [id]);
  return rows.length > 0;
}

export interface ConcurrentIndex {
  name: string;
  unique?: boolean;
  /** What follows ON: `contacts (workspace_id, id)`. */
  on: string;
  /** A query that returns a row once the index is no longer needed under this name (a later step made it a constraint). */
  doneIf?: string;
}

/**
 * The steps that build an index without blocking writes, re-runnably: a build that failed (a
 * duplicate, a cancel) leaves an INVALID index behind, which the first step drops; a valid one is
 * kept. Both are skipped once `doneIf` returns a row.
 */
export function concurrentIndexSteps(index: ConcurrentIndex): MigrationStep[] {
  const valid = `SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${index.name}') AND indisvalid`;
  const done = index.doneIf ? ` UNION ALL ${index.doneIf}` : '';
  return [
    {
      name: `drop invalid ${index.name}`,
      sql: `DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`,
      skipIf: `SELECT 1 WHERE to_regclass('${index.name}') IS NULL UNION ALL ${valid}${done}`,
    },
    {
      name: `build ${index.name}`,
      sql: `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY ${index.name} ON ${index.on}`,
      skipIf: `${valid}${done}`,
      // A build that deadlocked leaves its INVALID index: without this, the retry fails on the name.
      beforeRetry: `DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`,
    },
  ];
}

/**
 * A `skipIf` query: returns a row when the table has the constraint under this name, as
 * pg_get_constraintdef prints it (`PRIMARY KEY (workspace_id, id)`), and, with `validated`, checked.
 */
export function constraintIs(table: string, name: string, definition: string, options: { validated?: boolean } = {}): string {
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  return (
    `SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass(${quote(table)}) AND conname = ${quote(name)}` +
    ` AND pg_get_constraintdef(oid) = ${quote(definition)}${options.validated ? ' AND convalidated' : ''}`
  );
}

/** The schema is behind the code: a service told not to migrate refuses to start on it. */
export class SchemaNotMigratedError extends Error {
  override readonly name = 'SchemaNotMigratedError';
  constructor(
    readonly schema: string,
    readonly missing: readonly string[],
  ) {
    super(
      `schema "${schema}" is not at the latest migration (missing: ${missing.join(', ')}); ` +
        `DB_MIGRATE=skip: this service does not migrate at start. Run \`crm migrate\` for it with the migration role first ` +
        `(the Kubernetes init container or the compose migrate service does), then start it again`,
    );
  }
}

/**
 * Checks, without changing anything, that every migration this code knows has been applied (what a
 * service running with a role that may not change its schema does instead of migrating). Migrations
 * the database has and this code does not are fine: an older release rolled back onto a newer,
 * backward-compatible schema. Returns the ids applied.
 */
export async function verifyMigrations(db: SqlClient, migrations: readonly Migration[]): Promise<string[]> {
  const { rows: table } = await db.query<{ present: boolean }>(`SELECT to_regclass(format('%I.schema_migrations', $1::text)) IS NOT NULL AS present`, [
    db.schema,
  ]);
  const applied = new Set<string>();
  if (table[0]?.present) {
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM schema_migrations`);
    for (const row of rows) applied.add(row.id);
  }
  const missing = migrations.map((m) => m.id).filter((id) => !applied.has(id));
  if (missing.length) throw new SchemaNotMigratedError(db.schema, missing);
  return [...applied].sort();
}
