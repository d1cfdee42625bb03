import { type ApiRecord, CrmError, newId } from '@crm/kit';
import { type RateLimits, createMemoryLimiter } from './limits';
import { sampleContacts } from '@crm/kit/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import type { Principal, ResolveKey } from './plugins/auth';
import { createMemoryIdempotencyStore } from './plugins/idempotency';
import type { ResourceClient } from './routes/resource.routes';

/**
 * The request pipeline in process (app.inject): authentication, rate limits, scopes, idempotency,
 * validation and the envelope, in milliseconds. The service behind the one resource is an
 * in-memory stand-in for a context's gRPC client; the end-to-end suites drive the real ones.
 */
const notes = sampleContacts;

const WORKSPACE = newId();
const keys = {
  full: `svc_live_${'a'.repeat(32)}`,
  readOnly: `svc_live_${'b'.repeat(32)}`,
  unknown: `svc_live_${'c'.repeat(32)}`,
  directoryDown: `svc_live_${'d'.repeat(32)}`,
};
const principals: Record<string, Principal> = {
  [keys.full]: { workspaceId: WORKSPACE, keyId: 'k-full', scopes: ['*'] },
  [keys.readOnly]: { workspaceId: WORKSPACE, keyId: 'k-read', scopes: ['contacts:read'] },
};
const resolveKey: ResolveKey = async (key) => {
  if (key === keys.directoryDown) throw new CrmError('unavailable', 'a backing service is unavailable; retry shortly');
  const principal = principals[key];
  if (!principal) throw new CrmError('unauthorized', 'invalid API key');
  return principal;
};

interface Stand {
  app: FastifyInstance;
  calls: string[];
  /**
   * Makes the next create wait until released (an in-flight request); `reached` settles when it
   * has got as far as the service, past every plugin (so past its idempotency claim).
   */
  holdNextCreate(): { reached: Promise<void>; release(): void };
  failNextCreate(error: unknown): void;
}

async function build(limits: RateLimits = { keyLimit: 1000, keyWindowMs: 10_000, workspaceLimit: 10_000, workspaceWindowMs: 60_000 }): Promise<Stand> {
  const records = new Map<string, ApiRecord>();
  const calls: string[] = [];
  let hold: { reached(): void; released: Promise<void> } | undefined;
  let failure: unknown;
  const client: ResourceClient = {
    async list() {
      calls.push('list');
      return { data: [...records.values()], page: { next_cursor: '', has_more: false } };
    },
    async get(request) {
      calls.push('get');
      const record = records.get(request.id);
      if (!record) throw CrmError.notFound('contact');
      return record;
    },
    async create(request) {
      calls.push('create');
      if (hold) {
        hold.reached();
        await hold.released;
      }
      if (failure) {
        const error = failure;
        failure = undefined;
        throw error;
      }
      const fields = request.fields as { fields: Record<string, { stringValue?: string }> };
      const now = new Date().toISOString();
      const record = { id: newId(), svc_uid: null, first_name: fields.fields.first_name?.stringValue ?? null, last_name: null, email: null, owner_id: null, country: null, last_engagement_at: null, created_at: now, updated_at: now };
      records.set(String(record.id), record);
      return record;
    },
    async update() {
      calls.push('update');
      throw new CrmError('conflict', 'changed concurrently');
    },
    async delete(request) {
      calls.push('delete');
      if (!records.delete(request.id)) throw CrmError.notFound('contact');
      return {};
    },
  };
  const app = await buildApp({
    resolveKey,
    idempotency: createMemoryIdempotencyStore(),
    rateLimit: { limiter: createMemoryLimiter(limits), limits },
    resources: [{ spec: notes, client, operations: ['list', 'create', 'get', 'update', 'delete'], deadlineMs: 1_000 }],
    logger: false,
  });
  return {
    app,
    calls,
    holdNextCreate() {
      let reached!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (reached = resolve));
      hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return {
        reached: arrived,
        release() {
          hold = undefined;
          release();
        },
      };
    },
    failNextCreate(error) {
      failure = error;
    },
  };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

/** The envelope every error has, with the request id of the response header. */
function expectError(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  expect([response.statusCode, response.json().error?.code]).toEqual([status, code]);
  const { error } = response.json();
  expect(typeof error.message).toBe('string');
  expect(error.request_id).toBe(response.headers['x-request-id']);
}

