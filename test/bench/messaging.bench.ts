/**
 * Messaging benchmark (`npm run bench:messaging`; method and figures in README.md).
 *
 * Starts every service and the gateway as separate `crm start` processes on this machine's
 * Postgres (fresh schemas, dropped afterwards) with a real SMTP server of the bench's own, seeds
 * 10,000 contacts in SQL, then measures:
 *   1. sends queued per second through the API (`POST /v1/sent_emails`, 10 clients), while the
 *      SMTP server holds its answers so nothing is delivered yet;
 *   2. messages delivered per second to the SMTP server with those 10,000 sends queued;
 *   3. the open pixel (`GET /t/o/{token}`) through the gateway at 50 concurrent clients, and the
 *      gateway's `/healthz` to the same clients right after (the floor of any route here).
 *
 * Environment: DATABASE_URL, BENCH_SENDS (default 10000), BENCH_PIXEL_REQUESTS (default 20000), BENCH_NO_OWNER=1 (sends without an owner),
 * BENCH_NATS_URL (events travel over that NATS server; then also how long people takes to catch up),
 * BENCH_CHECK=1 exits non-zero when a target is missed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPgClient, runMigrations } from '@crm/kit';
import { migrations as peopleMigrations } from '@crm/people';
import { tokenIn } from '../support/mail';
import { REPO_ROOT } from '../support/processes';
import { startSmtpSink } from '../support/smtp-sink';
import { DATABASE_URL, benchReport, benchRequest, dropBenchConsumers, dropBenchSchemas, measureLoad, startBenchStack } from './bench-stack';
import { seedContacts } from './contacts-seed';

const SENDS = Number(process.env.BENCH_SENDS || 10_000);
const PIXEL_REQUESTS = Number(process.env.BENCH_PIXEL_REQUESTS || 20_000);
const STATE_DIR = path.join(REPO_ROOT, 'test/bench/.data');
const RESULTS_FILE = path.join(STATE_DIR, 'messaging-results.md');
const TARGETS = { deliveriesPerSecond: 300, pixelP99Ms: 10 };
const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

const run = `bmsg_${randomBytes(3).toString('hex')}`;
const schemaOf = (component: string) => `${run}_${component}`;

async function main(): Promise<void> {
  mkdirSync(STATE_DIR, { recursive: true });
  // Holds every message until released: the queue fills before delivery is measured.
  const sink = await startSmtpSink({ delayMs: 3_600_000 });
  const peopleDb = await createPgClient({ url: DATABASE_URL, schema: schemaOf('people'), max: 2, applicationName: 'crm-bench' });
  await runMigrations(peopleDb, peopleMigrations);
  const stack = await startBenchStack({
    secrets: { CURSOR_SECRET: randomBytes(32).toString('base64'), SECRETS_KEY: randomBytes(32).toString('base64'), KEY_PEPPER: randomBytes(16).toString('hex') },
    dataDir: path.join(STATE_DIR, run),
    schemaOf,
    componentEnv: {
      // A held message times out after 30 s and is retried a second later, not a minute.
      messaging: { SMTP_URL: sink.url, SEND_QUOTA_PER_HOUR: '10000000', DELIVERY_RETRY_BASE_MS: '1000', PUBLIC_URL: 'http://127.0.0.1:8080' },
    },
  });
  const { record, check, finish } = benchReport(RESULTS_FILE);
  try {
    const { workspaceId, key } = await stack.workspaceWithKey('Bench messaging');
    // Every send has an owner, as in real use: each one then adds to that user's hourly counters,
    // one row all the workers update (BENCH_NO_OWNER=1 leaves them out, for comparison).
    const owner = process.env.BENCH_NO_OWNER === '1'
      ? undefined
      : (await stack.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', workspaceId, '--email', 'owner@bench.example', '--name', 'Owner', '--role', 'member'])).id;
    await seedContacts(peopleDb, workspaceId, SENDS, {});
    const { rows: contacts } = await peopleDb.query<{ id: string }>(`SELECT id FROM contacts WHERE workspace_id = $1::uuid ORDER BY email`, [workspaceId]);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    // 1. Queued through the API, 10 clients, one send per contact (30 warm-up sends first).
    const queued = await measureLoad('POST /v1/sent_emails (queue a send)', { total: SENDS - 30, clients: 10, warmup: 30, expectStatus: 201 }, (i) =>
      benchRequest(`${stack.baseUrl}/v1/sent_emails`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          contact_id: contacts[i % contacts.length]!.id,
          ...(owner ? { owner_id: owner } : {}),
          subject: 'Hello {{ first_name }}',
          body: '<p>Hi {{ first_name }}, see <a href="https://example.com/pricing">our pricing</a>.</p>',
        }),
      }),
    );
    record(`queue: ${SENDS.toLocaleString('en')} sends through the API at 10 clients: ${queued.rps.toFixed(0)} sends/s (p50 ${queued.p50.toFixed(1)} ms, p99 ${queued.p99.toFixed(1)} ms)`);

    // 2. Delivered with the whole queue waiting: the server answers at once from now on.
    const started = performance.now();
    sink.rules = {};
    sink.release();
    for (;;) {
      if (sink.received.length >= SENDS) break;
      if (performance.now() - started > 600_000) throw new Error(`delivered ${sink.received.length} of ${SENDS} after 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const deliverySeconds = (performance.now() - started) / 1000;
    const deliveryRate = SENDS / deliverySeconds;
    record(`delivery: ${SENDS.toLocaleString('en')} queued → accepted by the SMTP server in ${deliverySeconds.toFixed(1)} s = ${deliveryRate.toFixed(0)} messages/s`);
    check(`deliveries ≥ ${TARGETS.deliveriesPerSecond}/s`, deliveryRate >= TARGETS.deliveriesPerSecond);
    if (process.env.BENCH_NATS_URL) {
      // Over NATS, people consumes each send's `email.sent` and `touchpoint.recorded`: how long
      // until the last_touchpoint_at of every contact sent to has moved, counted from the same start.
      const { rows: sentTo } = await peopleDb.query<{ n: number }>(
        `SELECT count(DISTINCT contact_id)::int AS n FROM ${schemaOf('messaging')}.sent_emails WHERE workspace_id = $1::uuid`,
        [workspaceId],
      );
      const expected = sentTo[0]!.n;
      for (;;) {
        const { rows } = await peopleDb.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1::uuid AND last_touchpoint_at IS NOT NULL`,
          [workspaceId],
        );
        if (rows[0]!.n >= expected) break;
        if (performance.now() - started > 600_000) throw new Error(`people moved ${rows[0]!.n} of ${expected} contacts after 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const caughtUp = (performance.now() - started) / 1000;
      record(`people over NATS: every contact's last_touchpoint_at moved ${caughtUp.toFixed(1)} s after delivery started (${(caughtUp - deliverySeconds).toFixed(1)} s after the last delivery)`);
    }

    // 3. The open pixel, 50 clients, tokens of 1,000 different delivered messages in turn.
    const tokens = sink.received.slice(0, 1_000).map((m) => tokenIn(m.raw, 'o')!);
    const pixel = await measureLoad('GET /t/o/{token} (open pixel)', { total: PIXEL_REQUESTS, clients: 50, warmup: 500 }, (i) =>
      benchRequest(`${stack.baseUrl}/t/o/${tokens[i % tokens.length]}`, { headers: { 'user-agent': HUMAN } }),
    );
    record(`open pixel at 50 clients: ${pixel.rps.toFixed(0)} req/s, p50 ${pixel.p50.toFixed(1)} ms, p99 ${pixel.p99.toFixed(1)} ms, max ${pixel.max.toFixed(1)} ms`);
    // The floor of any route on this machine: the gateway's liveness answer (no authentication, no
    // service, no database) to the same 50 clients, right after.
    const floor = await measureLoad('GET /healthz (the floor: no work at all)', { total: PIXEL_REQUESTS, clients: 50, warmup: 500 }, () => benchRequest(`${stack.baseUrl}/healthz`));
    record(
      `floor, GET /healthz at 50 clients: ${floor.rps.toFixed(0)} req/s, p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms; ` +
        `pixel over floor: p99 ${(pixel.p99 / floor.p99).toFixed(2)}×, req/s ${(pixel.rps / floor.rps).toFixed(2)}×`,
    );
    check(`pixel p99 ≤ ${TARGETS.pixelP99Ms} ms`, pixel.p99 <= TARGETS.pixelP99Ms);
  } finally {
    sink.rules = {};
    sink.release();
    await stack.stop();
    await dropBenchConsumers(schemaOf);
    await dropBenchSchemas(peopleDb, schemaOf);
    await peopleDb.close();
    void sink.close();
  }
  finish();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
