/**
 * Postgres restarting under a steady write load (DESIGN.md's error table: "a backing service is
 * down" is 503 `unavailable` with Retry-After, never 500). The services reach Postgres through a
 * proxy of the test's own, which cuts every connection and refuses new ones for a few seconds, as a
 * restart or a failover does to its clients, while the real server goes on serving other suites.
 * Writers create contacts, three at a time, each with its Idempotency-Key, retrying a 503 after
 * Retry-After as the SDK does. Then: no answer was a 500; every acknowledged contact is there,
 * once; and the time from the end of the outage to the next acknowledged write is printed.
 * Once all-in-one on a real Postgres, once with the services as separate processes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { TEST_DATABASE_URL, serviceAvailable } from '@crm/kit/testing';
import { Client } from 'pg';
import { type AllInOne, startAllInOne } from '../support/all-in-one';
import { type Stack, startStack } from '../support/stack';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy';

jest.setTimeout(300_000);

const havePostgres = serviceAvailable('Postgres', TEST_DATABASE_URL);
const suite = havePostgres ? describe : describe.skip;

const WRITERS = 3;
const LOAD_MS = 12_000;
const OUTAGE_AT_MS = 4_000;
const OUTAGE_MS = 3_000;

interface LoadOutcome {
  statuses: Record<number, number>;
  acknowledged: { id: string; email: string }[];
  recoveryMs: number;
}

/** WRITERS writers creating contacts for LOAD_MS, with the proxy's outage OUTAGE_AT_MS in. */
async function writeThroughOutage(baseUrl: string, key: string, proxy: TcpProxy, tag: string): Promise<LoadOutcome> {
  const statuses: Record<number, number> = {};
  const acknowledged: { id: string; email: string; at: number }[] = [];
  const started = Date.now();
  let outageEnded = Infinity;
  const outage = (async () => {
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_AT_MS));
    await proxy.outage(OUTAGE_MS);
    outageEnded = Date.now();
  })();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = 0; Date.now() - started < LOAD_MS; n++) {
        const email = `${tag}-w${writer}-${n}@restart.test`;
        const idempotencyKey = randomUUID();
        // One logical write: the same request and key until it is acknowledged (or fails otherwise).
        for (;;) {
          const response = await fetch(`${baseUrl}/v1/contacts`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
            body: JSON.stringify({ email, first_name: `W${writer}` }),
          }).catch(() => undefined);
          const status = response?.status ?? 0;
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status === 201) {
            acknowledged.push({ id: ((await response!.json()) as { data: { id: string } }).data.id, email, at: Date.now() });
            break;
          }
          await response?.text();
          if (status !== 503) break;
          expect(response!.headers.get('retry-after')).toMatch(/^\d+$/);
          await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Number(response!.headers.get('retry-after')) * 1_000)));
        }
      }
    }),
  );
  await outage;
  const firstAfter = acknowledged.filter((a) => a.at >= outageEnded).sort((a, b) => a.at - b.at)[0];
  return { statuses, acknowledged, recoveryMs: firstAfter ? firstAfter.at - outageEnded : Infinity };
}

async function checkOutcome(outcome: LoadOutcome, baseUrl: string, key: string, countByEmail: () => Promise<Map<string, number>>, what: string) {
  console.log(
    `${what}: answers by status ${JSON.stringify(outcome.statuses)}; ${outcome.acknowledged.length} contacts acknowledged; ` +
      `first acknowledged write ${outcome.recoveryMs} ms after the outage ended`,
  );
  expect(Object.keys(outcome.statuses).filter((s) => Number(s) >= 500 && Number(s) !== 503)).toEqual([]);
  expect(outcome.statuses[0]).toBeUndefined(); // every request was answered
  // The outage was felt: some writes waited for Postgres with a 503 (else this test proved nothing).
  expect(outcome.statuses[503]).toBeGreaterThan(0);
  expect(outcome.recoveryMs).toBeLessThan(10_000);
  // Every acknowledged contact reads back, and none was written twice by a retried request.
  for (const { id } of outcome.acknowledged) {
    const read = await fetch(`${baseUrl}/v1/contacts/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect([id, read.status]).toEqual([id, 200]);
  }
  const stored = await countByEmail();
  for (const { email } of outcome.acknowledged) expect([email, stored.get(email)]).toEqual([email, 1]);
  expect([...stored.values()].filter((n) => n > 1)).toEqual([]);
}

async function contactsByEmail(databaseUrl: string, schema: string, tag: string): Promise<Map<string, number>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ email: string; n: number }>(
      `SELECT email, count(*)::int AS n FROM ${schema}.contacts WHERE email LIKE $1 GROUP BY email`,
      [`${tag}-%`],
    );
    return new Map(rows.map((r) => [r.email, r.n]));
  } finally {
    await client.end();
  }
}

suite('Postgres restarting under writes', () => {
  const upstream = new URL(TEST_DATABASE_URL);
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  });
  afterAll(() => proxy?.close());

  const viaProxy = (database?: string) => {
    const url = new URL(TEST_DATABASE_URL);
    url.host = proxy.address;
    if (database) url.pathname = `/${database}`;
    return url.toString();
  };

  test('all-in-one on a real Postgres: no 500, every acknowledged write there once', async () => {
    const database = `crm_pgr_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    let aio: AllInOne | undefined;
    try {
      aio = await startAllInOne({ DATABASE_URL: viaProxy(database), RATE_LIMIT_KEY: '1000000', RATE_LIMIT_WORKSPACE: '1000000' });
      const outcome = await writeThroughOutage(aio.url, aio.key, proxy, 'aio');
      const direct = new URL(TEST_DATABASE_URL);
      direct.pathname = `/${database}`;
      await checkOutcome(outcome, aio.url, aio.key, () => contactsByEmail(direct.toString(), 'people', 'aio'), 'all-in-one');
    } catch (error) {
      console.log(aio?.process.output().slice(-4000));
      throw error;
    } finally {
      await aio?.stop();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  });

  test('services as separate processes: no 500, every acknowledged write there once', async () => {
    let stack: Stack | undefined;
    try {
      stack = await startStack({ env: { DATABASE_URL: viaProxy() } });
      const { key } = await stack.workspaceWithKey('Restart', '*');
      const outcome = await writeThroughOutage(stack.baseUrl, key, proxy, 'stack');
      await checkOutcome(outcome, stack.baseUrl, key, () => contactsByEmail(TEST_DATABASE_URL, stack!.schemas.people!, 'stack'), 'separate processes');
    } finally {
      await stack?.stop();
    }
  });
});
