import { runMigrations } from '@crm/kit';
import { sqlBackends } from '@crm/kit/testing';
import { migrations } from './migrations';

const BEFORE = migrations.filter((m) => m.id < '010_tenancy_keys');
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** 010_tenancy_keys on a schema that has rows: what the upgrade keeps, and what the new keys refuse. */
describe.each(sqlBackends())('people 010_tenancy_keys on $name', (backend) => {
  test('moves populated tables to (workspace_id, id) keys, keeping every row, and the keys hold afterwards', async () => {
    const { db, drop } = await backend.open('people_tenancy');
    try {
      await runMigrations(db, BEFORE);
      const now = `'2026-11-28T00:00:00Z'`;
      for (const [ws, base] of [
        [A, 0],
        [B, 100],
      ] as const) {
        await db.exec(`
          INSERT INTO organizations (id, workspace_id, name, created_at, updated_at) VALUES ('${id(base + 1)}', '${ws}', 'Org', ${now}, ${now});
          INSERT INTO contacts (id, workspace_id, email, organization_id, created_at, updated_at)
            VALUES ('${id(base + 2)}', '${ws}', 'a@example.com', '${id(base + 1)}', ${now}, ${now}),
                   ('${id(base + 3)}', '${ws}', 'b@example.com', NULL, ${now}, ${now});
          INSERT INTO pools (id, workspace_id, name, created_at, updated_at) VALUES ('${id(base + 4)}', '${ws}', 'Pool', ${now}, ${now});
          INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_at, created_at, updated_at)
            VALUES ('${id(base + 5)}', '${ws}', '${id(base + 4)}', '${id(base + 2)}', ${now}, ${now}, ${now});
        `);
      }
      expect(await runMigrations(db, migrations)).toEqual(['010_tenancy_keys']);

      const { rows: keys } = await db.query<{ table: string; name: string; key: string }>(
        `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS key FROM pg_constraint
          WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u', 'f')
            AND conrelid::regclass::text IN ('contacts', 'organizations', 'pools', 'pool_contacts') ORDER BY 1, 2`,
      );
      expect(keys).toEqual([
        { table: 'contacts', name: 'contacts_organization_fkey', key: 'FOREIGN KEY (workspace_id, organization_id) REFERENCES organizations(workspace_id, id) DEFERRABLE INITIALLY DEFERRED NOT VALID' },
        { table: 'contacts', name: 'contacts_pkey', key: 'PRIMARY KEY (workspace_id, id)' },
        { table: 'organizations', name: 'organizations_pkey', key: 'PRIMARY KEY (workspace_id, id)' },
        { table: 'pool_contacts', name: 'pool_contacts_contact_id_fkey', key: 'FOREIGN KEY (workspace_id, contact_id) REFERENCES contacts(workspace_id, id) DEFERRABLE INITIALLY DEFERRED' },
        { table: 'pool_contacts', name: 'pool_contacts_pkey', key: 'PRIMARY KEY (workspace_id, id)' },
        { table: 'pool_contacts', name: 'pool_contacts_pool_id_contact_id_key', key: 'UNIQUE (workspace_id, pool_id, contact_id)' },
        { table: 'pool_contacts', name: 'pool_contacts_pool_id_fkey', key: 'FOREIGN KEY (workspace_id, pool_id) REFERENCES pools(workspace_id, id) ON DELETE CASCADE' },
        { table: 'pools', name: 'pools_pkey', key: 'PRIMARY KEY (workspace_id, id)' },
      ]);
      // No index of the build is left over; the one led by the contact alone is gone.
      const { rows: indexes } = await db.query<{ name: string }>(
        `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND (indexname LIKE '%_new' OR indexname LIKE 'pool_contacts_%contact_id_idx') ORDER BY 1`,
      );
      expect(indexes).toEqual([{ name: 'pool_contacts_workspace_contact_id_idx' }]);
      const { rows: counts } = await db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM contacts)::int + (SELECT count(*) FROM organizations)::int + (SELECT count(*) FROM pools)::int + (SELECT count(*) FROM pool_contacts)::int AS n`,
      );
      expect(counts[0]!.n).toBe(10);

      // A membership is unique per pool and contact, as the store's ON CONFLICT names it.
      const again = await db.query(
        `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_at, created_at, updated_at)
         VALUES ('${id(50)}', '${A}', '${id(4)}', '${id(2)}', ${now}, ${now}, ${now}) ON CONFLICT (workspace_id, pool_id, contact_id) DO NOTHING RETURNING id`,
      );
      expect(again.rows).toEqual([]);
      // A membership naming another workspace's pool is refused by the key itself now.
      await expect(
        db.query(
          `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_at, created_at, updated_at)
           VALUES ('${id(51)}', '${A}', '${id(104)}', '${id(3)}', ${now}, ${now}, ${now})`,
        ),
      ).rejects.toMatchObject({ code: '23503' });
      // Deleting a pool still removes its memberships, in its workspace only.
      await db.query(`DELETE FROM pools WHERE workspace_id = $1 AND id = $2`, [A, id(4)]);
      const { rows: left } = await db.query<{ workspace_id: string }>(`SELECT workspace_id FROM pool_contacts ORDER BY 1`);
      expect(left).toEqual([{ workspace_id: B }]);
      // A contact with memberships cannot go alone (the deferred key is checked at commit).
      await expect(db.transaction((tx) => tx.query(`DELETE FROM contacts WHERE workspace_id = $1 AND id = $2`, [B, id(102)]))).rejects.toMatchObject({ code: '23503' });

      expect(await runMigrations(db, migrations)).toEqual([]);
    } finally {
      await drop();
    }
  }, 120_000);
});
