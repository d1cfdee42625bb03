/**
 * People's move to tenancy keys (migration 010_tenancy_keys) on a populated database, with a
 * writer running: how long the migration takes, step by step, and the longest a write waited.
 *
 * A scratch database `crm_bench_tenancy` on the bench Postgres (dropped and created again; dropped
 * at the end unless BENCH_KEEP=1) gets people's schema at 009 (the keys by id) and the people seed
 * (people-seed.ts) at BENCH_CONTACTS contacts (default 100,000; organizations and memberships in
 * the same proportion as the million-contact seed). A writer then loops on one connection, each
 * iteration a transaction of the request path's shape: create a contact, add it to a pool (both
 * foreign keys checked), touch an existing contact. It runs alone for BENCH_BASELINE_S seconds
 * (default 5), then while the migration runs; the report compares the two, and gives the longest
 * the writer's backend waited for a lock (pg_stat_activity, sampled every 5 ms during the migration).
 *
 *   npx tsc -b test/bench && node test/bench/dist/bench/tenancy-migration.bench.js
 *   BENCH_CONTACTS=1000000 node test/bench/dist/bench/tenancy-migration.bench.js
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createPgClient, runMigrations } from '@crm/kit';
import { migrations } from '@crm/people';
import { SEED_SIZES, type SeedSizes, seedPeople } from './people-seed';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = 'crm_bench_tenancy';
const SCHEMA = 'people';
const MIGRATION = '010_tenancy_keys';
const contacts = Number(process.env.BENCH_CONTACTS ?? 100_000);
const baselineSeconds = Number(process.env.BENCH_BASELINE_S ?? 5);

function urlFor(database: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

const log = (line: string) => console.log(line);
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The million-contact seed's proportions at `contacts` contacts. */
function sizesFor(count: number): SeedSizes {
  if (!Number.isInteger(count) || count < 10_000 || count > SEED_SIZES.contacts) throw new Error(`BENCH_CONTACTS must be an integer from 10000 to ${SEED_SIZES.contacts}`);
  const share = count / SEED_SIZES.contacts;
  const bigPool = Math.round(SEED_SIZES.bigPool * share);
  const perPool = Math.max(1, Math.round(((SEED_SIZES.memberships - SEED_SIZES.bigPool) / (SEED_SIZES.pools - 1)) * share));
  return {
    ...SEED_SIZES,
    contacts: count,
    organizations: Math.max(100, Math.round(SEED_SIZES.organizations * share)),
    bigPool,
    memberships: bigPool + perPool * (SEED_SIZES.pools - 1),
  };
}

interface Writes {
  latencies: number[];
  longest: number;
  longestAt: number;
  errors: string[];
}

/** The writer: one transaction after another until `stop` resolves; each one's time recorded in the phase it ended in. */
async function writer(client: Client, workspaceId: string, poolIds: string[], contactIds: string[], phase: () => Writes, stop: Promise<void>): Promise<void> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  try {
    for (let i = 0; !stopped; i++) {
      const started = performance.now();
      const id = randomUUID();
      try {
        await client.query('BEGIN');
        await client.query(
          `INSERT INTO contacts (id, workspace_id, first_name, email, created_at, updated_at) VALUES ($1, $2, 'Writer', $3, now(), now())`,
          [id, workspaceId, `writer.${id}@bench.example`],
        );
        await client.query(
          `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_at, created_at, updated_at) VALUES ($1, $2, $3, $4, now(), now(), now())`,
          [randomUUID(), workspaceId, poolIds[i % poolIds.length], id],
        );
        await client.query(`UPDATE contacts SET updated_at = now() WHERE workspace_id = $1 AND id = $2`, [workspaceId, contactIds[i % contactIds.length]]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        phase().errors.push((error as Error).message);
      }
      const took = performance.now() - started;
      const writes = phase();
      writes.latencies.push(took);
      if (took > writes.longest) {
        writes.longest = took;
        writes.longestAt = performance.now();
      }
    }
  } finally {
    await client.end();
  }
}

interface LockWait {
  ms: number;
  /** What the writer waited for and the migration step running meanwhile. */
  on: string;
  step: string;
}

/**
 * Samples the writer's backend every 5 ms until `stop` resolves: the longest run of samples in
 * which it waited for a heavyweight lock (pg_stat_activity's wait_event_type `Lock`).
 */
