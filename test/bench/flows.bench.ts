/**
 * Flow engine benchmark (`npm run bench:flows`; method and figures in README.md).
 *
 * Starts every service and the gateway as separate `crm start` processes on this machine's
 * Postgres (fresh schemas, dropped afterwards), seeds 100,000 contacts and three pools in SQL, then
 * measures over the API and the engine's own history:
 *   1. `POST /v1/flows/{id}/enrollments` with a 50,000-member pool (a flow that sends email, so
 *      suppression is checked, and one that only waits);
 *   2. wait steps per second: 100,000 enrollments due at once when their flow is activated;
 *   3. email steps per second, up to messaging's queue: 100,000 due at once;
 *   4. due-to-executed lateness: 10,000 enrollments falling due at once, and 10,000 falling due
 *      at 1,000 a second.
 *
 * Environment: DATABASE_URL (default this machine's `test` database), BENCH_CONTACTS (default
 * 100000), BENCH_CHECK=1 exits non-zero when a target is missed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPgClient, runMigrations } from '@crm/kit';
import { migrations as peopleMigrations } from '@crm/people';
import { REPO_ROOT } from '../support/processes';
import { startSmtpSink } from '../support/smtp-sink';
import { DATABASE_URL, benchReport, dropBenchSchemas, quantile, startBenchStack } from './bench-stack';
import { seedContacts } from './contacts-seed';

const CONTACTS = Number(process.env.BENCH_CONTACTS || 100_000);
const POOL = CONTACTS / 2;
const LATENCY_COUNT = Math.min(10_000, CONTACTS / 2);
const STATE_DIR = path.join(REPO_ROOT, 'test/bench/.data');
const RESULTS_FILE = path.join(STATE_DIR, 'flows-results.md');
/** Runs only the phases whose name matches (`waits`, `emails`, `lateness`), e.g. `BENCH_ONLY=waits|lateness`. */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
const selected = (phase: string) => !ONLY || ONLY.test(phase);
const TARGETS = { waitStepsPerSecond: 2_000, emailStepsPerSecond: 500, lateP99Ms: 2_000, enrollPoolMs: 3_000 };

const run = `bflows_${randomBytes(3).toString('hex')}`;
const schemaOf = (component: string) => `${run}_${component}`;

