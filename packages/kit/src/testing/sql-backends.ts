import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { type SqlClient, createPgClient, createPgliteClient } from '../sql';
import { TEST_DATABASE_URL, serviceAvailable } from './reachability';

export interface SqlBackend {
  name: 'pglite' | 'postgres';
  /** A client on a fresh schema of its own; `drop` removes it. */
  open(prefix: string): Promise<{ db: SqlClient; drop(): Promise<void> }>;
}

const pglite: SqlBackend = {
  name: 'pglite',
  async open(prefix) {
    const db = await createPgliteClient({ schema: prefix });
    return { db, drop: () => db.close() };
  },
};

const postgres: SqlBackend = {
  name: 'postgres',
  async open(prefix) {
    const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
    const db = await createPgClient({ url: TEST_DATABASE_URL, schema, max: 4 });
    return {
      db,
      async drop() {
        await db.close();
        const admin = new Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      },
    };
  },
};

/** PGlite always; this machine's Postgres when it answers (each test file gets its own schema). */
export function sqlBackends(): SqlBackend[] {
  return serviceAvailable('Postgres', TEST_DATABASE_URL) ? [pglite, postgres] : [pglite];
}