async function lockWaits(pid: number, currentStep: () => string, stop: Promise<void>): Promise<LockWait> {
  const sampler = new Client({ connectionString: urlFor(DATABASE) });
  await sampler.connect();
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const longest: LockWait = { ms: 0, on: '-', step: '-' };
  let since: number | undefined;
  try {
    while (!stopped) {
      const { rows } = await sampler.query<{ waiting: boolean; on: string | null }>(
        `SELECT wait_event_type = 'Lock' AS waiting, wait_event AS on FROM pg_stat_activity WHERE pid = $1`,
        [pid],
      );
      const now = performance.now();
      if (rows[0]?.waiting) {
        since ??= now;
        if (now - since > longest.ms) Object.assign(longest, { ms: now - since, on: rows[0].on ?? '?', step: currentStep() });
      } else {
        since = undefined;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await sampler.end();
  }
  return longest;
}

function summary(name: string, writes: Writes, seconds: number): string {
  const sorted = [...writes.latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return (
    `${name}: ${sorted.length} write transactions in ${seconds.toFixed(1)} s (${(sorted.length / seconds).toFixed(0)}/s), ` +
    `p50 ${ms(at(0.5))}, p99 ${ms(at(0.99))}, longest ${ms(writes.longest)}, over 100 ms: ${sorted.filter((t) => t > 100).length}, errors: ${writes.errors.length}` +
    (writes.errors.length ? ` (first: ${writes.errors[0]})` : '')
  );
}

async function main(): Promise<void> {
  const sizes = sizesFor(contacts);
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  try {
    const seedDb = await createPgClient({ url: urlFor(DATABASE), schema: SCHEMA, max: 1, applicationName: 'crm-bench-tenancy-seed' });
    const before = migrations.filter((m) => m.id < MIGRATION);
    await runMigrations(seedDb, before);
    const workspaceId = randomUUID();
    log(`seeding ${sizes.contacts.toLocaleString('en')} contacts, ${sizes.organizations.toLocaleString('en')} organizations, ${sizes.pools} pools, ${sizes.memberships.toLocaleString('en')} memberships at ${before.at(-1)!.id}`);
    const seeded = await seedPeople(seedDb, workspaceId, log, sizes);
    log(`seeded in ${seeded.seconds.toFixed(0)} s`);
    const poolIds = (await seedDb.query<{ id: string }>(`SELECT id FROM pools WHERE workspace_id = $1 ORDER BY id LIMIT 50`, [workspaceId])).rows.map((r) => r.id);
    const contactIds = (await seedDb.query<{ id: string }>(`SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY random() LIMIT 2000`, [workspaceId])).rows.map((r) => r.id);
    await seedDb.close();

    const baseline: Writes = { latencies: [], longest: 0, longestAt: 0, errors: [] };
    const during: Writes = { latencies: [], longest: 0, longestAt: 0, errors: [] };
    let current = baseline;
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const client = new Client({ connectionString: urlFor(DATABASE), options: `-c search_path=${SCHEMA},public` });
    await client.connect();
    const { rows: backend } = await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
    const writing = writer(client, workspaceId, poolIds, contactIds, () => current, stopped);
    await new Promise((resolve) => setTimeout(resolve, baselineSeconds * 1000));

    const db = await createPgClient({ url: urlFor(DATABASE), schema: SCHEMA, max: 2, applicationName: 'crm-bench-tenancy-migrate' });
    const steps: { name: string; ms: number; skipped: boolean; endedAt: number }[] = [];
    const planned = migrations.find((m) => m.id === MIGRATION);
    if (!planned || !('steps' in planned)) throw new Error(`${MIGRATION} is not a step migration`);
    let stopWaits!: () => void;
    const waitsStopped = new Promise<void>((resolve) => {
      stopWaits = resolve;
    });
    const waits = lockWaits(backend[0]!.pid, () => planned.steps[steps.length]?.name ?? 'recording the migration', waitsStopped);
    current = during;
    const started = performance.now();
    try {
      await runMigrations(db, migrations, { onStep: (step) => steps.push({ ...step, endedAt: performance.now() }) });
    } finally {
      stop();
      stopWaits();
      await writing;
    }
    const longestWait = await waits;
    const total = performance.now() - started;
    const keys = await db.query<{ table: string; key: string }>(
      `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS key FROM pg_constraint
        WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u', 'f') AND conrelid::regclass::text <> 'schema_migrations' ORDER BY 1, 2`,
    );
    await db.close();

    log('');
    log(`${MIGRATION} at ${sizes.contacts.toLocaleString('en')} contacts: ${(total / 1000).toFixed(1)} s`);
    for (const step of steps) log(`  ${step.name.padEnd(48)} ${step.skipped ? 'skipped' : ms(step.ms)}`);
    // The step the longest wait ended in: the writer's transaction finished while it ran (or right after).
    const longestIn = steps.find((step) => step.endedAt >= during.longestAt)?.name ?? 'after the last step';
    log(summary('writer before the migration', baseline, baselineSeconds));
    log(summary('writer during the migration', during, total / 1000));
    log(`  its longest transaction ended during: ${longestIn}`);
    log(`  its longest lock wait (sampled every 5 ms): ${ms(longestWait.ms)}${longestWait.ms ? ` on ${longestWait.on}, during: ${longestWait.step}` : ''}`);
    log('keys after:');
    for (const row of keys.rows) log(`  ${row.table}: ${row.key}`);
    if (during.errors.length) process.exitCode = 1;
  } finally {
    if (process.env.BENCH_KEEP !== '1') await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
