/**
 * @crm/sdk against the running all-in-one, as a client team would use it: every resource created,
 * listed across pages, read, updated and deleted through the SDK's typed calls; a 429 waited out
 * and retried; a write whose answer was lost retried with its Idempotency-Key.
 *
 * The system runs with a low per-key limit (20 requests a second), so the SDK's waiting out of
 * 429s is exercised by the whole suite, not only by the test that forces one.
 */
import { type Server, type Socket, connect, createServer } from 'node:net';
import { CrmApiError, CrmConnectionError, type CrmClient, type CrmClientOptions, createCrmClient } from '@crm/sdk';
import { expectEventually } from '@crm/kit/testing';
import { type AllInOne, startAllInOne } from '../support/all-in-one';

jest.setTimeout(240_000);
const RATE_LIMIT = 20;

let system: AllInOne;
/** Every request the SDK sent, as `METHOD /path` with the path's ids and query left as sent. */
const sent: { method: string; url: string; status: number; headers: Headers }[] = [];
let crm: CrmClient;

const recording =
  (log = sent): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    log.push({ method: init?.method ?? 'GET', url: String(input), status: response.status, headers: response.headers });
    return response;
  };
const client = (options: Partial<CrmClientOptions> = {}) =>
  // A budget as large as the suite: at 20 requests a second every burst meets a 429, each waited out.
  createCrmClient({ baseUrl: system.url, apiKey: system.key, fetch: recording(), retryBudget: { maxTokens: 10_000 }, ...options });

beforeAll(async () => {
  system = await startAllInOne({ RATE_LIMIT_KEY: String(RATE_LIMIT), RATE_LIMIT_KEY_WINDOW_MS: '1000', FLOW_ENGINE_POLL_MS: '200' });
  crm = client();
}, 180_000);
afterAll(async () => {
  await system?.stop();
});

test('a forced 429 is waited out for Retry-After and retried: every call of a burst succeeds', async () => {
  // Its own client with the default retry budget: a burst just over the limit is what it is for.
  const burst: typeof sent = [];
  const own = createCrmClient({ baseUrl: system.url, apiKey: system.key, fetch: recording(burst) });
  // From a window holding only this probe (the suite's set-up ran just before): probes a window apart.
  await expectEventually(
    async () => {
      await own.GET('/v1/contacts', { params: { query: { limit: 1 } } });
      expect(burst.at(-1)!.headers.get('ratelimit-remaining')).toBe(String(RATE_LIMIT - 1));
    },
    { timeoutMs: 20_000, intervalMs: 1_100 },
  );
  burst.length = 0;
  const started = Date.now();
  const calls = RATE_LIMIT + 2;
  const pages = await Promise.all(Array.from({ length: calls }, () => own.GET('/v1/contacts', { params: { query: { limit: 1 } } })));
  expect(pages.every((page) => Array.isArray(page.data))).toBe(true);
  const refused = burst.filter((r) => r.status === 429);
  expect(refused.length).toBeGreaterThanOrEqual(2);
  expect(refused.every((r) => Number(r.headers.get('retry-after')) >= 1)).toBe(true);
  expect(burst.filter((r) => r.status === 200)).toHaveLength(calls);
  // The refused ones were sent again only after the server's Retry-After.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
});

// ---------------------------------------------------------------------------------------------
// Every resource, every operation it offers

const unique = () => Math.random().toString(36).slice(2, 10);
const contacts: { id: string }[] = [];
let flowId = '';
let ownerId = '';

async function newContacts(count: number) {
  const made = [];
  for (let i = 0; i < count; i++) {
    const { data } = await crm.POST('/v1/contacts', { body: { first_name: `Sdk${i}`, last_name: 'Tester', email: `sdk-${unique()}@example.com` } });
    made.push(data);
  }
  contacts.push(...made);
  return made;
}

/**
 * One resource's round trip. Paths are the document's own; each call is the SDK's typed call (the
 * table erases the per-path types, which the unit tests and the examples keep).
 */
