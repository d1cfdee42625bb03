import { performance } from 'node:perf_hooks';
import type { SqlClient } from '@crm/kit';
import { log } from './bench-stack';

/**
 * Contacts `First<n> Last<n % 997> <c<n>@bench.example>` for n = 1..count in one workspace of a
 * people schema, and pools of the ranges asked for (`{name: [from, to]}`, inclusive), in SQL only.
 * Returns each pool's id by name.
 */
export async function seedContacts(db: SqlClient, workspaceId: string, count: number, pools: Record<string, [number, number]>): Promise<Record<string, string>> {
  const started = performance.now();
  const ids: Record<string, string> = {};
  // One transaction: one connection, which the temporary table belongs to.
  await db.transaction(async (tx) => {
    await tx.query(`CREATE TEMP TABLE seed ON COMMIT DROP AS SELECT n, gen_random_uuid() AS id FROM generate_series(1, ${count}) AS n`);
    await tx.query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, email, created_at, updated_at)
       SELECT id, $1::uuid, 'First' || n, 'Last' || (n % 997), 'c' || n || '@bench.example', now(), now() FROM seed`,
      [workspaceId],
    );
    for (const [name, [from, to]] of Object.entries(pools)) {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO pools (id, workspace_id, name, visibility, contacts_count, created_at, updated_at)
         VALUES (gen_random_uuid(), $1::uuid, $2, 'workspace', $3, now(), now()) RETURNING id`,
        [workspaceId, `bench ${name}`, to - from + 1],
      );
      ids[name] = rows[0]!.id;
      await tx.query(
        `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_at, created_at, updated_at)
         SELECT gen_random_uuid(), $1::uuid, $2::uuid, id, now(), now(), now() FROM seed WHERE n BETWEEN $3 AND $4`,
        [workspaceId, ids[name], from, to],
      );
    }
  });
  await db.query(`ANALYZE contacts`);
  await db.query(`ANALYZE pool_contacts`);
  log(`seeded ${count.toLocaleString('en')} contacts and ${Object.keys(pools).length} pools in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return ids;
}
