/**
 * People list and membership benchmark (`npm run bench:people`; method and figures in README.md).
 *
 * Seeds one workspace of a dedicated Postgres schema with a million contacts (reused across runs
 * while the seed version and the bench's directory data are unchanged; `--reseed` forces a new
 * one), starts the directory, every service and the gateway as separate `crm start` processes,
 * checks with EXPLAIN that every measured list is an index seek, then measures p50/p99 latency and
 * throughput over HTTP at 10 concurrent clients.
 *
 * Environment: DATABASE_URL (default this machine's `test` database), BENCH_SCHEMA (default
 * bench_people), BENCH_REQUESTS (measured requests per list scenario, default 1000), and every
 * RATE_LIMIT_* variable, passed to the gateway (default: limits raised out of the way).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  type ListQuery,
  type ResourceSpec,
  type SqlClient,
  SEARCH_WALK,
  SEARCH_WALK_FROM_TABLE,
  compileListQuery,
  compileSearchWalk,
  compileSearchWindow,
  createCursorCodec,
  createPgClient,
  isShortSearch,
  parseListQuery,
  positionOf,
  queryFingerprint,
  queryIdentity,
  runMigrations,
  searchWindowApplies,
  selectColumns,
} from '@crm/kit';
import { contacts, poolContacts } from '@crm/people-contract';
import { migrations } from '@crm/people';
import { REPO_ROOT, runCrmJson } from '../support/processes';
import { DATABASE_URL, type LoadResponse, type LoadResult, benchRequest, log, measureLoad, startBenchStack } from './bench-stack';
import { SEED_SIZES, SEED_VERSION, seedPeople } from './people-seed';

const SCHEMA = process.env.BENCH_SCHEMA || 'bench_people';
const REQUESTS = Number(process.env.BENCH_REQUESTS || 1000);
const BULK_REQUESTS = Number(process.env.BENCH_BULK_REQUESTS || 200);
const CLIENTS = Number(process.env.BENCH_CLIENTS || 10);
/** Runs only the scenarios whose name matches (e.g. `BENCH_ONLY=last_name|bulk`), for quick checks. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
const selected = (name: string) => !ONLY || ONLY.test(name);
const DEEP = 500_000;
const STATE_DIR = path.join(REPO_ROOT, 'test/bench/.data');
const STATE_FILE = path.join(STATE_DIR, 'state.json');
const RESULTS_FILE = path.join(STATE_DIR, 'people-results.md');
const reseed = process.argv.includes('--reseed');

interface State {
  seedVersion: number;
  schema: string;
  workspaceId: string;
  key: string;
  bigPoolId: string;
  ownerIds: string[];
  secrets: { CURSOR_SECRET: string; SECRETS_KEY: string; KEY_PEPPER: string };
}


// ---------------------------------------------------------------------------------------------
// Processes

async function startProcesses(secrets: State['secrets']): Promise<{ baseUrl: string; directoryAddr: string; stop(): Promise<void> }> {
  const stack = await startBenchStack({ secrets, dataDir: STATE_DIR, schemaOf: (name) => (name === 'people' ? SCHEMA : `bench_${name}`) });
  return { baseUrl: stack.baseUrl, directoryAddr: stack.addresses.directory!, stop: stack.stop };
}

// ---------------------------------------------------------------------------------------------
// Seed

async function seedIsCurrent(db: SqlClient, state: State | undefined): Promise<boolean> {
  if (!state || state.seedVersion !== SEED_VERSION || state.schema !== SCHEMA) return false;
  const { rows } = await db.query<{ found: string | null }>(`SELECT to_regclass('bench_meta')::text AS found`);
  if (!rows[0]?.found) return false;
  const meta = await db.query<{ workspace_id: string; seed_version: number }>(`SELECT workspace_id, seed_version FROM bench_meta`);
  return meta.rows[0]?.workspace_id === state.workspaceId && meta.rows[0]?.seed_version === SEED_VERSION;
}

async function prepare(): Promise<State> {
  mkdirSync(STATE_DIR, { recursive: true });
  const previous: State | undefined = existsSync(STATE_FILE) ? JSON.parse(readFileSync(STATE_FILE, 'utf8')) : undefined;
  const db = await createPgClient({ url: DATABASE_URL, schema: SCHEMA, max: 1, applicationName: 'crm-bench-seed' });
  try {
    if (!reseed && (await seedIsCurrent(db, previous))) {
      await runMigrations(db, migrations);
      log(`reusing the seeded schema ${SCHEMA} (workspace ${previous!.workspaceId}); --reseed to rebuild it`);
      return previous!;
    }
    const secrets = previous?.secrets ?? {
      CURSOR_SECRET: randomBytes(32).toString('base64'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      KEY_PEPPER: randomBytes(16).toString('hex'),
    };
    // Migrated here, before any service starts: the services would otherwise migrate the old
    // schema (index builds over a million rows) at start-up.
    await db.exec(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
    await runMigrations(db, migrations);
    // A workspace and a key from the bench's own directory (its data persists in .data).
    const stack = await startProcesses(secrets);
    let workspaceId: string;
    let key: string;
    try {
      const adminEnv = { DIRECTORY_ADDR: stack.directoryAddr };
      workspaceId = (await runCrmJson<{ id: string }>(['admin', 'workspace', 'create', '--name', 'Bench'], adminEnv)).id;
      key = (await runCrmJson<{ key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', '*'], adminEnv)).key;
    } finally {
      await stack.stop();
    }
    log(`seeding ${SCHEMA} for workspace ${workspaceId}`);
    const seeded = await seedPeople(db, workspaceId, log);
    await db.exec(`CREATE TABLE bench_meta (workspace_id uuid NOT NULL, seed_version int NOT NULL)`);
    await db.query(`INSERT INTO bench_meta VALUES ($1, $2)`, [workspaceId, SEED_VERSION]);
    log(`seeded in ${seeded.seconds.toFixed(0)} s`);
    const state: State = {
      seedVersion: SEED_VERSION,
      schema: SCHEMA,
      workspaceId,
      key,
      bigPoolId: seeded.bigPoolId,
      ownerIds: seeded.ownerIds,
      secrets,
    };
    writeFileSync(STATE_FILE, JSON.stringify(state, null, 2), { mode: 0o600 });
    return state;
  } finally {
    await db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Queries: the list queries measured, their deep cursors and their plans

interface ListCase {
  name: string;
  spec: ResourceSpec;
  params: Record<string, string>;
  /** Rows before the deep page; the deepest page the query has when it holds fewer rows. */
  depth?: number;
}

