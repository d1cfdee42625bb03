import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { type Migration, type SqlClient, createPgliteClient, runMigrations } from '@crm/kit';

/**
 * "Tenancy in every key" (DESIGN.md section 1): a context's tables can be distributed by
 * workspace_id only if every key leads with it. Each Postgres context's migrations (every
 * services/<context>/src/migrations.ts) run on a fresh PGlite database, then the catalog is read:
 *
 * - primary key: every table has one, led by workspace_id. A table with an `id` column is keyed
 *   exactly (workspace_id, id); a table without one has a natural key, which must lead with
 *   workspace_id (idempotency_keys' (workspace_id, key), flows' (workspace_id, enrollment_id,
 *   sent_email_id, kind));
 * - unique: every unique index, whether it backs a constraint or not, partial or not, has
 *   workspace_id as its first column (an expression in first place fails);
 * - foreign key: workspace_id is the first column on both sides.
 *
 * Exceptions only through ALLOWED, each with its reason.
 */
const ALLOWED: Record<string, string> = {
  // The migration runner's bookkeeping: one row per migration id, not per tenant.
  schema_migrations: 'keyed by migration id',
  // The relay's queue (kit/events/outbox.ts): rows of every workspace, keyed by the event's UUIDv7
  // (its Nats-Msg-Id), read in order and deleted once published; nothing is kept there to distribute.
  outbox: 'keyed by event id across workspaces',
};

const REPO = path.resolve(__dirname, '../..');

function contexts(): { name: string; file: string }[] {
  const services = path.join(REPO, 'services');
  return readdirSync(services)
    .map((name) => ({ name, file: path.join(services, name, 'src', 'migrations.ts') }))
    .filter(({ file }) => statSync(file, { throwIfNoEntry: false })?.isFile());
}

interface Key {
  table: string;
  name: string;
  kind: 'primary' | 'unique' | 'foreign';
  columns: (string | null)[];
  /** A foreign key's referenced table and columns. */
  references?: { table: string; columns: (string | null)[] };
}

async function keysOf(db: SqlClient): Promise<{ tables: { table: string; hasId: boolean }[]; keys: Key[] }> {
  const { rows: tables } = await db.query<{ table: string; hasId: boolean }>(
    `SELECT c.relname AS table,
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'id' AND NOT a.attisdropped) AS "hasId"
       FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      ORDER BY 1`,
  );
  // Unique indexes, the primary key's among them; an expression's position reads as null.
  const { rows: indexes } = await db.query<{ table: string; name: string; primary: boolean; columns: (string | null)[] }>(
    `SELECT t.relname AS table, i.relname AS name, x.indisprimary AS primary,
            array_agg(a.attname ORDER BY k.ord) AS columns
       FROM pg_index x
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_class i ON i.oid = x.indexrelid
       CROSS JOIN LATERAL unnest(x.indkey[0:x.indnkeyatts - 1]) WITH ORDINALITY AS k(attnum, ord)
       LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE x.indisunique AND t.relnamespace = current_schema()::regnamespace
      GROUP BY t.relname, i.relname, x.indisprimary`,
  );
  const { rows: foreign } = await db.query<{ table: string; name: string; columns: string[]; referenced: string; referencedColumns: string[] }>(
    `SELECT t.relname AS table, f.conname AS name, r.relname AS referenced,
            ARRAY(SELECT a.attname FROM unnest(f.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
            ARRAY(SELECT a.attname FROM unnest(f.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.n ORDER BY k.o) AS "referencedColumns"
       FROM pg_constraint f
       JOIN pg_class t ON t.oid = f.conrelid
       JOIN pg_class r ON r.oid = f.confrelid
      WHERE f.contype = 'f' AND t.relnamespace = current_schema()::regnamespace`,
  );
  return {
    tables,
    keys: [
      ...indexes.map((x): Key => ({ table: x.table, name: x.name, kind: x.primary ? 'primary' : 'unique', columns: x.columns })),
      ...foreign.map((f): Key => ({ table: f.table, name: f.name, kind: 'foreign', columns: f.columns, references: { table: f.referenced, columns: f.referencedColumns } })),
    ],
  };
}

/** What breaks the rule in one context's schema, one line each. */
async function tenancyKeyProblems(db: SqlClient, context: string): Promise<string[]> {
  const { tables, keys } = await keysOf(db);
  const problems: string[] = [];
  const show = (columns: (string | null)[]) => `(${columns.map((c) => c ?? '<expression>').join(', ')})`;
  for (const { table, hasId } of tables) {
    if (Object.hasOwn(ALLOWED, table)) continue;
    const where = `${context}.${table}`;
    const primary = keys.find((k) => k.table === table && k.kind === 'primary');
    if (!primary) problems.push(`${where} has no primary key`);
    else if (hasId ? show(primary.columns) !== '(workspace_id, id)' : primary.columns[0] !== 'workspace_id') {
      problems.push(`${where}: primary key ${primary.name} is ${show(primary.columns)}, not ${hasId ? '(workspace_id, id)' : 'led by workspace_id'}`);
    }
    for (const key of keys.filter((k) => k.table === table && k.kind !== 'primary')) {
      if (key.kind === 'unique' && key.columns[0] !== 'workspace_id') problems.push(`${where}: unique index ${key.name} ${show(key.columns)} does not lead with workspace_id`);
      if (key.kind === 'foreign' && (key.columns[0] !== 'workspace_id' || key.references?.columns[0] !== 'workspace_id')) {
        problems.push(`${where}: foreign key ${key.name} ${show(key.columns)} → ${key.references?.table} ${show(key.references?.columns ?? [])} does not lead with workspace_id on both sides`);
      }
    }
  }
  return problems;
}

test.each(contexts())('every key of $name leads with workspace_id', async ({ name, file }) => {
  const { migrations } = require(file) as { migrations: Migration[] };
  const db = await createPgliteClient({ schema: name });
  try {
    await runMigrations(db, migrations);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`);
    expect(rows[0]!.n).toBeGreaterThan(Object.keys(ALLOWED).length);
    expect(await tenancyKeyProblems(db, name)).toEqual([]);
  } finally {
    await db.close();
  }
}, 60_000);

test('the check finds a key that does not lead with workspace_id', async () => {
  const db = await createPgliteClient({ schema: 'probe' });
  try {
    await db.exec(`
      CREATE TABLE parents (id uuid PRIMARY KEY, workspace_id uuid NOT NULL, email text, UNIQUE (workspace_id, id));
      CREATE UNIQUE INDEX parents_email_key ON parents (lower(email));
      CREATE TABLE children (workspace_id uuid NOT NULL, id uuid NOT NULL, parent_id uuid REFERENCES parents (id), PRIMARY KEY (workspace_id, id));
      CREATE TABLE natural_keys (workspace_id uuid NOT NULL, key text NOT NULL, PRIMARY KEY (key, workspace_id));
      CREATE TABLE keyless (workspace_id uuid NOT NULL);
    `);
    expect((await tenancyKeyProblems(db, 'probe')).sort()).toEqual([
      'probe.children: foreign key children_parent_id_fkey (parent_id) → parents (id) does not lead with workspace_id on both sides',
      'probe.keyless has no primary key',
      'probe.natural_keys: primary key natural_keys_pkey is (key, workspace_id), not led by workspace_id',
      'probe.parents: primary key parents_pkey is (id), not (workspace_id, id)',
      'probe.parents: unique index parents_email_key (<expression>) does not lead with workspace_id',
    ]);
  } finally {
    await db.close();
  }
}, 60_000);
