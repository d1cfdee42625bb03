/**
 * The client against a real HTTP server on the loopback (node:http), scripted per test: what it
 * retries and when, the Idempotency-Key it reuses, timeouts, aborts, errors and pages.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  CrmApiError,
  CrmConnectionError,
  CrmRateLimitError,
  CrmTimeoutError,
  CrmValidationError,
  type CrmClientOptions,
  createCrmClient,
  createRetryBudget,
} from './index';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Handler = (request: Seen, response: ServerResponse, index: number) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let seen: Seen[];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers, body };
      seen.push(entry);
      handler(entry, response, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const ID = '0190f3c2-5c1a-7b3e-8a4f-2d9e6b1c0a11';
const contact = (id = ID) => ({ id, svc_uid: null, first_name: 'Ada', email: 'ada@example.com', created_at: '2026-05-15T10:00:00.000Z', updated_at: '2026-05-15T10:00:00.000Z' });
const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};
const envelope = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ error: { code, message, request_id: 'req_test', ...extra } });
const client = (options: Partial<CrmClientOptions> = {}) =>
  // No jitter unless a test asks: waits are then exactly what the server said.
  createCrmClient({ baseUrl, apiKey: 'svc_live_test', random: () => 0, retry: { baseDelayMs: 10 }, ...options });

test('a 429 is waited out for Retry-After seconds, then retried', async () => {
  handler = (_request, response, index) =>
    index === 0
      ? json(response, 429, envelope('rate_limited', 'retry after 1 seconds', { type: 'rate_limit_error', details: { retry_after_seconds: 1 } }), { 'retry-after': '1' })
      : json(response, 200, { data: contact() });
  const started = Date.now();
  const answer = await client().GET('/v1/contacts/{id}', { params: { path: { id: ID } } });
  expect(answer.data.email).toBe('ada@example.com');
  expect(seen).toHaveLength(2);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(seen[1]!.headers.authorization).toBe('Bearer svc_live_test');
});

test('the jitter adds up to retryAfterJitterMs to Retry-After, never less than it', async () => {
  handler = (_request, response, index) => (index === 0 ? json(response, 503, envelope('unavailable', 'down'), { 'retry-after': '0' }) : json(response, 200, { data: contact() }));
  const started = Date.now();
  await client({ random: () => 1, retry: { retryAfterJitterMs: 300 } }).GET('/v1/contacts/{id}', { params: { path: { id: ID } } });
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  expect(seen).toHaveLength(2);
});

test('503 is retried up to maxRetries, then thrown with its code, status and request id', async () => {
  handler = (_request, response) => json(response, 503, envelope('unavailable', 'the people service is unavailable'), { 'retry-after': '0' });
  const error = await client({ retry: { maxRetries: 2 } })
    .GET('/v1/contacts')
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CrmApiError);
  expect(error).toMatchObject({ status: 503, code: 'unavailable', message: 'the people service is unavailable', request_id: 'req_test', retry_after: 0, attempts: 3 });
  expect(seen).toHaveLength(3);
});

test('the retry budget, shared by the client, stops retries when most calls fail', async () => {
  handler = (_request, response) => json(response, 503, envelope('unavailable', 'down'), { 'retry-after': '0' });
  // 4 tokens: a retry needs more than 2 left after the failure is counted.
  const crm = client({ retryBudget: { maxTokens: 4 }, retry: { maxRetries: 5 } });
  await expect(crm.GET('/v1/contacts')).rejects.toMatchObject({ status: 503, attempts: 2 });
  expect(seen).toHaveLength(2);
  await expect(crm.GET('/v1/contacts')).rejects.toMatchObject({ status: 503, attempts: 1 });
  expect(seen).toHaveLength(3);
  // Successes earn it back (0.1 a success by default).
  handler = (_request, response) => json(response, 200, { data: [], has_more: false, next_cursor: null });
  for (let i = 0; i < 20; i++) await crm.GET('/v1/contacts');
  expect(crm.retryBudget.tokens()).toBeCloseTo(3, 5);
});

test('a Retry-After longer than maxRetryAfterMs is not waited for: thrown at once, carrying it', async () => {
  handler = (_request, response) => json(response, 429, envelope('send_quota_exhausted', 'quota'), { 'retry-after': '3600' });
  const started = Date.now();
  const error = await client().POST('/v1/sent_emails', { body: { contact_id: ID, subject: 's', body_text: 'b' } as never }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CrmRateLimitError);
  expect(error).toMatchObject({ status: 429, code: 'send_quota_exhausted', retry_after: 3600, attempts: 1 });
  expect(Date.now() - started).toBeLessThan(1000);
});

test('a write gets one Idempotency-Key, sent again on its retry after a lost connection; the next write a new one', async () => {
  handler = (_request, response, index) => {
    // The first request is read, then the connection is dropped: the answer is lost.
    if (index === 0) return response.socket!.destroy();
    json(response, 201, { data: contact() });
  };
  const crm = client();
  const created = await crm.POST('/v1/contacts', { body: { first_name: 'Ada', email: 'ada@example.com' } });
  expect(created.data.id).toBe(ID);
  expect(seen).toHaveLength(2);
  const [first, retry] = seen;
  expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  expect(retry!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
  expect(JSON.parse(retry!.body)).toEqual({ first_name: 'Ada', email: 'ada@example.com' });
  await crm.POST('/v1/contacts', { body: { first_name: 'Grace' } });
  expect(seen[2]!.headers['idempotency-key']).not.toBe(first!.headers['idempotency-key']);
});

test("a caller's own Idempotency-Key is the one sent, on every attempt", async () => {
  handler = (_request, response, index) => (index === 0 ? response.socket!.destroy() : json(response, 200, { data: contact() }));
  await client().PATCH('/v1/contacts/{id}', { params: { path: { id: ID } }, body: { first_name: 'Ada' }, idempotencyKey: 'import-row-17' });
  expect(seen.map((s) => s.headers['idempotency-key'])).toEqual(['import-row-17', 'import-row-17']);
});

test('a retry that finds its first attempt still in progress (409 naming its key) asks again until it is replayed', async () => {
  handler = (request, response, index) => {
    if (index === 0) return response.socket!.destroy();
    if (index === 1) return json(response, 409, envelope('conflict', 'still in progress', { details: { idempotency_key: request.headers['idempotency-key'] } }));
    json(response, 201, { data: contact() }, { 'idempotent-replayed': 'true' });
  };
  await expect(client().POST('/v1/contacts', { body: { first_name: 'Ada' } })).resolves.toMatchObject({ data: { id: ID } });
  expect(seen).toHaveLength(3);
  expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
});

test('a 409 of the first attempt (a real conflict) is thrown, not retried', async () => {
  handler = (request, response) => json(response, 409, envelope('conflict', 'a contact with this email already exists', { details: { field: 'email' } }));
  await expect(client().POST('/v1/contacts', { body: { email: 'ada@example.com' } })).rejects.toMatchObject({ status: 409, code: 'conflict', details: { field: 'email' } });
  expect(seen).toHaveLength(1);
});

test('a write without an Idempotency-Key is not retried after a lost connection: it may have been applied', async () => {
  handler = (_request, response) => response.socket!.destroy();
  const error = await client()
    .DELETE('/v1/contacts/{id}', { params: { path: { id: ID } }, idempotencyKey: false })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CrmConnectionError);
  expect(seen).toHaveLength(1);
  expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
});

test('a read is retried after a lost connection', async () => {
  handler = (_request, response, index) => (index === 0 ? response.socket!.destroy() : json(response, 200, { data: contact() }));
  await expect(client().GET('/v1/contacts/{id}', { params: { path: { id: ID } } })).resolves.toMatchObject({ data: { id: ID } });
  expect(seen).toHaveLength(2);
});

test('no answer within timeoutMs is a CrmTimeoutError, per attempt, after the retries', async () => {
  handler = () => undefined; // never answers
  const started = Date.now();
  const error = await client({ timeoutMs: 150 })
    .GET('/v1/contacts', { maxRetries: 1 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CrmTimeoutError);
  expect(error).toMatchObject({ attempts: 2 });
  expect(seen).toHaveLength(2);
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('an AbortSignal ends a call waiting for its answer, with the abort reason, and nothing is retried', async () => {
  handler = () => undefined;
  const controller = new AbortController();
  const call = client().GET('/v1/contacts', { signal: controller.signal });
  await expectEventuallySeen(1);
  controller.abort();
  await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  expect(seen).toHaveLength(1);
});

test('an AbortSignal ends a wait for Retry-After at once', async () => {
  handler = (_request, response) => json(response, 429, envelope('rate_limited', 'wait'), { 'retry-after': '30' });
  const controller = new AbortController();
  const started = Date.now();
  const call = client().GET('/v1/contacts', { signal: controller.signal });
  await expectEventuallySeen(1);
  controller.abort(new Error('user gave up'));
  await expect(call).rejects.toThrow('user gave up');
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('errors carry status, code, message, details and request_id from the envelope', async () => {
  const details = [{ field: 'email', message: 'must be an email address' }];
  handler = (_request, response) => json(response, 422, envelope('validation_failed', 'invalid body', { details }), { 'x-request-id': 'req_header' });
  const error = await client()
    .POST('/v1/contacts', { body: { email: 'nope' } })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CrmValidationError);
  expect(error).toBeInstanceOf(CrmApiError);
  expect(error).toMatchObject({ status: 422, code: 'validation_failed', message: 'invalid body', details, request_id: 'req_test' });
  expect(seen).toHaveLength(1);
});

test('an answer without the envelope still becomes a typed error, by its status', async () => {
  handler = (_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html', 'x-request-id': 'req_proxy' });
    response.end('<h1>Not Found</h1>');
  };
  await expect(client().GET('/v1/contacts/{id}', { params: { path: { id: ID } } })).rejects.toMatchObject({ status: 404, code: 'not_found', request_id: 'req_proxy' });
});

test('a DELETE answers void', async () => {
  handler = (_request, response) => {
    response.writeHead(204);
    response.end();
  };
  await expect(client().DELETE('/v1/contacts/{id}', { params: { path: { id: ID } } })).resolves.toBeUndefined();
  expect(seen[0]).toMatchObject({ method: 'DELETE', url: `/v1/contacts/${ID}` });
});

test('paginate follows next_cursor with the same query until has_more is false', async () => {
  const pages = [
    { data: [contact('a'), contact('b')], has_more: true, next_cursor: 'c1' },
    { data: [contact('c'), contact('d')], has_more: true, next_cursor: 'c2' },
    { data: [contact('e')], has_more: false, next_cursor: null },
  ];
  handler = (_request, response, index) => json(response, 200, pages[index]);
  const ids: string[] = [];
  for await (const record of client().paginate('/v1/contacts', { params: { query: { limit: 2, country: 'FR' } } })) ids.push(record.id);
  expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(seen.map((s) => s.url)).toEqual(['/v1/contacts?limit=2&country=FR', '/v1/contacts?limit=2&country=FR&cursor=c1', '/v1/contacts?limit=2&country=FR&cursor=c2']);
});

test('pages() gives the pages; toArray refuses more than max records', async () => {
  handler = (_request, response, index) => json(response, 200, { data: [contact(`r${index}`)], has_more: index < 4, next_cursor: `c${index}` });
  const sizes: number[] = [];
  for await (const page of client().paginate('/v1/contacts').pages()) sizes.push(page.data.length);
  expect(sizes).toEqual([1, 1, 1, 1, 1]);
  seen = [];
  await expect(client().paginate('/v1/contacts').toArray({ max: 3 })).rejects.toThrow(RangeError);
});

test('a retry budget can be shared by several clients', async () => {
  handler = (_request, response) => json(response, 503, envelope('unavailable', 'down'), { 'retry-after': '0' });
  const budget = createRetryBudget({ maxTokens: 4 });
  await expect(client({ retryBudget: budget }).GET('/v1/contacts')).rejects.toMatchObject({ attempts: 2 });
  await expect(client({ retryBudget: budget }).GET('/v1/contacts')).rejects.toMatchObject({ attempts: 1 });
});

test('the runtime code imports nothing but openapi-fetch and itself (it runs wherever fetch exists)', () => {
  const files = readdirSync(__dirname, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  expect(files.length).toBeGreaterThan(4);
  for (const file of files) {
    const source = readFileSync(path.join(__dirname, file), 'utf8');
    const imported = [...source.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'|\brequire\(\s*'([^']+)'/g)].map((m) => m[1] ?? m[2] ?? m[3]);
    for (const specifier of imported) expect([file, specifier]).toEqual([file, expect.stringMatching(/^(\.\/|\.\.\/|openapi-fetch$)/)]);
    expect([file, /\b(process|Buffer|__dirname)\b/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))]).toEqual([file, false]);
  }
});

async function expectEventuallySeen(count: number) {
  const { expectEventually } = await import('@crm/kit/testing');
  await expectEventually(() => expect(seen.length).toBeGreaterThanOrEqual(count));
}
