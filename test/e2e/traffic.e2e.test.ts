/**
 * Gateway traffic control end to end: rate limits shared by several gateway processes through
 * Redis, Idempotency-Key (including a failure injected after the commit and before the answer),
 * and a stopped or slow service under load. The services run as separate processes.
 */
import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { apiClient } from '../support/http';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const useRedis = serviceAvailable('Redis', TEST_REDIS_URL);
const unique = () => randomBytes(4).toString('hex');

(useRedis ? describe : describe.skip)('rate limits shared by three gateways through Redis', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      gateways: 3,
      gatewayEnv: {
        REDIS_URL: TEST_REDIS_URL,
        RATE_LIMIT_KEY: '5',
        RATE_LIMIT_KEY_WINDOW_MS: '3000',
        RATE_LIMIT_WORKSPACE: '8',
        RATE_LIMIT_WORKSPACE_WINDOW_MS: '3000',
      },
    });
  });
  afterAll(() => stack?.stop());

  test('every response carries the limits; the three gateways together admit exactly the per-key limit', async () => {
    const { key } = await stack.workspaceWithKey(`rl-${unique()}`, 'contacts:read');
    const clients = stack.gatewayUrls.map((url) => apiClient(url));
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 3]!('GET', '/v1/contacts?limit=1', { key })));
    const admitted = responses.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(5);
    for (const r of admitted) {
      expect(r.headers.get('ratelimit-limit')).toBe('100');
      expect(r.headers.get('ratelimit-policy')).toBe('"burst";q=5;w=3, "workspace";q=8;w=3');
      expect(r.headers.get('ratelimit')).toMatch(/^"burst";r=\d;t=\d, "workspace";r=\d;t=\d$/);
    }
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused.length).toBe(25);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error', request_id: r.headers.get('x-request-id') });
      const wait = Number(r.headers.get('retry-after'));
      expect(Number.isInteger(wait) && wait >= 1 && wait <= 3).toBe(true);
      expect(r.body.error.message).toContain(`${wait} seconds`);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }

    // A client that waits what Retry-After says is admitted.
    const last = refused[refused.length - 1]!;
    await new Promise((resolve) => setTimeout(resolve, Number(last.headers.get('retry-after')) * 1000));
    expect((await clients[1]!('GET', '/v1/contacts?limit=1', { key })).status).toBe(200);
  });

  test('the workspace limit binds across keys', async () => {
    const { workspaceId, key } = await stack.workspaceWithKey(`rl-${unique()}`, 'contacts:read');
    const keys = [key, (await stack.createKey(workspaceId, 'contacts:read')).key, (await stack.createKey(workspaceId, 'contacts:read')).key];
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      const response = await apiClient(stack.gatewayUrls[i % 3]!)('GET', '/v1/contacts?limit=1', { key: keys[i % 3] });
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('ratelimit')).toMatch(/"workspace";r=0/);
    }
    // Each key made 3 requests (under its limit of 5); the workspace allows 8.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
  });
});

