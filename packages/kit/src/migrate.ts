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
  await db.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
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
