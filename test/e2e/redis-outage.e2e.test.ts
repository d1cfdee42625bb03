/**
 * Redis stopped under writes (issue #37, item 2; gateway/README.md, "When Redis is down"), with the
 * services as separate processes and a Redis of the suite's own:
 * - the gateway stays ready (`/readyz` 200, reporting `dependencies.redis: false`) and every write
 *   is answered 2xx, with the limits and idempotency records kept in its own memory meanwhile;
 * - the outage is on the gateway's metric `crm.dependency.available{crm.dependency="redis"}`;
 * - a send, which cannot be served without the shared quota, is 503 `unavailable` with
 *   Retry-After, and its retry with the same Idempotency-Key once Redis is back sends it once;
 * - every acknowledged write is there afterwards.
 */
import { randomBytes } from 'node:crypto';
import { TEST_DATABASE_URL, expectEventually, serviceAvailable, toolAvailable } from '@crm/kit/testing';
import { freePort } from '../support/processes';
import { REDIS_SERVER_BINARY } from '../support/redis-cluster';
import { type RedisServer, startRedisServer } from '../support/redis-server';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

/** How long Redis stays down: past two rounds of the gateway's 5 s check, so the metric shows it. */
const OUTAGE_MS = 12_000;

// Postgres too: the same run on PGlite (CI's second pass) would add a minute and test nothing more.
const suite = toolAvailable('redis-server', REDIS_SERVER_BINARY !== undefined) && serviceAvailable('Postgres', TEST_DATABASE_URL) ? describe : describe.skip;
const unique = () => randomBytes(6).toString('hex');

suite('Redis stopped under writes', () => {
  let redis: RedisServer | undefined;
  let sink: SmtpSink;
  let stack: Stack | undefined;
  let metricsPort = 0;
  let key = '';

  beforeAll(async () => {
    [redis, sink] = await Promise.all([startRedisServer(), startSmtpSink()]);
    metricsPort = await freePort();
    stack = await startStack({
      gatewayEnv: { REDIS_URL: redis.url, METRICS_PORT: String(metricsPort) },
      componentEnv: { messaging: { REDIS_URL: redis.url, SMTP_URL: sink.url } },
    });
    key = (await stack.workspaceWithKey(`redis-outage-${unique()}`, '*')).key;
  }, 150_000);
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([redis?.close(), sink?.close()]);
  });

  const post = (path: string, body: unknown, idempotencyKey: string) =>
    fetch(`${stack!.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  const readiness = async () => {
    const response = await fetch(`${stack!.baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as { dependencies: { redis?: boolean } } };
  };
  const redisGauge = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('crm_dependency_available{') && l.includes('crm_dependency="redis"'));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  test('the gateway stays ready and answers every write; a send is 503 until Redis is back, then goes once', async () => {
    const contact = await (await post('/v1/contacts', { first_name: 'Sent', email: `sent-${unique()}@example.com` }, `c-${unique()}`)).json();
    expect(await redisGauge()).toBe(1);

    let running = true;
    const writes: { status: number; email: string; id?: string }[] = [];
    const probes: { status: number; redis?: boolean }[] = [];
    const writer = async () => {
      while (running) {
        const email = `w-${unique()}@example.com`;
        const response = await post('/v1/contacts', { first_name: 'Load', email }, `w-${unique()}`);
        writes.push({ status: response.status, email, id: response.status === 201 ? ((await response.json()) as any).data.id : undefined });
      }
    };
    const prober = async () => {
      while (running) {
        const { status, body } = await readiness();
        probes.push({ status, redis: body.dependencies.redis });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const load = [writer(), writer(), writer(), prober()];
    try {
      await expectEventually(() => expect(writes.length).toBeGreaterThan(20), { timeoutMs: 30_000 });
      const stoppedAt = Date.now();
      const atStop = writes.length;
      await redis!.stop();

      // The send cannot reserve its place in the shared quota: 503 with Retry-After, nothing queued.
      const send = { contact_id: contact.data.id, subject: 'During the outage', body: 'Hi' };
      const refused = await post('/v1/sent_emails', send, 'outage-send');
      expect([refused.status, ((await refused.json()) as any).error?.code]).toEqual([503, 'unavailable']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

      await expectEventually(async () => expect(await redisGauge()).toBe(0), { timeoutMs: 30_000, intervalMs: 500 });
      await expectEventually(() => expect(probes.some((p) => p.redis === false)).toBe(true), { timeoutMs: 10_000 });
      // Writes go on through the whole outage.
      await expectEventually(
        () => {
          expect(writes.length - atStop).toBeGreaterThan(10);
          expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(OUTAGE_MS);
        },
        { timeoutMs: OUTAGE_MS + 30_000, intervalMs: 200 },
      );
      const duringOutage = writes.length;
      await redis!.start();

      await expectEventually(async () => expect((await readiness()).body.dependencies.redis).toBe(true), { timeoutMs: 30_000, intervalMs: 200 });
      await expectEventually(async () => expect(await redisGauge()).toBe(1), { timeoutMs: 30_000, intervalMs: 500 });
      // The retry of the refused send, same key: accepted now, and a repeat replays it.
      const sent = await post('/v1/sent_emails', send, 'outage-send');
      expect(sent.status).toBe(201);
      const sentId = ((await sent.json()) as any).data.id;
      const replayed = await post('/v1/sent_emails', send, 'outage-send');
      expect([replayed.status, replayed.headers.get('idempotent-replayed'), ((await replayed.json()) as any).data.id]).toEqual([201, 'true', sentId]);
      await expectEventually(() => expect(writes.length).toBeGreaterThan(duringOutage + 10), { timeoutMs: 30_000 });
    } finally {
      running = false;
      await Promise.all(load);
    }

    // No write was refused or failed, and readiness never left 200.
    expect(writes.filter((w) => w.status !== 201)).toEqual([]);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    // Every acknowledged write is there.
    for (const w of writes) {
      const got = await fetch(`${stack!.baseUrl}/v1/contacts/${w.id}`, { headers: { authorization: `Bearer ${key}` } });
      expect([w.email, got.status]).toEqual([w.email, 200]);
    }
    await expectEventually(() => expect(sink.received.filter((m) => m.subject === 'During the outage')).toHaveLength(1), { timeoutMs: 30_000 });
  });
});