async function main(): Promise<void> {
  mkdirSync(STATE_DIR, { recursive: true });
  // The SMTP server holds every message (no answer for an hour) and messaging delivers one at a
  // time: delivery takes no share of the machine while the engine is measured.
  const sink = await startSmtpSink({ delayMs: 3_600_000 });
  const peopleDb = await createPgClient({ url: DATABASE_URL, schema: schemaOf('people'), max: 2, applicationName: 'crm-bench' });
  const flowsDb = await createPgClient({ url: DATABASE_URL, schema: schemaOf('flows'), max: 2, applicationName: 'crm-bench' });
  await runMigrations(peopleDb, peopleMigrations);
  const stack = await startBenchStack({
    secrets: { CURSOR_SECRET: randomBytes(32).toString('base64'), SECRETS_KEY: randomBytes(32).toString('base64'), KEY_PEPPER: randomBytes(16).toString('hex') },
    dataDir: path.join(STATE_DIR, run),
    schemaOf,
    componentEnv: {
      messaging: { SMTP_URL: sink.url, DELIVERY_CONCURRENCY: '1', SEND_QUOTA_PER_HOUR: '10000000' },
      gateway: { UPSTREAM_TIMEOUT_MS: '60000' },
    },
  });
  const { record, check, finish } = benchReport(RESULTS_FILE);
  try {
    const { workspaceId, key } = await stack.workspaceWithKey('Bench flows');
    const pools = await seedContacts(peopleDb, workspaceId, CONTACTS, {
      half1: [1, POOL],
      half2: [POOL + 1, CONTACTS],
      latency: [1, LATENCY_COUNT],
    });
    const api = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${stack.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await response.json()) as any;
      if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json.data;
    };
    const flow = (name: string, first: object, status = 'draft') =>
      api('POST', '/v1/flows', {
        name,
        status,
        nodes: [{ key: 'first', ...first }, { key: 'park', type: 'wait', config: { duration_seconds: 86_400 } }],
        edges: [{ from: 'first', to: 'park' }],
      });
    const enrollPool = async (flowId: string, poolId: string) => {
      const started = performance.now();
      const result = await api('POST', `/v1/flows/${flowId}/enrollments`, { pool_id: poolId });
      const ms = performance.now() - started;
      if (result.enrolled.length !== POOL && poolId !== pools.latency) throw new Error(`enrolled ${result.enrolled.length}, expected ${POOL}`);
      return ms;
    };
    const stepsOf = async (flowId: string, outcome: string) =>
      (await flowsDb.query<{ n: number }>(`SELECT count(*)::int AS n FROM enrollment_steps WHERE workspace_id = $1::uuid AND flow_id = $2::uuid AND outcome = $3`, [
        workspaceId,
        flowId,
        outcome,
      ])).rows[0]!.n;
    /** Any enrollment due now (the earlier phases' enrollments are parked a day out): a seek on the due index. */
    const anyDue = async () =>
      (await flowsDb.query(`SELECT id FROM enrollments WHERE status = 'active' AND next_run_at <= now() ORDER BY next_run_at LIMIT 1`)).rows.length > 0;
    /** Activates the flow, times until nothing is due any more, and checks `count` steps of `outcome` were recorded. */
    const drain = async (flowId: string, outcome: string, count: number) => {
      const started = performance.now();
      await api('PATCH', `/v1/flows/${flowId}`, { status: 'active' });
      while (await anyDue()) {
        if (performance.now() - started > 600_000) throw new Error(`${outcome}: still due after 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const seconds = (performance.now() - started) / 1000;
      const done = await stepsOf(flowId, outcome);
      if (done !== count) throw new Error(`${outcome}: ${done} steps recorded, expected ${count}`);
      return seconds;
    };
    const lateness = async (flowId: string, waitSeconds: number) => {
      const { rows } = await flowsDb.query<{ ms: number }>(
        `SELECT extract(epoch FROM (s.occurred_at - (e.enrolled_at + make_interval(secs => $3)))) * 1000 AS ms
           FROM enrollment_steps s JOIN enrollments e ON e.workspace_id = s.workspace_id AND e.id = s.enrollment_id
          WHERE s.workspace_id = $1::uuid AND s.flow_id = $2::uuid AND s.outcome = 'waited'`,
        [workspaceId, flowId, waitSeconds],
      );
      return rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
    };

    let enrollWaitMs: number[] = [];
    // 1 + 2: wait steps. Enrolled into a draft flow (nothing advances), due after a second.
    if (selected('waits')) {
    const waits = await flow('Bench waits', { type: 'wait', config: { duration_seconds: 1 } });
    enrollWaitMs = [await enrollPool(waits.id, pools.half1!), await enrollPool(waits.id, pools.half2!)];
    record(`enroll a ${POOL.toLocaleString('en')}-member pool, wait-only flow: ${enrollWaitMs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const waitSeconds = await drain(waits.id, 'waited', CONTACTS);
    const waitRate = CONTACTS / waitSeconds;
    record(`wait steps: ${CONTACTS.toLocaleString('en')} due → executed in ${waitSeconds.toFixed(1)} s = ${waitRate.toFixed(0)} steps/s`);
    check(`wait steps ≥ ${TARGETS.waitStepsPerSecond}/s`, waitRate >= TARGETS.waitStepsPerSecond);
    }

    // 1 + 3: email steps, up to messaging's queue (each a send queued, rendered and quota-checked).
    if (selected('emails')) {
    const emails = await flow('Bench emails', { type: 'email', config: { subject: 'Hello {{ first_name }}', body: '<p>Hi {{ first_name }}, a quick note.</p>' } });
    const enrollEmailMs = [await enrollPool(emails.id, pools.half1!), await enrollPool(emails.id, pools.half2!)];
    record(`enroll a ${POOL.toLocaleString('en')}-member pool, email flow (suppression checked): ${enrollEmailMs.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
    check(`enroll ${POOL} ≤ ${TARGETS.enrollPoolMs} ms`, Math.max(...enrollEmailMs, ...enrollWaitMs) <= TARGETS.enrollPoolMs);
    const emailSeconds = await drain(emails.id, 'email_queued', CONTACTS);
    const emailRate = CONTACTS / emailSeconds;
    record(`email steps: ${CONTACTS.toLocaleString('en')} due → queued at messaging in ${emailSeconds.toFixed(1)} s = ${emailRate.toFixed(0)} steps/s`);
    check(`email steps ≥ ${TARGETS.emailStepsPerSecond}/s`, emailRate >= TARGETS.emailStepsPerSecond);
    }

    // 4a: lateness with 10,000 due at one instant (an active flow; the pool enrolled in one call).
    if (selected('lateness')) {
    const burst = await flow('Bench burst', { type: 'wait', config: { duration_seconds: 2 } }, 'active');
    await enrollPool(burst.id, pools.latency!);
    while ((await stepsOf(burst.id, 'waited')) < LATENCY_COUNT) await new Promise((resolve) => setTimeout(resolve, 200));
    const burstLate = await lateness(burst.id, 2);
    record(`lateness, ${LATENCY_COUNT.toLocaleString('en')} due at once: p50 ${quantile(burstLate, 0.5).toFixed(0)} ms, p99 ${quantile(burstLate, 0.99).toFixed(0)} ms, max ${burstLate[burstLate.length - 1]!.toFixed(0)} ms`);

    // 4b: lateness with 10,000 falling due at 1,000 a second (batches of 100 every 100 ms).
    const steady = await flow('Bench steady', { type: 'wait', config: { duration_seconds: 2 } }, 'active');
    const { rows: ids } = await peopleDb.query<{ id: string }>(`SELECT contact_id AS id FROM pool_contacts WHERE pool_id = $1::uuid ORDER BY contact_id`, [pools.latency!]);
    const started = performance.now();
    for (let i = 0; i < ids.length; i += 100) {
      const at = started + (i / 100) * 100;
      const wait = at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await api('POST', `/v1/flows/${steady.id}/enrollments`, { contact_ids: ids.slice(i, i + 100).map((r) => r.id) });
    }
    while ((await stepsOf(steady.id, 'waited')) < ids.length) await new Promise((resolve) => setTimeout(resolve, 200));
    const steadyLate = await lateness(steady.id, 2);
    record(`lateness, ${ids.length.toLocaleString('en')} falling due at 1,000/s: p50 ${quantile(steadyLate, 0.5).toFixed(0)} ms, p99 ${quantile(steadyLate, 0.99).toFixed(0)} ms, max ${steadyLate[steadyLate.length - 1]!.toFixed(0)} ms`);
    check(`lateness p99 ≤ ${TARGETS.lateP99Ms} ms (10,000 due at once)`, quantile(burstLate, 0.99) <= TARGETS.lateP99Ms);
    }
  } finally {
    // Messaging stops once its delivery in flight is answered.
    sink.rules = {};
    sink.release();
    await stack.stop();
    await dropBenchSchemas(peopleDb, schemaOf);
    await peopleDb.close();
    await flowsDb.close();
    void sink.close();
  }
  finish();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