interface Resource {
  path: string;
  create: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  update?: Record<string, unknown>;
  /** Whether DELETE is offered. */
  remove?: boolean;
  /** An order on a field no one changes: a record whose sort key moves between pages (a send's sent_at) may be met twice or never. */
  sort?: string;
}
const RESOURCES: Resource[] = [
  { path: '/v1/contacts', create: () => ({ first_name: 'Round', email: `round-${unique()}@example.com` }), update: { title: 'CTO' }, remove: true },
  { path: '/v1/organizations', create: () => ({ name: `Org ${unique()}`, domain: `${unique()}.example.com` }), update: { industry: 'Software' }, remove: true },
  { path: '/v1/pools', create: () => ({ name: `Pool ${unique()}`, visibility: 'workspace' }), update: { description: 'Edited' }, remove: true },
  {
    path: '/v1/pool_contacts',
    create: async () => {
      const { data: pool } = await crm.POST('/v1/pools', { body: { name: `Members ${unique()}` } });
      const [contact] = await newContacts(1);
      return { pool_id: pool.id, contact_id: contact!.id };
    },
    remove: true,
    sort: '-added_at',
  },
  { path: '/v1/tasks', create: () => ({ title: `Task ${unique()}`, contact_id: contacts[0]!.id, suggested_action: 'call' }), update: { status: 'completed' }, remove: true },
  { path: '/v1/call_logs', create: () => ({ status: 'completed', outcome: 'connected', contact_id: contacts[0]!.id, duration_seconds: 60 }) },
  {
    path: '/v1/meetings',
    create: () => ({ title: `Meeting ${unique()}`, contact_id: contacts[0]!.id, scheduled_start: '2026-12-01T10:00:00.000Z', scheduled_end: '2026-12-01T10:30:00.000Z' }),
    update: { location: 'Room 2' },
    remove: true,
  },
  { path: '/v1/sent_emails', create: () => ({ contact_id: contacts[0]!.id, subject: 'Hello from the SDK', body: '<p>Hello</p>' }) },
  { path: '/v1/touchpoints', create: () => ({ contact_id: contacts[0]!.id, channel: 'call', direction: 'outbound', summary: 'Left a voicemail' }) },
  { path: '/v1/email_templates', create: () => ({ name: `Template ${unique()}`, subject: 'Hi {{first_name}}', body: '<p>Hi</p>' }), update: { subject: 'Hello {{first_name}}' }, remove: true },
  { path: '/v1/chatapp_templates', create: () => ({ name: `Chat ${unique()}`, body: 'Hi {{first_name}}' }), update: { body: 'Hello {{first_name}}' }, remove: true },
  {
    path: '/v1/flows',
    create: () => ({ name: `Flow ${unique()}`, nodes: [{ key: 'hello', type: 'email', config: { subject: 'Hi', body: '<p>Hi</p>' } }, { key: 'done', type: 'end' }], edges: [{ from: 'hello', to: 'done' }] }),
    update: { description: 'Edited' },
    remove: true,
  },
  {
    path: '/v1/enrollments',
    create: async () => {
      const [contact] = await newContacts(1);
      return { flow_id: flowId, contact_id: contact!.id };
    },
    update: { status: 'paused' },
    sort: '-enrolled_at',
  },
];

beforeAll(async () => {
  await newContacts(2);
  const { data: flow } = await crm.POST('/v1/flows', {
    body: {
      name: 'Enrollments',
      status: 'active',
      nodes: [
        { key: 'pause', type: 'wait', config: { duration_seconds: 86_400 } },
        { key: 'done', type: 'end' },
      ],
      edges: [{ from: 'pause', to: 'done' }],
    },
  });
  flowId = flow.id;
  const users = await crm.paginate('/v1/users').toArray();
  ownerId = users[0]!.id;
});

const api = () => crm as unknown as Record<'GET' | 'POST' | 'PATCH' | 'DELETE', (path: string, init?: object) => Promise<any>> & { paginate(path: string, init?: object): any };

