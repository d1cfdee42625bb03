import type { SqlClient } from './sql';

export interface Migration {
  /** Ordered, never renamed once released: `001_contacts`. */
  id: string;
  sql: string;
}

/**
 * Applies pending migrations in order, each in its own transaction, recording them in the service's
 * schema. Several replicas starting at once are serialised by an advisory lock, so each migration
 * runs exactly once.
 */
export async function runMigrations(db: SqlClient, migrations: readonly Migration[]): Promise<string[]> {
  const ids = migrations.map((m) => m.id);
  if (new Set(ids).size !== ids.length || [...ids].sort().join() !== ids.join()) {
    throw new Error('migration ids must be unique and in order');
  }
  // Under the lock too: two `CREATE TABLE IF NOT EXISTS` at once can both pass the check, and the
  // second fails on the catalog's unique index.
  await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SET LOCAL statement_timeout = 0');
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('crm.migrations'))`);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      // No statement cap here, set before waiting: another service's long migration (an index on a
      // large table) holds the lock, and neither the wait nor this migration may time out.
      if (db.kind === 'postgres') await tx.query('SET LOCAL statement_timeout = 0');
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('crm.migrations'))`);
      const { rows } = await tx.query(`SELECT 1 FROM schema_migrations WHERE id = $1`, [migration.id]);
      if (rows.length) return false;
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO schema_migrations (id) VALUES ($1)`, [migration.id]);
      return true;
    });
    if (ran) applied.push(migration.id);
  }
  return applied;
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