describe('idempotency and failure handling', () => {
  let stack: Stack;
  let proxy: FaultProxy | undefined;
  let key: string;

  beforeAll(async () => {
    stack = await startStack({
      gatewayEnv: { UPSTREAM_TIMEOUT_MS: '2000', ...(useRedis ? { REDIS_URL: TEST_REDIS_URL } : {}) },
      gatewayAddressOf: async (component, address) => {
        if (component !== 'people') return address;
        proxy = await startFaultProxy(address);
        return proxy.address;
      },
    });
    ({ key } = await stack.workspaceWithKey(`idem-${unique()}`, '*'));
  });
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
  });

  const countBySource = async (source: string) =>
    (await stack.api('GET', `/v1/contacts?source=${source}&limit=100`, { key })).body.data as { id: string }[];

  test('50 identical POSTs in parallel create one record; later repeats replay it', async () => {
    const source = `idem-${unique()}`;
    const idempotencyKey = `create-${unique()}`;
    const body = { first_name: 'Once', source };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => stack.api('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': idempotencyKey } })),
    );
    const statuses = new Set(responses.map((r) => r.status));
    expect([...statuses].every((s) => s === 201 || s === 409)).toBe(true);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('conflict');
    expect(await countBySource(source)).toHaveLength(1);

    const replay = await stack.api('POST', '/v1/contacts', { key, body: { source, first_name: 'Once' }, headers: { 'idempotency-key': idempotencyKey } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(created[0]!.body.data);
  });

  test('a different request under the same key is 422; a malformed key is 400', async () => {
    const idempotencyKey = `reuse-${unique()}`;
    expect((await stack.api('POST', '/v1/contacts', { key, body: { first_name: 'A' }, headers: { 'idempotency-key': idempotencyKey } })).status).toBe(201);
    const reused = await stack.api('POST', '/v1/contacts', { key, body: { first_name: 'B' }, headers: { 'idempotency-key': idempotencyKey } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    const malformed = await stack.api('POST', '/v1/contacts', { key, body: { first_name: 'C' }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(malformed.status).toBe(400);
  });

  test('a failure after the commit and before the answer, then a retry, creates no duplicate', async () => {
    const source = `cut-${unique()}`;
    const idempotencyKey = `cut-${unique()}`;
    const body = { first_name: 'Committed', source };
    proxy!.cutNextResponse();
    const failed = await stack.api('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': idempotencyKey } });
    expect(proxy!.cuts()).toBe(1);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const [committed] = await expectEventually(async () => {
      const rows = await countBySource(source);
      expect(rows).toHaveLength(1);
      return rows;
    });
    const retry = await stack.api('POST', '/v1/contacts', { key, body, headers: { 'idempotency-key': idempotencyKey } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe(committed!.id);
    expect(await countBySource(source)).toHaveLength(1);
  });

  test('a slow service answers 504 at the deadline, and the gateway recovers', async () => {
    const people = stack.processes.find((p) => p.name === 'people')!;
    people.child.kill('SIGSTOP');
    try {
      const started = Date.now();
      const response = await stack.api('GET', '/v1/contacts?limit=1', { key });
      const elapsed = Date.now() - started;
      expect(response.status).toBe(504);
      expect(response.body.error.code).toBe('timeout');
      expect(elapsed).toBeGreaterThanOrEqual(1_900);
      expect(elapsed).toBeLessThan(4_000);
    } finally {
      people.child.kill('SIGCONT');
    }
    await expectEventually(async () => expect((await stack.api('GET', '/v1/contacts?limit=1', { key })).status).toBe(200), { timeoutMs: 10_000 });
  });

  test('a stopped service answers 503 within a second, no request hangs under load, and no acknowledged write is lost', async () => {
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    let writing = true;
    const writer = async (n: number) => {
      for (let i = 0; writing; i++) {
        const response = await fetch(`${stack.baseUrl}/v1/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email: `load-${n}-${i}-${unique()}@example.com` }),
          // A request that takes longer than this has hung: the deadline is 2 s.
          signal: AbortSignal.timeout(8_000),
        });
        statuses.push(response.status);
        if (response.status === 201) acknowledged.push(((await response.json()) as { data: { id: string } }).data.id);
        else await response.text();
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await expectEventually(() => expect(acknowledged.length).toBeGreaterThan(10), { timeoutMs: 20_000 });

    await stack.restart('people', async () => {
      const started = Date.now();
      const down = await stack.api('GET', '/v1/contacts?limit=1', { key });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('unavailable');
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    });
    // The gateway reconnects by itself once the service is back.
    await expectEventually(async () => expect((await stack.api('GET', '/v1/contacts?limit=1', { key })).status).toBe(200), {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const before = acknowledged.length;
    await expectEventually(() => expect(acknowledged.length).toBeGreaterThan(before + 5), { timeoutMs: 20_000 });
    writing = false;
    await Promise.all(writers);

    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    expect(statuses).toContain(503);
    for (const id of acknowledged) {
      const got = await stack.api('GET', `/v1/contacts/${id}`, { key });
      expect([id, got.status]).toEqual([id, 200]);
    }
  });
});
