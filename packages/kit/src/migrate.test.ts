import { type Migration, concurrentIndexSteps, constraintIs, runMigrations } from './migrate';
import { createPgClient } from './sql';
import { TEST_DATABASE_URL } from './testing/reachability';
import { sqlBackends } from './testing/sql-backends';

const TABLE: Migration = { id: '001_items', sql: `CREATE TABLE items (id int PRIMARY KEY, workspace_id int NOT NULL, code text)` };

/** 002 moves items' key to (workspace_id, id) the way the services' tenancy migrations do. */
const SWAP: Migration = {
  id: '002_items_key',
  transaction: false,
  steps: [
    ...concurrentIndexSteps({ name: 'items_pkey_new', unique: true, on: 'items (workspace_id, id)', doneIf: constraintIs('items', 'items_pkey', 'PRIMARY KEY (workspace_id, id)') }),
    ...concurrentIndexSteps({ name: 'items_code_key', unique: true, on: 'items (workspace_id, code)' }),
    {
      name: 'swap items_pkey',
      skipIf: constraintIs('items', 'items_pkey', 'PRIMARY KEY (workspace_id, id)'),
      sql: `ALTER TABLE items DROP CONSTRAINT items_pkey, ADD CONSTRAINT items_pkey PRIMARY KEY USING INDEX items_pkey_new`,
    },
  ],
};

describe.each(sqlBackends())('step migrations on $name', (backend) => {
  test('run outside a transaction, step by step, once; CREATE INDEX CONCURRENTLY included', async () => {
    const { db, drop } = await backend.open('migrate_steps');
    try {
      const steps: string[] = [];
      const applied = await runMigrations(db, [TABLE, SWAP], { onStep: (step) => steps.push(`${step.name}${step.skipped ? ' (skipped)' : ''}`) });
      expect(applied).toEqual(['001_items', '002_items_key']);
      // On an empty table nothing was left over to drop.
      expect(steps).toEqual([
        'drop invalid items_pkey_new (skipped)',
        'build items_pkey_new',
        'drop invalid items_code_key (skipped)',
        'build items_code_key',
        'swap items_pkey',
      ]);
      const { rows } = await db.query<{ def: string }>(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'items_pkey'`);
      expect(rows).toEqual([{ def: 'PRIMARY KEY (workspace_id, id)' }]);
      expect(await runMigrations(db, [TABLE, SWAP])).toEqual([]);
    } finally {
      await drop();
    }
  }, 60_000);

  test('a build that failed leaves an invalid index, which the next run drops and builds again', async () => {
    const { db, drop } = await backend.open('migrate_invalid');
    try {
      await runMigrations(db, [TABLE]);
      await db.query(`INSERT INTO items (id, workspace_id, code) VALUES (1, 1, 'a'), (2, 1, 'a')`);
      await expect(runMigrations(db, [TABLE, SWAP])).rejects.toThrow(/migration 002_items_key, step "build items_code_key": could not create unique index/);
      const validity = () => db.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('items_code_key')`);
      expect((await validity()).rows).toEqual([{ valid: false }]);
      const { rows: recorded } = await db.query(`SELECT 1 FROM schema_migrations WHERE id = '002_items_key'`);
      expect(recorded).toEqual([]);

      await db.query(`UPDATE items SET code = 'b' WHERE id = 2`);
      const steps: string[] = [];
      expect(await runMigrations(db, [TABLE, SWAP], { onStep: (step) => steps.push(`${step.name}${step.skipped ? ' (skipped)' : ''}`) })).toEqual(['002_items_key']);
      // The valid index the first run built is kept; the invalid one is dropped and built again.
      expect(steps).toEqual([
        'drop invalid items_pkey_new (skipped)',
        'build items_pkey_new (skipped)',
        'drop invalid items_code_key',
        'build items_code_key',
        'swap items_pkey',
      ]);
      expect((await validity()).rows).toEqual([{ valid: true }]);
    } finally {
      await drop();
    }
  }, 60_000);

  test('several runs at once (replicas starting together): each migration runs once', async () => {
    const { db, drop } = await backend.open('migrate_race');
    // On Postgres, replicas: clients of their own on the one schema, serialised by the advisory
    // lock. PGlite has one session, which a process's runs share.
    const replicas =
      backend.name === 'postgres' ? [db, ...(await Promise.all([1, 2].map(() => createPgClient({ url: TEST_DATABASE_URL, schema: db.schema, max: 2 }))))] : [db, db, db];
    try {
      const runs = await Promise.all(replicas.map((replica) => runMigrations(replica, [TABLE, SWAP])));
      expect(runs.flat().sort()).toEqual(['001_items', '002_items_key']);
    } finally {
      await Promise.all(replicas.filter((replica) => replica !== db).map((replica) => replica.close()));
      await drop();
    }
  }, 60_000);

  test('a build that deadlocks is tried again after its invalid index is dropped', async () => {
    const { db, drop } = await backend.open('migrate_deadlock');
    // The first build of items_code_key succeeds and is then made what a deadlocked build leaves (an
    // INVALID index), and it fails as Postgres fails a deadlock victim (40P01).
    let failed = false;
    const deadlockOnce: typeof db = Object.assign(Object.create(db) as typeof db, {
      session: <T>(fn: (conn: Parameters<Parameters<typeof db.session>[0]>[0]) => Promise<T>) =>
        db.session((conn) =>
          fn({
            query: conn.query.bind(conn),
            exec: async (script: string) => {
              await conn.exec(script);
              if (failed || !script.startsWith('CREATE UNIQUE INDEX CONCURRENTLY items_code_key')) return;
              failed = true;
              await conn.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass('items_code_key')`);
              throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
            },
          }),
        ),
    });
    try {
      expect(await runMigrations(deadlockOnce, [TABLE, SWAP])).toEqual(['001_items', '002_items_key']);
      expect(failed).toBe(true);
      const { rows } = await db.query<{ valid: boolean }>(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('items_code_key')`);
      expect(rows).toEqual([{ valid: true }]);
    } finally {
      await drop();
    }
  }, 60_000);

  test('a step migration without steps is refused', async () => {
    const { db, drop } = await backend.open('migrate_empty');
    try {
      await expect(runMigrations(db, [{ id: '001_nothing', transaction: false, steps: [] }])).rejects.toThrow('migration 001_nothing: a step migration has transaction: false and steps');
    } finally {
      await drop();
    }
  }, 60_000);
});
