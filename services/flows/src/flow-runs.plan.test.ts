import { flowRuns } from '@crm/flows-contract';
import { type SqlClient, compileListQuery, newId, parseListQuery, runMigrations, selectColumns } from '@crm/kit';
import { sqlBackends } from '../../../packages/kit/src/testing/sql-backends';
import { migrations } from './migrations';

/**
 * Flow runs are enrollments under another name for enrolled_at (`started_at`, declared sameAs) and
 * have no indexes of their own on it: each list is planned on enrolled_at's indexes, the partial
 * ones included (migration 006).
 */
describe.each(sqlBackends())('flow runs lists on $name', (backend) => {
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
    for (const id of [flowId, otherFlowId]) {
      await db.query(
        `INSERT INTO flows (workspace_id, id, name, status, nodes, edges, created_at, updated_at) VALUES ($1::uuid, $2::uuid, 'f', 'active', '[]', '[]', $3, $3)`,
        [workspaceId, id, at],
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
    await db.query('ANALYZE enrollments');
  });
  afterAll(async () => drop());

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
    ['the default order', () => ({}), 'enrollments_enrolled_at_idx'],
    ['sort=started_at', () => ({ sort: 'started_at' }), 'enrollments_enrolled_at_idx'],
    ['since and until', () => ({ since: '2026-11-01T00:10:00Z', until: '2026-11-01T00:20:00Z' }), 'enrollments_enrolled_at_idx'],
    ['flow_id', () => ({ flow_id: flowId }), 'enrollments_flow_id_idx'],
    ['status', () => ({ status: 'exited' }), 'enrollments_status_enrolled_at_idx'],
    ['exit_reason', () => ({ exit_reason: 'replied' }), 'enrollments_exit_reason_idx'],
    ['enrolled_by', () => ({ enrolled_by: userId }), 'enrollments_enrolled_by_idx'],
  ])('%s is read on %s', async (_name, raw, index) => {
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
