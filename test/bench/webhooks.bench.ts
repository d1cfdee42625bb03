/**
 * Webhooks benchmark (`npm run bench:webhooks`; method and figures in README.md).
 *
 * Starts every service and the gateway as separate `crm start` processes on this machine's
 * Postgres (fresh schemas, dropped afterwards) and NATS (events must travel from people to
 * webhooks), with a receiver of the bench's own on loopback behind 10 endpoints of one workspace,
 * then measures:
 *   1. steady: contacts created through the API at a fixed rate (`BENCH_RATE` a second, default 50,
 *      so 500 deliveries a second) for `BENCH_SECONDS` (default 30): event to delivery latency,
 *      from the event's `timestamp` (when people committed the change) to the receiver reading the
 *      body, p50 and p99;
 *   2. burst: `BENCH_BURST` contacts (default 2,000) created as fast as 10 clients can: the
 *      deliveries a second the webhooks process sustains, first delivery to last.
 * Every delivery is checked: each endpoint gets every event (distinct `webhook-id`s), and one in 50
 * is verified with the `standardwebhooks` library.
 *
 * Environment: DATABASE_URL, BENCH_NATS_URL (default nats://127.0.0.1:4222), BENCH_RATE,
 * BENCH_SECONDS, BENCH_BURST, BENCH_ENDPOINTS (default 10), BENCH_CHECK=1 exits non-zero when a
 * target is missed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPgClient } from '@crm/kit';
import { Webhook } from 'standardwebhooks';
import { REPO_ROOT } from '../support/processes';
import { DATABASE_URL, benchReport, benchRequest, dropBenchConsumers, dropBenchSchemas, log, quantile, startBenchStack } from './bench-stack';

process.env.BENCH_NATS_URL ||= 'nats://127.0.0.1:4222';
const RATE = Number(process.env.BENCH_RATE || 50);
const SECONDS = Number(process.env.BENCH_SECONDS || 30);
const BURST = Number(process.env.BENCH_BURST || 2_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS || 10);
const STATE_DIR = path.join(REPO_ROOT, 'test/bench/.data');
const RESULTS_FILE = path.join(STATE_DIR, 'webhooks-results.md');
const TARGETS = { p99Ms: 1_000, deliveriesPerSecond: 500 };

const run = `bwh_${randomBytes(3).toString('hex')}`;
const schemaOf = (component: string) => `${run}_${component}`;

interface Received {
  endpoint: number;
  webhookId: string;
  /** Event (the body's timestamp) to the body read, ms. */
  latencyMs: number;
  /** performance.now() when read. */
  at: number;
}