let stand: Stand;
beforeEach(async () => {
  stand = await build();
});
afterEach(async () => {
  await stand.app.close();
});

describe('routing, before authentication', () => {
  test('an unknown path is 404 and a legacy path names its replacement, with no key needed', async () => {
    expectError(await stand.app.inject({ method: 'GET', url: '/v1/nothing' }), 404, 'not_found');
    const legacy = await stand.app.inject({ method: 'GET', url: '/api/v1/sequences/123' });
    expectError(legacy, 404, 'not_found');
    expect(legacy.json().error.details).toEqual({ replacement: '/api/v1/flows/123' });
  });

  test('a method the path does not offer is 405 with Allow, OPTIONS included', async () => {
    const put = await stand.app.inject({ method: 'PUT', url: '/v1/contacts' });
    expectError(put, 405, 'method_not_allowed');
    expect(put.headers.allow).toBe('GET, POST, HEAD');
    expect((await stand.app.inject({ method: 'OPTIONS', url: `/v1/contacts/${newId()}` })).headers.allow).toBe('GET, PATCH, DELETE, HEAD');
  });

  test('the request id is echoed when sane and minted otherwise', async () => {
    const given = await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const minted = await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: { 'x-request-id': 'has spaces' } });
    expect(minted.headers['x-request-id']).toMatch(/^req_[0-9a-f-]{36}$/);
  });
});

describe('authentication and scopes', () => {
  test.each([
    ['no header', {}],
    ['not a bearer', { authorization: `Basic ${keys.full}` }],
    ['malformed key', { authorization: 'Bearer svc_live_short' }],
    ['unknown key', auth(keys.unknown)],
  ])('%s is 401', async (_name, headers) => {
    expectError(await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers }), 401, 'unauthorized');
    expect(stand.calls).toEqual([]);
  });

  test('a directory outage is 503 with Retry-After, not 401', async () => {
    const response = await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.directoryDown) });
    expectError(response, 503, 'unavailable');
    expect(response.headers['retry-after']).toBe('1');
  });

  test('a key without the scope is 403 naming it, and the service is not called', async () => {
    const response = await stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: { ...auth(keys.readOnly), ...json }, payload: { first_name: 'A' } });
    expectError(response, 403, 'forbidden');
    expect(response.json().error.details).toEqual({ required_scope: 'contacts:write' });
    expect(stand.calls).toEqual([]);
    expect((await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.readOnly) })).statusCode).toBe(200);
  });
});

describe('rate limits', () => {
  test('every admitted response carries the headers; past the limit a 429 says when to come back', async () => {
    await stand.app.close();
    stand = await build({ keyLimit: 2, keyWindowMs: 10_000, workspaceLimit: 100, workspaceWindowMs: 60_000 });
    const first = await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.full) });
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '12', 'ratelimit-remaining': '1' });
    expect(first.headers['ratelimit-policy']).toBe('"burst";q=2;w=10, "workspace";q=100;w=60');
    await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.full) });
    // Refused requests are not counted, and unauthenticated ones never reach the limiter.
    await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.unknown) });
    const refused = await stand.app.inject({ method: 'GET', url: '/v1/contacts', headers: auth(keys.full) });
    expectError(refused, 429, 'rate_limited');
    expect(refused.json().error.type).toBe('rate_limit_error');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(9);
    expect(stand.calls).toEqual(['list', 'list']);
  });
});

