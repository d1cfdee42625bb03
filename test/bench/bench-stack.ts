import { mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SqlQueryable } from '@crm/kit';
import { SERVICE_COMPONENTS, addressEnv } from '@crm/cli/dist/components';
import { deleteDurables } from '../support/nats-durables';
import { type CrmProcess, REPO_ROOT, freePort, runCrmJson, startCrm } from '../support/processes';

/**
 * What every benchmark shares: the system started as separate `crm start` processes on this
 * machine's Postgres (no NATS: events stay in each process, the outbox relay still runs), quiet
 * logs, spans created and not exported, rate limits out of the way; and the load loop with its
 * latency quantiles.
 */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export const PROFILE_DIR = path.join(REPO_ROOT, 'test/bench/.data/profiles');

export const log = (line: string) => process.stdout.write(`${line}\n`);

/** The q-quantile of ascending samples (nearest rank). */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

/** Limits out of the way unless the caller set them; every RATE_LIMIT_* variable is passed on. */
export function rateLimitEnv(): NodeJS.ProcessEnv {
  const given = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('RATE_LIMIT')));
  return {
    RATE_LIMIT_KEY: '1000000000',
    RATE_LIMIT_WORKSPACE: '1000000000',
    ...given,
  };
}

export interface BenchStackOptions {
  /** CURSOR_SECRET, SECRETS_KEY, KEY_PEPPER (kept by a bench that reuses its seed). */
  secrets: NodeJS.ProcessEnv;
  dataDir: string;
  /** The Postgres schema of each service on a database. */
  schemaOf: (component: string) => string;
  /** More environment for one component (a service or `gateway`). */
  componentEnv?: Record<string, NodeJS.ProcessEnv>;
}

export interface BenchStack {
  baseUrl: string;
  addresses: Record<string, string>;
  /** Runs `crm admin <args>` against this stack's directory. */
  admin<T>(args: string[]): Promise<T>;
  /** A new workspace and a key with every scope. */
  workspaceWithKey(name: string): Promise<{ workspaceId: string; key: string }>;
  stop(): Promise<void>;
}

/**
 * `BENCH_CPU_PROF=flows,messaging` (or `all`) writes a V8 CPU profile of those processes, taken
 * from start to stop, to `test/bench/.data/profiles` (open it in Chrome's DevTools, or summarise
 * it with `node scripts/cpu-profile-top.mjs <file>`). `BENCH_NODE_ARGS` adds Node options to every
 * process of the stack (`--trace-gc-nvp` prints each garbage collection); the stack then keeps each
 * process's output, once it stops, in the same directory as `<component>-<time>.log`.
 */
