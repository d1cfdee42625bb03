import { flowRuns } from '@crm/flows-contract';
import { type SqlClient, compileListQuery, newId, parseListQuery, runMigrations, selectColumns } from '@crm/kit';
import { sqlBackends } from '@crm/kit/testing';
import { CLAIM_DUE_SQL } from './engine/flow-engine';
import { RESUME_DUE_SQL } from './engine/out-of-office';
import { migrations } from './migrations';

/**
 * The plans that keep enrollments fast at scale. Flow runs are enrollments under another name for
 * enrolled_at (`started_at`, declared sameAs) and have no indexes of their own on it: each list is
 * planned on enrolled_at's indexes, the partial ones included (migration 006). The engine's claim
 * is a seek on the due index, never a sort of everything due.
 */
describe.each(sqlBackends())('enrollment plans on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const workspaceId = newId();
  const flowId = newId();
  const otherFlowId = newId();
  const userId = newId();

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_flow_runs_plan'));
    await runMigrations(db, migrations);
    const at = '2026-11-01T00:00:00Z';
    // One active flow among four, as the benchmark has when the engine is measured.
    for (const [id, status] of [[flowId, 'paused'], [otherFlowId, 'active'], [newId(), 'draft'], [newId(), 'archived']]) {
      await db.query(
        `INSERT INTO flows (workspace_id, id, name, status, nodes, edges, created_at, updated_at) VALUES ($1::uuid, $2::uuid, 'f', $3, '[]', '[]', $4, $4)`,
        [workspaceId, id, status, at],
      );
    }
    // 2,000 runs, one in twenty in the flow the test filters on, one in twenty exited, one in ten
    // enrolled by a user.
    await db.query(
      `INSERT INTO enrollments (workspace_id, id, flow_id, contact_id, status, exit_reason, enrolled_by, enrolled_at, started_at, created_at, updated_at)
       SELECT $1::uuid, gen_random_uuid(), CASE WHEN g % 20 = 1 THEN $2::uuid ELSE $5::uuid END, gen_random_uuid(),
              CASE WHEN g % 20 = 0 THEN 'exited' ELSE 'completed' END, CASE WHEN g % 20 = 0 THEN 'replied' END,
              CASE WHEN g % 10 = 0 THEN $3::uuid END, t, t, t, t
         FROM generate_series(1, 2000) g, LATERAL (SELECT $4::timestamptz + g * interval '1 second' AS t) s`,
      [workspaceId, flowId, userId, at, otherFlowId],
    );
    // 20,000 due in the other flow, for the engine's claim.
    await db.query(
      `INSERT INTO enrollments (workspace_id, id, flow_id, contact_id, status, next_run_at, enrolled_at, started_at, created_at, updated_at)
       SELECT $1::uuid, gen_random_uuid(), $2::uuid, gen_random_uuid(), 'active', t, t, t, t, t
         FROM generate_series(1, 20000) g, LATERAL (SELECT $3::timestamptz - g * interval '1 second' AS t) s`,
      [workspaceId, otherFlowId, at],
    );
    await db.query('ANALYZE enrollments');
  });
  afterAll(async () => drop());

  test("the engine's claim seeks the due index and sorts nothing", async () => {
    const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${CLAIM_DUE_SQL}`, ['2026-11-02T00:00:00Z', 200]);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan using enrollments_due_idx/);
    expect(plan).not.toMatch(/Sort/);
  });

  test("the engine's resumes seek the resume index, whatever else is due", async () => {
    const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${RESUME_DUE_SQL}`, ['2026-11-02T00:00:00Z', 200]);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan using enrollments_resume_idx/);
    expect(plan).not.toMatch(/Seq Scan on enrollments/);
  });

  /** The indexes the planner reads for this list's first page, sequential scans ruled out. */
  async function indexesOf(raw: Record<string, string>): Promise<string[]> {
    const query = parseListQuery(flowRuns, raw);
    const { text, params } = compileListQuery(flowRuns, selectColumns(flowRuns), workspaceId, query, undefined);
    expect(text).not.toMatch(/started_at (=|>|<|ASC|DESC)/);
    return db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      await tx.query('SET LOCAL enable_bitmapscan = off');
      const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
      return rows.flatMap((r) => [...r['QUERY PLAN'].matchAll(/Index (?:Only )?Scan(?: Backward)? using (\w+)/g)].map((m) => m[1]!));
    });
  }

  test.each([
    ['the default order', 'enrollments_enrolled_at_idx', () => ({})],
    ['sort=started_at', 'enrollments_enrolled_at_idx', () => ({ sort: 'started_at' })],
    ['since and until', 'enrollments_enrolled_at_idx', () => ({ since: '2026-11-01T00:10:00Z', until: '2026-11-01T00:20:00Z' })],
    ['flow_id', 'enrollments_flow_id_idx', () => ({ flow_id: flowId })],
    ['status', 'enrollments_status_enrolled_at_idx', () => ({ status: 'exited' })],
    ['exit_reason', 'enrollments_exit_reason_idx', () => ({ exit_reason: 'replied' })],
    ['enrolled_by', 'enrollments_enrolled_by_idx', () => ({ enrolled_by: userId })],
  ])('%s is read on %s', async (_name, index, raw) => {
    expect(await indexesOf(raw())).toEqual([index]);
  });

  test('the pages are the runs in started_at order', async () => {
    const query = parseListQuery(flowRuns, { exit_reason: 'replied', limit: '100' });
    const { text, params } = compileListQuery(flowRuns, selectColumns(flowRuns), workspaceId, query, undefined);
    const { rows } = await db.query<{ started_at: Date; enrolled_at: Date; exit_reason: string }>(text, params);
    expect(rows).toHaveLength(100); // the 100 exited runs, and the one past the page it asked for is none
    expect(rows.every((r) => r.exit_reason === 'replied' && String(r.started_at) === String(r.enrolled_at))).toBe(true);
    const times = rows.map((r) => new Date(r.started_at).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