describe('bodies and queries', () => {
  test('a content type other than JSON is 415, malformed JSON 400, an empty body 422, over 1 MiB 413', async () => {
    const post = (headers: Record<string, string>, payload: string) =>
      stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: { ...auth(keys.full), ...headers }, payload });
    expectError(await post({ 'content-type': 'text/plain' }, 'hello'), 415, 'unsupported_media_type');
    expectError(await post(json, '{"first_name":'), 400, 'invalid_request');
    expectError(await stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: auth(keys.full) }), 422, 'validation_failed');
    expectError(await post(json, JSON.stringify({ first_name: 'x', pad: 'y'.repeat(1024 * 1024) })), 413, 'payload_too_large');
    expect(stand.calls).toEqual([]);
  });

  test('validation happens at the edge with the declaration: 422 lists every field, 400 names the parameter', async () => {
    const invalid = await stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: { ...auth(keys.full), ...json }, payload: { first_name: 7, email: 'nope', svc_uid: 8 } });
    expectError(invalid, 422, 'validation_failed');
    expect(invalid.json().error.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'first_name', 'svc_uid']);
    const badQuery = await stand.app.inject({ method: 'GET', url: '/v1/contacts?colour=red', headers: auth(keys.full) });
    expectError(badQuery, 400, 'invalid_request');
    expect(badQuery.json().error.details).toEqual({ parameter: 'colour' });
    expectError(await stand.app.inject({ method: 'GET', url: '/v1/contacts/not-a-uuid', headers: auth(keys.full) }), 400, 'invalid_request');
    expect(stand.calls).toEqual([]);
  });

  test('what no store can keep is refused at the edge for any route: NUL, lone surrogates, depth, inexact numbers, bad paths', async () => {
    const post = (payload: string) => stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: { ...auth(keys.full), ...json }, payload });
    const refused = async (payload: string, field: string, message: RegExp) => {
      const response = await post(payload);
      expectError(response, 422, 'validation_failed');
      expect(response.json().error.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    };
    await refused('{"first_name":"nul\\u0000byte"}', 'first_name', /NUL/);
    await refused('{"first_name":"a","\\u0000":1}', '\\u0000', /property name must not contain NUL/);
    await refused('{"first_name":"a","x":["ok",{"y":"\\ud800"}]}', 'x[1].y', /unpaired surrogate/);
    await refused(`{"first_name":"a","deep":${'['.repeat(300)}${']'.repeat(300)}}`, `deep${'[0]'.repeat(31)}`, /more than 32 levels/);
    await refused('{"first_name":"a","big":1e400}', 'big', /finite/);
    await refused('{"first_name":"a","big":9007199254740993}', 'big', /kept exactly/);
    expectError(await post('{"__proto__":{"polluted":true},"first_name":"a"}'), 400, 'invalid_request');
    expectError(await stand.app.inject({ method: 'GET', url: '/v1/contacts/%ED%A0%80', headers: auth(keys.full) }), 400, 'invalid_request');
    expectError(await stand.app.inject({ method: 'PATCH', url: `/v1/contacts/${'x'.repeat(5000)}`, headers: { ...auth(keys.full), ...json }, payload: '{}' }), 400, 'invalid_request');
    expectError(await stand.app.inject({ method: 'GET', url: '/v1/contacts?q=%00', headers: auth(keys.full) }), 400, 'invalid_request');
    expect(stand.calls).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  const create = (key: string, payload: object = { first_name: 'Ada' }) =>
    stand.app.inject({ method: 'POST', url: '/v1/contacts', headers: { ...auth(keys.full), ...json, 'idempotency-key': key }, payload });

  test('a repeat replays the first answer without calling the service; another request under the key is 422', async () => {
    const first = await create('once');
    expect(first.statusCode).toBe(201);
    const again = await create('once');
    expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([201, first.body, 'true']);
    expectError(await create('once', { first_name: 'Grace' }), 422, 'idempotency_key_reused');
    expect(stand.calls).toEqual(['create']);
  });

  test('a duplicate while the first is in flight is 409; a 5xx is not remembered, so its retry reaches the service', async () => {
    const held = stand.holdNextCreate();
    const first = create('busy');
    await held.reached;
    expectError(await create('busy'), 409, 'conflict');
    held.release();
    expect((await first).statusCode).toBe(201);

    stand.failNextCreate(new Error('database exploded: password=hunter2'));
    const failed = await create('retry-me');
    expectError(failed, 500, 'internal');
    expect(failed.body).not.toContain('hunter2');
    expect(failed.json().error.message).toMatch(/error id/);
    expect((await create('retry-me')).statusCode).toBe(201);
    expect(stand.calls.filter((c) => c === 'create')).toHaveLength(3);
  });

  test('a malformed key is 400 before anything is claimed', async () => {
    expectError(await create('has space'), 400, 'invalid_request');
    expect(stand.calls).toEqual([]);
  });
});

test('service errors keep their public code; the envelope is the same for every status', async () => {
  const response = await stand.app.inject({ method: 'PATCH', url: `/v1/contacts/${newId()}`, headers: { ...auth(keys.full), ...json }, payload: { first_name: 'B' } });
  expectError(response, 409, 'conflict');
  expectError(await stand.app.inject({ method: 'DELETE', url: `/v1/contacts/${newId()}`, headers: auth(keys.full) }), 404, 'not_found');
});
