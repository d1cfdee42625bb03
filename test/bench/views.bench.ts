/**
 * Derived views benchmark (`npm run bench:views`; method and figures in README.md).
 *
 * Starts every service and the gateway as separate `crm start` processes on this machine's
 * Postgres (fresh schemas, dropped afterwards), creates a user and a contact, and seeds messaging's
 * engagement ledger in SQL: BENCH_LEDGER_ROWS rows (default 100,000) for that user and contact,
 * spread over the last 24 hours (so every window holds all of them, and the partial hours at a
 * window's edges are as full as they get), plus as many for nine other users; the hourly aggregates
 * are built from the rows as the ledger's own statement keeps them. Then measures, at 10 clients:
 *   1. `GET /v1/users/{id}/performance` for each window (target: p99 ≤ 20 ms), beside the cost of
 *      counting the same rows directly (what the aggregates save);
 *   2. `GET /v1/contacts/{id}/timeline`: the first page and a page 50,000 rows deep.
 *
 * Environment: DATABASE_URL, BENCH_LEDGER_ROWS, BENCH_REQUESTS (default 3000 per case),
 * BENCH_CHECK=1 exits non-zero when a target is missed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCursorCodec, createPgClient, queryFingerprint, runMigrations } from '@crm/kit';
import { migrations as peopleMigrations } from '@crm/people';
import { REPO_ROOT } from '../support/processes';
import { DATABASE_URL, benchReport, benchRequest, dropBenchSchemas, log, measureLoad, quantile, startBenchStack } from './bench-stack';
import { seedContacts } from './contacts-seed';

const ROWS = Number(process.env.BENCH_LEDGER_ROWS || 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS || 3_000);
const DEEP = Math.min(50_000, Math.floor(ROWS / 2));
const STATE_DIR = path.join(REPO_ROOT, 'test/bench/.data');
const RESULTS_FILE = path.join(STATE_DIR, 'views-results.md');
const TARGETS = { performanceP99Ms: 20 };
const METRICS = ['emails_sent', 'emails_replied', 'emails_opened', 'emails_clicked', 'calls_placed', 'meetings_scheduled', 'tasks_completed'];
const KINDS: Record<string, string> = {
  emails_sent: 'sent_email',
  emails_replied: 'email_event',
  emails_opened: 'email_event',
  emails_clicked: 'email_event',
  calls_placed: 'call_log',
  meetings_scheduled: 'meeting',
  tasks_completed: 'task',
};

const run = `bviews_${randomBytes(3).toString('hex')}`;
const schemaOf = (component: string) => `${run}_${component}`;

async function main(): Promise<void> {
  mkdirSync(STATE_DIR, { recursive: true });
  const secrets = { CURSOR_SECRET: randomBytes(32).toString('base64'), SECRETS_KEY: randomBytes(32).toString('base64'), KEY_PEPPER: randomBytes(16).toString('hex') };
  const peopleDb = await createPgClient({ url: DATABASE_URL, schema: schemaOf('people'), max: 2, applicationName: 'crm-bench' });
  await runMigrations(peopleDb, peopleMigrations);
  const stack = await startBenchStack({ secrets, dataDir: path.join(STATE_DIR, run), schemaOf });
  const db = await createPgClient({ url: DATABASE_URL, schema: schemaOf('messaging'), max: 2, applicationName: 'crm-bench' });
  const { record, check, finish } = benchReport(RESULTS_FILE);
  try {
    const { workspaceId, key } = await stack.workspaceWithKey('Bench views');
    const user = await stack.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', workspaceId, '--email', 'rep@bench.example', '--name', 'Rep', '--role', 'member']);
    const others: string[] = [];
    for (let i = 0; i < 9; i++) {
      others.push((await stack.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', workspaceId, '--email', `rep${i}@bench.example`, '--name', `Rep ${i}`, '--role', 'member'])).id);
    }
    await seedContacts(peopleDb, workspaceId, 1, {});
    const { rows: contacts } = await peopleDb.query<{ id: string }>(`SELECT id FROM contacts WHERE workspace_id = $1::uuid`, [workspaceId]);
    const contactId = contacts[0]!.id;

    // The ledger: ROWS rows of the user (and of its contact), as many spread over nine others, in the last 24 h.
    const started = performance.now();
    const now = Date.now();
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO engagement_ledger (workspace_id, id, kind, source_id, action, contact_id, user_id, occurred_at, summary, payload, metric, talk_seconds)
         SELECT $1::uuid, gen_random_uuid(), ('{${METRICS.map((m) => KINDS[m]).join(',')}}'::text[])[1 + n % 7], gen_random_uuid(), '',
                CASE WHEN u = 0 THEN $2::uuid END, (ARRAY[$3::uuid] || $4::uuid[])[1 + u],
                $5::timestamptz - (n * (86400000.0 / $6)) * interval '1 millisecond', 'bench row', '{}'::jsonb,
                ('{${METRICS.join(',')}}'::text[])[1 + n % 7], CASE WHEN n % 7 = 4 THEN 60 ELSE 0 END
           FROM generate_series(0, $6 - 1) AS n, generate_series(0, 9) AS u`,
        [workspaceId, contactId, user.id, others, new Date(now).toISOString(), ROWS],
      );
      await tx.query(
        `INSERT INTO engagement_hourly (workspace_id, user_id, hour, ${METRICS.join(', ')}, call_talk_seconds)
         SELECT workspace_id, user_id, date_bin('1 hour', occurred_at, TIMESTAMPTZ '2000-01-01 00:00:00+00'),
                ${METRICS.map((m) => `count(*) FILTER (WHERE metric = '${m}')`).join(', ')}, sum(talk_seconds)
           FROM engagement_ledger WHERE workspace_id = $1::uuid GROUP BY 1, 2, 3`,
        [workspaceId],
      );
    });
    await db.query('ANALYZE engagement_ledger');
    await db.query('ANALYZE engagement_hourly');
    record(`seeded ${(ROWS * 10).toLocaleString('en')} ledger rows (${ROWS.toLocaleString('en')} of the measured user and contact) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const headers = { authorization: `Bearer ${key}` };
    // The baseline: a plain get through the same gateway.
    const plainAlone = await measureLoad('GET /v1/contacts/{id} (baseline, 1 client)', { total: REQUESTS, clients: 1, warmup: 300 }, () =>
      benchRequest(`${stack.baseUrl}/v1/contacts/${contactId}`, { headers }),
    );
    const plain = await measureLoad('GET /v1/contacts/{id} (baseline, 10 clients)', { total: REQUESTS, clients: 10, warmup: 100 }, () =>
      benchRequest(`${stack.baseUrl}/v1/contacts/${contactId}`, { headers }),
    );
    record(
      `baseline, a contact by id: 1 client p50 ${plainAlone.p50.toFixed(1)} ms p99 ${plainAlone.p99.toFixed(1)} ms; ` +
        `10 clients p50 ${plain.p50.toFixed(1)} ms p99 ${plain.p99.toFixed(1)} ms ${plain.rps.toFixed(0)} req/s`,
    );
    // 1. Performance, each window: its latency at one client (the target), its throughput at ten.
    for (const window of ['24h', '7d', '30d', '90d']) {
      const url = `${stack.baseUrl}/v1/users/${user.id}/performance?window=${window}`;
      const alone = await measureLoad(`GET /v1/users/{id}/performance?window=${window} (1 client)`, { total: REQUESTS, clients: 1, warmup: 100 }, () => benchRequest(url, { headers }));
      const loaded = await measureLoad(`GET /v1/users/{id}/performance?window=${window} (10 clients)`, { total: REQUESTS, clients: 10, warmup: 100 }, () => benchRequest(url, { headers }));
      record(
        `performance ${window.padEnd(3)}: 1 client p50 ${alone.p50.toFixed(1)} ms p99 ${alone.p99.toFixed(1)} ms; ` +
          `10 clients p50 ${loaded.p50.toFixed(1)} ms p99 ${loaded.p99.toFixed(1)} ms ${loaded.rps.toFixed(0)} req/s`,
      );
      check(`performance ${window} p99 ≤ ${TARGETS.performanceP99Ms} ms at 1 client`, alone.p99 <= TARGETS.performanceP99Ms);
    }
    const answer = (await (await fetch(`${stack.baseUrl}/v1/users/${user.id}/performance?window=90d`, { headers })).json()) as { data: Record<string, number> };
    const total = METRICS.reduce((sum, m) => sum + answer.data[m]!, 0);
    record(`the 90d answer counts ${total.toLocaleString('en')} rows (seeded ${ROWS.toLocaleString('en')})`);
    check('the performance answer counts every seeded row', total === ROWS);
    // What the aggregates save: the same counts by reading the window's rows, one client, in SQL alone.
    const scans: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await db.query(
        `SELECT ${METRICS.map((m) => `count(*) FILTER (WHERE metric = '${m}')`).join(', ')}, sum(talk_seconds) FROM engagement_ledger
          WHERE workspace_id = $1::uuid AND user_id = $2::uuid AND metric IS NOT NULL AND occurred_at >= now() - interval '90 days'`,
        [workspaceId, user.id],
      );
      scans.push(performance.now() - t);
    }
    scans.sort((a, b) => a - b);
    record(`for comparison, counting the window's ${ROWS.toLocaleString('en')} rows in SQL (no gateway, no gRPC): p50 ${quantile(scans, 0.5).toFixed(1)} ms`);

    // 2. The timeline: first page, and a page DEEP rows in (its cursor minted with the service's secret).
    const first = await measureLoad('GET /v1/contacts/{id}/timeline (first page)', { total: REQUESTS, clients: 10, warmup: 100 }, () =>
      benchRequest(`${stack.baseUrl}/v1/contacts/${contactId}/timeline?limit=50`, { headers }),
    );
    const { rows: deep } = await db.query<{ occurred_at: Date; id: string }>(
      `SELECT occurred_at, id FROM engagement_ledger WHERE workspace_id = $1::uuid AND contact_id = $2::uuid ORDER BY occurred_at DESC, id DESC OFFSET $3 LIMIT 1`,
      [workspaceId, contactId, DEEP],
    );
    const cursor = createCursorCodec(secrets.CURSOR_SECRET).encode(queryFingerprint(['timeline', workspaceId, contactId, null, null, null]), {
      values: [new Date(deep[0]!.occurred_at).toISOString()],
      id: deep[0]!.id,
    });
    const deepPage = await measureLoad(`GET /v1/contacts/{id}/timeline (${DEEP.toLocaleString('en')} rows deep)`, { total: REQUESTS, clients: 10, warmup: 100 }, () =>
      benchRequest(`${stack.baseUrl}/v1/contacts/${contactId}/timeline?limit=50&cursor=${cursor}`, { headers }),
    );
    record(
      `timeline at 10 clients: first page p50 ${first.p50.toFixed(1)} ms p99 ${first.p99.toFixed(1)} ms; ${DEEP.toLocaleString('en')} rows deep p50 ${deepPage.p50.toFixed(1)} ms p99 ${deepPage.p99.toFixed(1)} ms (deep/first p50 ${(deepPage.p50 / first.p50).toFixed(2)}×)`,
    );
  } finally {
    await stack.stop();
    await db.close();
    await dropBenchSchemas(peopleDb, schemaOf);
    await peopleDb.close();
  }
  log('');
  finish();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