export function profileArgs(component: string): string[] {
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const wanted = (process.env.BENCH_CPU_PROF ?? '').split(',').map((s) => s.trim());
  if (!wanted.includes(component) && !wanted.includes('all')) return extra;
  return [...extra, '--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${component}-${Date.now()}.cpuprofile`];
}

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const common: NodeJS.ProcessEnv = {
    ...options.secrets,
    CRM_DATA_DIR: options.dataDir,
    DATABASE_URL,
    // Events stay in each process (the outbox relay still runs, without a network hop to NATS),
    // unless BENCH_NATS_URL names a NATS server: then they travel between the services as deployed.
    // The stack's new durables read the stream from the stack's start (NATS_NEW_DURABLES_FROM),
    // so events other runs left there are not read again.
    NATS_URL: process.env.BENCH_NATS_URL ?? '',
    NATS_NEW_DURABLES_FROM: new Date().toISOString(),
    MONGO_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'warn',
    OTEL_TRACES_EXPORTER: 'none',
    DB_POOL_SIZE: '10',
  };
  const addresses: Record<string, string> = {};
  for (const component of SERVICE_COMPONENTS) addresses[component.name] = `127.0.0.1:${await freePort()}`;
  const peerAddrs = Object.fromEntries(Object.entries(addresses).map(([name, address]) => [addressEnv(name), address]));
  const processes: CrmProcess[] = SERVICE_COMPONENTS.map((component) =>
    startCrm(
      component.name,
      ['start', component.name],
      {
        ...common,
        ...peerAddrs,
        GRPC_ADDR: addresses[component.name],
        ...(component.database ? { DB_SCHEMA: options.schemaOf(component.name) } : {}),
        ...options.componentEnv?.[component.name],
      },
      REPO_ROOT,
      profileArgs(component.name),
    ),
  );
  const port = await freePort();
  processes.push(
    startCrm('gateway', ['start', 'gateway'], { ...common, ...peerAddrs, ...rateLimitEnv(), PORT: String(port), ...options.componentEnv?.gateway }, REPO_ROOT, profileArgs('gateway')),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (process.env.BENCH_NODE_ARGS) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      for (const p of processes) writeFileSync(path.join(PROFILE_DIR, `${p.name}-${Date.now()}.log`), p.output());
    }
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    const exited = processes.find((p) => p.child.exitCode !== null);
    if (exited) {
      await stop();
      throw new Error(`${exited.name} exited:\n${exited.output()}`);
    }
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      for (const p of processes) log(`--- ${p.name} ---\n${p.output()}`);
      await stop();
      throw new Error('the stack did not become ready within 120 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const adminEnv = { DIRECTORY_ADDR: addresses.directory };
  const admin = <T>(args: string[]) => runCrmJson<T>(args, adminEnv);
  return {
    baseUrl,
    addresses,
    admin,
    async workspaceWithKey(name) {
      const workspaceId = (await admin<{ id: string }>(['admin', 'workspace', 'create', '--name', name])).id;
      const key = (await admin<{ key: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', '*'])).key;
      return { workspaceId, key };
    },
    stop,
  };
}

/** What `measureLoad` reads of an answer: a `fetch` Response has it, and so does `benchRequest`'s. */
export interface LoadResponse {
  status: number;
  text(): Promise<string>;
}

/**
 * Keep-alive connections for every `benchRequest`: as many as there are clients, each reused, as a
 * load generator keeps them.
 */
const benchAgent = new http.Agent({ keepAlive: true });

/**
 * An HTTP/1.1 request over a keep-alive `node:http` agent, answered with its status and body. The
 * load loops use it rather than `fetch`: the load generator runs on the two cores it measures, and
 * `fetch` (undici, with WHATWG streams) cost it 0.31 to 0.33 ms of CPU per request against 0.07 ms
 * for `node:http`, in one run of 20,000 requests of a 5 KB JSON answer at 10 clients
 * (test/bench/README.md, people: "What the gateway kept, and the load generator's own cost"). Every
 * millisecond the client spends is taken from the gateway, the services and Postgres.
 */
export function benchRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<LoadResponse & { json<T>(): Promise<T> }> {
  return new Promise((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
    const request = http.request(url, { method: init.method ?? 'GET', headers, agent: benchAgent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        // Decoded when asked: bench:gateway only looks at the status.
        let body: string | undefined;
        const text = async () => (body ??= Buffer.concat(chunks).toString('utf8'));
        resolve({ status: response.statusCode!, text, json: async <T>() => JSON.parse(await text()) as T });
      });
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

export interface LoadResult {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  rps: number;
}

/**
 * `total` requests from `clients` concurrent clients after `warmup` unrecorded ones; latency per
 * request at the client (sent to body read), throughput over the measured wall time.
 */
export async function measureLoad(
  name: string,
  options: { total: number; clients: number; warmup?: number; expectStatus?: number },
  request: (i: number, client: number) => Promise<LoadResponse>,
): Promise<LoadResult> {
  const run = async (count: number, record: number[] | undefined) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: options.clients }, async (_, client) => {
        for (let i = next++; i < count; i = next++) {
          const started = performance.now();
          const response = await request(i, client);
          const body = await response.text();
          const ms = performance.now() - started;
          if (response.status !== (options.expectStatus ?? 200)) throw new Error(`${name}: HTTP ${response.status} ${body.slice(0, 300)}`);
          record?.push(ms);
        }
      }),
    );
  };
  await run(options.warmup ?? 30, undefined);
  const latencies: number[] = [];
  const started = performance.now();
  await run(options.total, latencies);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = { name, requests: options.total, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies[latencies.length - 1]!, rps: options.total / seconds };
  log(`  ${name.padEnd(58)} p50 ${result.p50.toFixed(1).padStart(6)} ms  p99 ${result.p99.toFixed(1).padStart(6)} ms  ${result.rps.toFixed(0).padStart(5)} req/s`);
  return result;
}

/** Deletes the NATS durables of a bench stack's services, named after their schemas (when BENCH_NATS_URL is set). */
export async function dropBenchConsumers(schemaOf: (component: string) => string): Promise<void> {
  if (!process.env.BENCH_NATS_URL) return;
  await deleteDurables(process.env.BENCH_NATS_URL, SERVICE_COMPONENTS.filter((c) => c.database).map((c) => schemaOf(c.name)));
}

/** Drops every Postgres schema a bench stack's services used (`schemaOf` as given to `startBenchStack`). */
export async function dropBenchSchemas(db: SqlQueryable, schemaOf: (component: string) => string): Promise<void> {
  for (const component of SERVICE_COMPONENTS.filter((c) => c.database)) await db.query(`DROP SCHEMA IF EXISTS ${schemaOf(component.name)} CASCADE`);
}

/**
 * A benchmark's findings: lines printed and kept, targets checked. `finish` writes the lines to
 * `resultsFile` and ends the process, non-zero under `BENCH_CHECK=1` when a target was missed.
 */
export function benchReport(resultsFile: string) {
  const lines: string[] = [];
  let missed = false;
  const record = (line: string) => {
    log(line);
    lines.push(line);
  };
  return {
    record,
    check(name: string, ok: boolean) {
      if (ok) return;
      missed = true;
      record(`  MISSED: ${name}`);
    },
    finish() {
      writeFileSync(resultsFile, `${new Date().toISOString()}\n${lines.join('\n')}\n`);
      log(`results in ${path.relative(REPO_ROOT, resultsFile)}`);
      if (missed && process.env.BENCH_CHECK === '1') process.exitCode = 1;
      setImmediate(() => process.exit());
    },
  };
}