/** The API's cursor for the page that starts after `depth` rows, minted with the service's secret. */
async function deepCursors(db: SqlClient, state: State, c: ListCase, count: number): Promise<{ cursors: string[]; depth: number; firstIds: string[] }> {
  const query = parseListQuery(c.spec, { ...c.params, limit: '50' });
  const codec = createCursorCodec(state.secrets.CURSOR_SECRET);
  const fingerprint = queryFingerprint(queryIdentity(c.spec, state.workspaceId, query));
  // The list's filters (equalities only in these cases), and its order, nulls last.
  const params: unknown[] = [state.workspaceId, ...query.filters.map((f) => f.value)];
  const where = ['workspace_id = $1::uuid', ...query.filters.map((f, i) => `${f.field} = $${i + 2}`)].join(' AND ');
  const order = query.sort.map((s) => `${s.field} ${s.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`).join(', ');
  const idDir = query.sort[0]!.direction === 'asc' ? 'ASC' : 'DESC';
  const { rows: total } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${c.spec.table} WHERE ${where}`, params);
  const available = total[0]!.n;
  const depth = Math.min(c.depth ?? DEEP, Math.max(0, available - 50 - count * 10));
  const positions = Array.from({ length: count }, (_, i) => depth + i * 10);
  const fields = query.sort.map((s) => s.field).join(', ');
  const { rows } = await db.query<Record<string, unknown> & { rn: number }>(
    `SELECT * FROM (SELECT ${fields}, id, row_number() OVER (ORDER BY ${order}, id ${idDir}) AS rn FROM ${c.spec.table} WHERE ${where}) AS ranked
      WHERE rn = ANY($${params.length + 1}::int[]) ORDER BY rn`,
    [...params, [...positions, ...positions.map((p) => p + 1)]],
  );
  const byRow = new Map(rows.map((r) => [Number(r.rn), r]));
  const cursors = positions.map((p) => codec.encode(fingerprint, positionOf(query, byRow.get(p)!)));
  return { cursors, depth, firstIds: positions.map((p) => String(byRow.get(p + 1)!.id)) };
}

interface PlanSummary {
  nodes: string[];
  rowsRead: number;
  ms: number;
  seek: boolean;
}

/** EXPLAIN ANALYZE of the exact SQL the service runs for a page; a seek reads about a page of rows. */
async function explain(db: SqlClient, state: State, spec: ResourceSpec, query: ListQuery, cursor: string | undefined): Promise<PlanSummary> {
  const codec = createCursorCodec(state.secrets.CURSOR_SECRET);
  const position = cursor ? codec.decode(queryFingerprint(queryIdentity(spec, state.workspaceId, query)), cursor) : undefined;
  // The statement the service runs first: a short term's walk, else a search's window where it
  // applies (kit compileSearchWalk, compileSearchWindow).
  const walkSize = searchWindowApplies(spec, query) ? SEARCH_WALK : SEARCH_WALK_FROM_TABLE;
  const { text, params } =
    query.q && isShortSearch(query.q)
      ? compileSearchWalk(spec, selectColumns(spec), state.workspaceId, query, position, walkSize)
      : (compileSearchWindow(spec, selectColumns(spec), state.workspaceId, query, position) ??
        compileListQuery(spec, selectColumns(spec), state.workspaceId, query, position));
  const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params);
  const plan = (rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }])[0];
  const nodes: string[] = [];
  let rowsRead = 0;
  let seek = true;
  const walk = (node: PlanNode) => {
    const type = node['Node Type'];
    if (/Scan/.test(type) && type !== 'Subquery Scan') {
      nodes.push(`${type}${node['Index Name'] ? ` ${node['Index Name']}` : ''}`);
      rowsRead += (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1);
      if (type === 'Seq Scan') seek = false;
    }
    if (type === 'Sort' && node.Plans?.some((child) => child['Actual Rows'] > query.limit * 4)) seek = false;
    node.Plans?.forEach(walk);
  };
  walk(plan.Plan);
  if (rowsRead > query.limit * 4 + 10) seek = false;
  return { nodes, rowsRead, ms: plan['Execution Time'], seek };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

// ---------------------------------------------------------------------------------------------
// Load

type Result = LoadResult;

const measure = (name: string, total: number, request: (i: number, client: number) => Promise<LoadResponse>, expectStatus = 200, warmup = 30): Promise<Result> =>
  measureLoad(name, { total, clients: CLIENTS, warmup, expectStatus }, request);

async function main(): Promise<void> {
  const state = await prepare();
  const db = await createPgClient({ url: DATABASE_URL, schema: SCHEMA, max: 2, applicationName: 'crm-bench' });
  const stack = await startProcesses(state.secrets);
  const results: Result[] = [];
  const plans: string[] = [];
  const ratios: string[] = [];
  const benchPools: string[] = [];
  const auth = { authorization: `Bearer ${state.key}` };
  const get = (pathAndQuery: string) => benchRequest(`${stack.baseUrl}${pathAndQuery}`, { headers: auth });
  try {
    const probe = await get('/v1/contacts?limit=1');
    if (probe.status !== 200) throw new Error(`the bench key does not work (HTTP ${probe.status}); run with --reseed`);
    // The most populated owner × country pair: the filter case with the deepest pages.
    const { rows: pair } = await db.query<{ owner_id: string; country: string; n: number }>(
      `SELECT owner_id, country, count(*)::int AS n FROM contacts WHERE workspace_id = $1 AND owner_id IS NOT NULL AND country IS NOT NULL
        GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1`,
      [state.workspaceId],
    );
    const { owner_id: ownerId, country } = pair[0]!;
    const cases: ListCase[] = [
      { name: 'contacts, default sort (-created_at)', spec: contacts, params: {} },
      { name: 'contacts, sort=last_name', spec: contacts, params: { sort: 'last_name' } },
      { name: 'contacts, sort=-last_engagement_at', spec: contacts, params: { sort: '-last_engagement_at' } },
      { name: `contacts, owner_id & country=${country} (${pair[0]!.n} rows)`, spec: contacts, params: { owner_id: ownerId, country }, depth: Math.floor(pair[0]!.n / 2) },
      { name: `pool_contacts, pool_id (big pool)`, spec: poolContacts, params: { pool_id: state.bigPoolId }, depth: 25_000 },
    ];

    // Cursors and plans first, for every case: the window queries that find deep rows read whole
    // indexes, so none of them runs between measurements.
    log(`\nEXPLAIN (ANALYZE) of each list page, first and deep:`);
    const deepOf = new Map<ListCase, Awaited<ReturnType<typeof deepCursors>>>();
    for (const c of cases) {
      if (!selected(c.name)) continue;
      const query = parseListQuery(c.spec, { ...c.params, limit: '50' });
      const deep = await deepCursors(db, state, c, 10);
      deepOf.set(c, deep);
      // The deep page starts where SQL's OFFSET says it should.
      const page = (await (await get(`/v1/${c.spec.name}?${new URLSearchParams({ ...c.params, cursor: deep.cursors[0]! })}`)).json()) as { data: { id: string }[] };
      if (page.data[0]?.id !== deep.firstIds[0]) throw new Error(`${c.name}: the deep page does not start at row ${deep.depth + 1}`);
      for (const [label, cursor] of [['page 1', undefined], [`after ${deep.depth.toLocaleString('en')} rows`, deep.cursors[0]]] as const) {
        const plan = await explain(db, state, c.spec, query, cursor);
        plans.push(`| ${c.name} | ${label} | ${plan.nodes.join(' + ')} | ${plan.rowsRead} | ${plan.ms.toFixed(2)} | ${plan.seek ? 'yes' : '**no**'} |`);
        log(`  ${c.name} ${label}: ${plan.seek ? 'seek' : 'NOT A SEEK'}, ${plan.rowsRead} rows read, ${plan.ms.toFixed(2)} ms: ${plan.nodes.join(' + ')}`);
      }
    }

    // Fresh processes: JIT compilation and connection pools warm up before anything is measured.
    await measure('warm-up (not reported)', 500, () => get('/v1/contacts'), 200, 0);
    for (const [c, deep] of deepOf) {
      const url = (cursor?: string) => `/v1/${c.spec.name}?${new URLSearchParams({ ...c.params, ...(cursor ? { cursor } : {}) })}`;
      log(`\n${c.name}`);
      const first = await measure(`${c.name}: page 1`, REQUESTS, () => get(url()));
      const deepResult = await measure(`${c.name}: page after ${deep.depth.toLocaleString('en')} rows`, REQUESTS, (i) => get(url(deep.cursors[i % deep.cursors.length])));
      results.push(first, deepResult);
      ratios.push(`| ${c.name} | ${(deepResult.p50 / first.p50).toFixed(2)} | ${(deepResult.p99 / first.p99).toFixed(2)} |`);
    }

    if (selected('q search')) {
    log(`\nq search`);
    // Common and rare terms of each length; a rare short term (none of "ø", "é", "zq", "xy", "ø."
    // is in the seed) is the costly case: its page examines a whole walk and finds nothing.
    const termSets: [string, string[], Record<string, string>][] = [
      ['q (10 terms in turn)', ['smith', 'jennifer', 'garcia', 'acme', 'okafor', 'nguyen', 'summit', 'mar', 'lee', 'patel.'], {}],
      ['q of 1 character (10 terms in turn)', ['a', 'e', 'z', 'q', 'j', 'ø', '7', '@', 'x', 'é'], {}],
      ['q of 2 characters (10 terms in turn)', ['li', 'an', 'zq', 'qu', 'ok', 'yu', 'ng', 'ø.', 'jo', 'xy'], {}],
      ['q of 3 characters (10 terms in turn)', ['lee', 'mar', 'acm', 'oka', 'ngu', 'zqx', 'pat', 'gar', 'sum', 'yuk'], {}],
      // A short term in another order: the walk reads the table, SEARCH_WALK_FROM_TABLE rows at most.
      ['q of 2 characters, sort=last_name (10 terms in turn)', ['li', 'an', 'zq', 'qu', 'ok', 'yu', 'ng', 'ø.', 'jo', 'xy'], { sort: 'last_name' }],
    ];
    for (const [, terms, params] of termSets) {
      for (const q of terms) {
        const plan = await explain(db, state, contacts, parseListQuery(contacts, { ...params, q, limit: '50' }), undefined);
        const sort = params.sort ? `, sort=${params.sort}` : '';
        plans.push(`| contacts, q=${q}${sort} | page 1 | ${plan.nodes.join(' + ')} | ${plan.rowsRead} | ${plan.ms.toFixed(2)} | (search) |`);
      }
    }
    for (const [name, terms, params] of termSets) {
      const url = (q: string) => `/v1/contacts?${new URLSearchParams({ ...params, q })}`;
      results.push(await measure(`contacts, ${name}`, REQUESTS, (i) => get(url(terms[i % terms.length]!))));
    }
    }

    if (selected('bulk members')) {
    log(`\nbulk members`);
    for (let client = 0; client < CLIENTS; client++) {
      const created = await fetch(`${stack.baseUrl}/v1/pools`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench ${new Date().toISOString()} #${client}` }),
      });
      benchPools.push(((await created.json()) as { data: { id: string } }).data.id);
    }
    // Each client adds fresh contacts to its own pool: 500 new members per call.
    const needed = (BULK_REQUESTS + 30) * 500;
    const { rows: ids } = await db.query<{ id: string }>(
      `SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY created_at LIMIT $2`,
      [state.workspaceId, needed],
    );
    const batches = Array.from({ length: BULK_REQUESTS + 30 }, (_, i) => ids.slice(i * 500, i * 500 + 500).map((r) => r.id));
    let batch = 0;
    const bulk = (method: 'POST' | 'DELETE', client: number, contactIds: string[]) =>
      benchRequest(`${stack.baseUrl}/v1/pools/${benchPools[client]}/members`, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ contact_ids: contactIds }),
      });
    results.push(await measure('POST /v1/pools/{id}/members, 500 new ids', BULK_REQUESTS, (_i, client) => bulk('POST', client, batches[batch++]!), 200, 30));
    batch = 0;
    results.push(await measure('DELETE /v1/pools/{id}/members, 500 member ids', BULK_REQUESTS, (_i, client) => bulk('DELETE', client, batches[batch++]!), 200, 30));
    }

    const table = [
      `| operation (10 concurrent clients) | requests | p50 ms | p99 ms | max ms | req/s |`,
      `|---|---:|---:|---:|---:|---:|`,
      ...results.map((r) => `| ${r.name} | ${r.requests} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | ${r.rps.toFixed(0)} |`),
      ``,
      `| list | deep/first p50 | deep/first p99 |`,
      `|---|---:|---:|`,
      ...ratios,
      ``,
      `| query | page | plan (scan nodes) | rows read | ms | seek |`,
      `|---|---|---|---:|---:|---|`,
      ...plans,
    ].join('\n');
    const header = `people benchmark, ${new Date().toISOString()}: ${SEED_SIZES.contacts.toLocaleString('en')} contacts, ${SEED_SIZES.organizations.toLocaleString('en')} organizations, ${SEED_SIZES.pools.toLocaleString('en')} pools, ${SEED_SIZES.memberships.toLocaleString('en')} memberships\n\n`;
    writeFileSync(RESULTS_FILE, header + table + '\n');
    log(`\n${header}${table}\n\n(written to ${path.relative(REPO_ROOT, RESULTS_FILE)})`);
  } finally {
    for (const id of benchPools) await fetch(`${stack.baseUrl}/v1/pools/${id}`, { method: 'DELETE', headers: auth }).catch(() => undefined);
    await stack.stop();
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