test.each(RESOURCES.map((r) => [r.path, r] as const))('%s: create, list across pages, get, update, delete', async (path, resource) => {
  const sdk = api();
  const item = `${path}/{id}`;
  const made: Record<string, any>[] = [];
  for (let i = 0; i < 3; i++) made.push((await sdk.POST(path, { body: await resource.create() })).data);

  // Pages of 2, following next_cursor: every record once, ours among them.
  const pages: Record<string, any>[][] = [];
  const query = { limit: 2, sort: resource.sort ?? '-created_at' };
  for await (const page of sdk.paginate(path, { params: { query } }).pages()) pages.push(page.data);
  const listed = pages.flat().map((r) => r.id);
  expect(pages.length).toBeGreaterThanOrEqual(2);
  expect(pages.every((p) => p.length <= 2)).toBe(true);
  expect(new Set(listed).size).toBe(listed.length);
  expect(listed).toEqual(expect.arrayContaining(made.map((r) => r.id)));
  // The same records through for await over items.
  const items: string[] = [];
  for await (const record of sdk.paginate(path, { params: { query } })) items.push(record.id);
  expect(items).toEqual(listed);

  const got = (await sdk.GET(item, { params: { path: { id: made[0]!.id } } })).data;
  expect(got.id).toBe(made[0]!.id);
  expect(got.created_at).toBe(made[0]!.created_at);

  if (resource.update) {
    const updated = (await sdk.PATCH(item, { params: { path: { id: made[1]!.id } }, body: resource.update })).data;
    expect(updated).toMatchObject(resource.update);
    expect((await sdk.GET(item, { params: { path: { id: made[1]!.id } } })).data).toMatchObject(resource.update);
  }
  if (resource.remove) {
    await expect(sdk.DELETE(item, { params: { path: { id: made[2]!.id } } })).resolves.toBeUndefined();
    const missing = await sdk.GET(item, { params: { path: { id: made[2]!.id } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CrmApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', request_id: expect.any(String) });
  }
});

test('the read-only lists and the operations under a record, each through its typed call', async () => {
  const [a, b] = await newContacts(2);
  const { data: pool } = await crm.POST('/v1/pools', { body: { name: `Bulk ${unique()}` } });
  const added = await crm.POST('/v1/pools/{id}/members', { params: { path: { id: pool.id } }, body: { contact_ids: [a!.id, b!.id] } });
  expect([...added.data.added].sort()).toEqual([a!.id, b!.id].sort());
  const removed = await crm.DELETE('/v1/pools/{id}/members', { params: { path: { id: pool.id } }, body: { contact_ids: [b!.id] } });
  expect(removed.data.removed).toEqual([b!.id]);

  const { data: flow } = await crm.POST('/v1/flows', {
    body: {
      name: `Bulk flow ${unique()}`,
      status: 'active',
      nodes: [
        { key: 'pause', type: 'wait', config: { duration_seconds: 86_400 } },
        { key: 'again', type: 'wait', config: { duration_seconds: 86_400 } },
        { key: 'done', type: 'end' },
      ],
      edges: [
        { from: 'pause', to: 'again' },
        { from: 'again', to: 'done' },
      ],
    },
  });
  const bulk = await crm.POST('/v1/flows/{id}/enrollments', { params: { path: { id: flow.id } }, body: { pool_id: pool.id } });
  expect(bulk.data).toBeDefined();

  const nodes = await crm.paginate('/v1/flow_nodes', { params: { query: { flow_id: flow.id, limit: 2 } } }).toArray();
  expect(nodes.map((n) => n.key).sort()).toEqual(['again', 'done', 'pause']);
  expect((await crm.GET('/v1/flow_nodes/{id}', { params: { path: { id: nodes[0]!.id } } })).data.id).toBe(nodes[0]!.id);

  const runs = await crm.paginate('/v1/flow_runs', { params: { query: { flow_id: flow.id, limit: 1 } } }).toArray();
  expect(runs.map((r) => r.contact_id)).toEqual([a!.id]);
  expect((await crm.GET('/v1/flow_runs/{id}', { params: { path: { id: runs[0]!.id } } })).data.id).toBe(runs[0]!.id);
  const steps = await crm.paginate('/v1/enrollments/{id}/steps', { params: { path: { id: runs[0]!.id } } }).toArray();
  expect(Array.isArray(steps)).toBe(true);
  expect((await crm.GET('/v1/flows/{id}/analytics', { params: { path: { id: flow.id } } })).data).toBeDefined();

  const users = await crm.paginate('/v1/users', { params: { query: { limit: 1 } } }).toArray();
  expect(users.map((u) => u.id)).toContain(ownerId);
  expect((await crm.GET('/v1/users/{id}', { params: { path: { id: ownerId } } })).data.id).toBe(ownerId);
  expect((await crm.GET('/v1/users/{id}/performance', { params: { path: { id: ownerId }, query: { window: '7d' } } })).data).toMatchObject({ user_id: ownerId, window: '7d' });

  const timeline = await crm.paginate('/v1/contacts/{id}/timeline', { params: { path: { id: contacts[0]!.id }, query: { limit: 1 } } }).toArray();
  expect(timeline.length).toBeGreaterThanOrEqual(1);
  // No integration or email event exists on a fresh system: their lists answer empty pages.
  expect(await crm.paginate('/v1/integrations').toArray()).toEqual([]);
  const events = await crm.paginate('/v1/email_events').toArray();
  expect(Array.isArray(events)).toBe(true);
});

test('webhook endpoints and their deliveries, each operation through its typed call', async () => {
  // The system runs without WEBHOOKS_ALLOW_*: a public https name is accepted, and its deliveries
  // fail to connect (and are retried), which is all this needs: a delivery to list, read and retry.
  const { data: endpoint } = await crm.POST('/v1/webhook_endpoints', {
    body: { url: 'https://example.com/hooks', description: 'SDK round trip', event_types: ['contact.created'] },
  });
  const id = endpoint.id;
  // The secret is in the create's answer only: no read returns it.
  expect(endpoint.secret).toMatch(/^whsec_/);
  expect(endpoint).toMatchObject({ url: 'https://example.com/hooks', enabled: true, event_types: ['contact.created'] });
  const listed = await crm.paginate('/v1/webhook_endpoints', { params: { query: { limit: 1 } } }).toArray();
  expect(listed.map((e) => e.id)).toContain(id);
  expect(listed.every((e) => !Object.hasOwn(e, 'secret'))).toBe(true);
  const got = (await crm.GET('/v1/webhook_endpoints/{id}', { params: { path: { id } } })).data;
  expect(got).toMatchObject({ id, description: 'SDK round trip' });
  expect(got).not.toHaveProperty('secret');
  const patched = (await crm.PATCH('/v1/webhook_endpoints/{id}', { params: { path: { id } }, body: { description: 'Edited' } })).data;
  expect(patched).toMatchObject({ id, description: 'Edited' });
  expect(patched).not.toHaveProperty('secret');
  const rotated = (await crm.POST('/v1/webhook_endpoints/{id}/rotate_secret', { params: { path: { id } } })).data;
  expect(rotated).toMatchObject({ id, description: 'Edited' });
  expect(rotated.secret).toMatch(/^whsec_/);
  expect(rotated.secret).not.toBe(endpoint.secret);

  // A new contact is a contact.created event: one delivery to the endpoint.
  const [contact] = await newContacts(1);
  const aboutContact = (d: { payload: Record<string, unknown> }) => (d.payload.data as { id?: string } | undefined)?.id === contact!.id;
  let deliveryId = '';
  await expectEventually(
    async () => {
      const deliveries = await crm.paginate('/v1/webhook_deliveries', { params: { query: { endpoint_id: id, limit: 1 } } }).toArray();
      expect(deliveries.every((d) => d.endpoint_id === id)).toBe(true);
      const delivery = deliveries.find(aboutContact);
      expect(delivery).toMatchObject({ event_type: 'contact.created' });
      deliveryId = delivery!.id;
    },
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );
  const delivery = (await crm.GET('/v1/webhook_deliveries/{id}', { params: { path: { id: deliveryId } } })).data;
  expect(delivery).toMatchObject({ id: deliveryId, endpoint_id: id, event_type: 'contact.created' });
  const retried = (await crm.POST('/v1/webhook_deliveries/{id}/retry', { params: { path: { id: deliveryId } } })).data;
  expect(retried).toMatchObject({ id: deliveryId, event_id: delivery.event_id, status: 'pending' });

  await expect(crm.DELETE('/v1/webhook_endpoints/{id}', { params: { path: { id } } })).resolves.toBeUndefined();
  const missing = await crm.GET('/v1/webhook_endpoints/{id}', { params: { path: { id } } }).catch((e: unknown) => e);
  expect(missing).toMatchObject({ status: 404, code: 'not_found' });
});

test('every operation of the served document was called through the SDK', async () => {
  const document = (await (await fetch(`${system.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const called = new Set(
    sent.map((r) => {
      const path = new URL(r.url).pathname;
      const template = Object.keys(document.paths).find((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
      return `${r.method} ${template ?? path}`;
    }),
  );
  const operations = Object.entries(document.paths)
    // The tracking and unsubscribe links are followed by mail clients, not called with a key.
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, item]) => Object.keys(item).filter((m) => ['get', 'post', 'patch', 'delete', 'put'].includes(m)).map((m) => `${m.toUpperCase()} ${path}`));
  expect(operations.length).toBeGreaterThan(60);
  // email_events and integrations have no record to read on a fresh system.
  const unreachable = ['GET /v1/email_events/{id}', 'GET /v1/integrations/{id}'];
  expect(operations.filter((op) => !called.has(op) && !unreachable.includes(op))).toEqual([]);
});

// ---------------------------------------------------------------------------------------------
// A lost answer, retried with the same Idempotency-Key

/**
 * A TCP proxy in front of the gateway that, when armed, closes the connection at the first byte of
 * the next 2xx answer instead of passing it on: the gateway did the write, the client never hears of
 * it. (test/support/fault-proxy.ts does the same for gRPC's HTTP/2; this is HTTP/1.1.)
 */
async function startDroppingProxy(target: URL) {
  let armed = false;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let requested = false;
    client.on('data', (chunk) => {
      requested = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // Only a success is cut: a 429 before it (the suite runs at 20 requests a second) did nothing, and passes.
      if (armed && requested && /^HTTP\/1\.1 2\d\d /.test(chunk.subarray(0, 13).toString('latin1'))) {
        armed = false;
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cutNextAnswer: () => (armed = true),
    cuts: () => cuts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test('a write whose answer is lost is retried with the same Idempotency-Key: the same record, not a second one', async () => {
  const proxy = await startDroppingProxy(new URL(system.url));
  try {
    const log: typeof sent = [];
    const keys: (string | null)[] = [];
    const viaProxy = createCrmClient({
      baseUrl: proxy.url,
      apiKey: system.key,
      retryBudget: { maxTokens: 10_000 },
      fetch: async (input, init) => {
        keys.push(new Headers(init?.headers).get('idempotency-key'));
        return recording(log)(input, init);
      },
    });
    const name = `Dropped ${unique()}`;
    proxy.cutNextAnswer();
    const { data: organization } = await viaProxy.POST('/v1/organizations', { body: { name } });
    expect(proxy.cuts()).toBe(1);
    // Two attempts (more if a 429 came between), one key, and the answer was the first one replayed.
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(log.at(-1)!.headers.get('idempotent-replayed')).toBe('true');
    const same = await crm.paginate('/v1/organizations', { params: { query: { q: name } } }).toArray();
    expect(same.map((o) => o.id)).toEqual([organization.id]);

    // Without a key the SDK does not retry a lost write, and the server did apply it: why it is needed.
    const other = `Unkeyed ${unique()}`;
    proxy.cutNextAnswer();
    const error = await viaProxy.POST('/v1/organizations', { body: { name: other }, idempotencyKey: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmConnectionError);
    expect(await crm.paginate('/v1/organizations', { params: { query: { q: other } } }).toArray()).toHaveLength(1);
  } finally {
    await proxy.close();
  }
});