/** One HTTP server for every endpoint (`/e/<n>`); records each delivery, verifies one in 50. */
async function startReceiver(secrets: Map<number, string>) {
  const received: Received[] = [];
  let verified = 0;
  const failures: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const now = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const endpoint = Number(request.url?.split('/')[2]);
      const webhookId = String(request.headers['webhook-id']);
      try {
        const event = JSON.parse(body) as { timestamp: string };
        received.push({ endpoint, webhookId, latencyMs: now - Date.parse(event.timestamp), at });
        if (received.length % 50 === 0) {
          new Webhook(secrets.get(endpoint)!).verify(body, request.headers as Record<string, string>);
          verified++;
        }
      } catch (error) {
        failures.push(`${request.url}: ${(error as Error).message}`);
      }
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    failures,
    verified: () => verified,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `expected` deliveries have come since `from` (an index into received), or fails after `limitMs`. */
async function awaitDeliveries(received: Received[], from: number, expected: number, limitMs: number): Promise<void> {
  const started = performance.now();
  while (received.length - from < expected) {
    if (performance.now() - started > limitMs) throw new Error(`received ${received.length - from} of ${expected} deliveries after ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every endpoint got every event of the phase: distinct webhook-ids per endpoint; duplicates counted. */
function completeness(phase: Received[], events: number): { missing: number; duplicates: number } {
  let missing = 0;
  let duplicates = 0;
  for (let endpoint = 0; endpoint < ENDPOINTS; endpoint++) {
    const ids = phase.filter((r) => r.endpoint === endpoint).map((r) => r.webhookId);
    const distinct = new Set(ids).size;
    missing += Math.max(0, events - distinct);
    duplicates += ids.length - distinct;
  }
  return { missing, duplicates };
}

function latencyLine(phase: Received[]): { p50: number; p99: number; max: number; line: string } {
  const sorted = phase.map((r) => r.latencyMs).sort((a, b) => a - b);
  const p50 = quantile(sorted, 0.5);
  const p99 = quantile(sorted, 0.99);
  const max = sorted[sorted.length - 1]!;
  return { p50, p99, max, line: `p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms` };
}

async function main(): Promise<void> {
  mkdirSync(STATE_DIR, { recursive: true });
  const db = await createPgClient({ url: DATABASE_URL, schema: 'public', max: 1, applicationName: 'crm-bench' });
  const secrets = new Map<number, string>();
  const receiver = await startReceiver(secrets);
  const stack = await startBenchStack({
    secrets: { CURSOR_SECRET: randomBytes(32).toString('base64'), SECRETS_KEY: randomBytes(32).toString('base64'), KEY_PEPPER: randomBytes(16).toString('hex') },
    dataDir: path.join(STATE_DIR, run),
    schemaOf,
    // The receiver is on loopback over plain http: the egress checks are lifted for this run only.
    // The load generator's keep-alive connections wait idle while deliveries drain between phases:
    // the gateway keeps them that long.
    componentEnv: { webhooks: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_ALLOW_HTTP: '1', DB_POOL_SIZE: process.env.BENCH_WEBHOOKS_POOL ?? '10' }, gateway: { KEEP_ALIVE_TIMEOUT_MS: '600000' } },
  });
  const { record, check, finish } = benchReport(RESULTS_FILE);
  try {
    const { key } = await stack.workspaceWithKey('Bench webhooks');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (let endpoint = 0; endpoint < ENDPOINTS; endpoint++) {
      const created = await benchRequest(`${stack.baseUrl}/v1/webhook_endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${receiver.url}/e/${endpoint}`, event_types: ['contact.created'] }),
      });
      if (created.status !== 201) throw new Error(`creating an endpoint: HTTP ${created.status} ${await created.text()}`);
      secrets.set(endpoint, (await created.json<{ data: { secret: string } }>()).data.secret);
    }
    let contact = 0;
    const create = async () => {
      const n = contact++;
      const answer = await benchRequest(`${stack.baseUrl}/v1/contacts`, { method: 'POST', headers, body: JSON.stringify({ email: `c${n}@bench.example`, first_name: `C${n}` }) });
      if (answer.status !== 201) throw new Error(`creating a contact: HTTP ${answer.status} ${await answer.text()}`);
    };

    // Warm-up: 20 events, delivered, not recorded.
    for (let i = 0; i < 20; i++) await create();
    await awaitDeliveries(receiver.received, 0, 20 * ENDPOINTS, 60_000);

    // 1. Steady: RATE contacts a second, each started on schedule (open loop), whatever the answers' pace.
    const steadyFrom = receiver.received.length;
    const events = RATE * SECONDS;
    log(`steady: ${events} contacts at ${RATE}/s to ${ENDPOINTS} endpoints (${RATE * ENDPOINTS} deliveries/s)`);
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < events; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(create());
    }
    await Promise.all(inFlight);
    const sent = (performance.now() - started) / 1000;
    await awaitDeliveries(receiver.received, steadyFrom, events * ENDPOINTS, 120_000);
    const steady = receiver.received.slice(steadyFrom, steadyFrom + events * ENDPOINTS);
    const steadyLatency = latencyLine(steady);
    const steadyCheck = completeness(steady, events);
    record(
      `steady: ${events.toLocaleString('en')} events in ${sent.toFixed(1)} s (${(events / sent).toFixed(0)}/s) to ${ENDPOINTS} endpoints = ` +
        `${((events * ENDPOINTS) / sent).toFixed(0)} deliveries/s; event to delivery ${steadyLatency.line}; ` +
        `missing ${steadyCheck.missing}, duplicates ${steadyCheck.duplicates}`,
    );
    // Latency across the phase, by when the delivery came: flat when delivery keeps up, rising when it falls behind.
    const first = steady.reduce((min, r) => Math.min(min, r.at), Infinity);
    const slices: string[] = [];
    for (let from = first; ; from += 5_000) {
      const slice = steady.filter((r) => r.at >= from && r.at < from + 5_000).map((r) => r.latencyMs).sort((a, b) => a - b);
      if (!slice.length) break;
      slices.push(`${((from - first) / 1000).toFixed(0)} s: ${slice.length} p50 ${quantile(slice, 0.5).toFixed(0)} ms`);
    }
    record(`  steady, by 5 s of arrival: ${slices.join('; ')}`);
    check(`p99 ≤ ${TARGETS.p99Ms} ms at ${RATE * ENDPOINTS} deliveries/s`, steadyLatency.p99 <= TARGETS.p99Ms);
    check('every event delivered to every endpoint (steady)', steadyCheck.missing === 0);

    // 2. Burst: as fast as 10 clients create contacts; the deliveries' rate, first to last.
    const burstFrom = receiver.received.length;
    log(`burst: ${BURST} contacts from 10 clients`);
    const burstStarted = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (contact - (20 + events) < BURST) await create();
      }),
    );
    const created = contact - (20 + events);
    const createdSeconds = (performance.now() - burstStarted) / 1000;
    await awaitDeliveries(receiver.received, burstFrom, created * ENDPOINTS, 600_000);
    const burst = receiver.received.slice(burstFrom, burstFrom + created * ENDPOINTS);
    const span = (burst[burst.length - 1]!.at - burst[0]!.at) / 1000;
    const rate = burst.length / span;
    const burstCheck = completeness(burst, created);
    record(
      `burst: ${created.toLocaleString('en')} events created in ${createdSeconds.toFixed(1)} s (${(created / createdSeconds).toFixed(0)}/s); ` +
        `${burst.length.toLocaleString('en')} deliveries in ${span.toFixed(1)} s = ${rate.toFixed(0)} deliveries/s; ` +
        `event to delivery ${latencyLine(burst).line}; missing ${burstCheck.missing}, duplicates ${burstCheck.duplicates}`,
    );
    check(`≥ ${TARGETS.deliveriesPerSecond} deliveries/s sustained`, rate >= TARGETS.deliveriesPerSecond);
    check('every event delivered to every endpoint (burst)', burstCheck.missing === 0);
    record(`signatures verified with standardwebhooks: ${receiver.verified()}, failures: ${receiver.failures.length}${receiver.failures.length ? ` (${receiver.failures[0]})` : ''}`);
    check('every sampled signature verifies', receiver.failures.length === 0);
    // Where the time went: event to delivery row (the consumer: reading the record, writing the
    // rows), then row to the attempt's start (the worker's claim), over every delivery of the run.
    const { rows } = await db.query<{ consumer_p50: number; consumer_p99: number; worker_p50: number; worker_p99: number }>(
      `WITH d AS (
         SELECT extract(epoch FROM created_at - (payload->>'timestamp')::timestamptz) * 1000 AS consumer,
                extract(epoch FROM last_attempt_at - created_at) * 1000 AS worker
         FROM ${schemaOf('webhooks')}.webhook_deliveries)
       SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY consumer) AS consumer_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY consumer) AS consumer_p99,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY worker) AS worker_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY worker) AS worker_p99 FROM d`,
    );
    const split = rows[0]!;
    record(
      `where the time went, every delivery: event to its delivery row p50 ${split.consumer_p50.toFixed(0)} ms, p99 ${split.consumer_p99.toFixed(0)} ms; ` +
        `row to the attempt p50 ${split.worker_p50.toFixed(0)} ms, p99 ${split.worker_p99.toFixed(0)} ms`,
    );
  } finally {
    await stack.stop();
    await dropBenchConsumers(schemaOf);
    await dropBenchSchemas(db, schemaOf);
    await db.close();
    await receiver.close();
  }
  finish();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
