/**
 * Property-based fuzzing of every operation the gateway describes, against the running system
 * (`crm start`, all-in-one on embedded backends: every service, the real gateway, the real stores).
 *
 * For each operation of /openapi.json (the public tracking and unsubscribe paths among them), requests are generated from the operation's own schemas and then mutated:
 * wrong types, boundary numbers, huge and deeply nested values, Unicode oddities, odd property
 * names, `__proto__`, duplicate keys, malformed JSON, odd content types, hostile query values and
 * path ids. The properties:
 *   - never a 5xx;
 *   - every error is the envelope, with a request_id;
 *   - every answer (2xx and errors alike) matches the document;
 *   - what a 2xx create acknowledged reads back exactly as acknowledged, and its custom fields and
 *     plain strings exactly as sent;
 *   - the server stays up and a record written before the run is intact after it.
 *
 * FUZZ_SEED (default 20261124) and FUZZ_RUNS (requests per operation, default 100) bound it; a
 * longer run is `FUZZ_RUNS=2000 npx jest test/fuzz`. A failure prints a replayable curl command.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { createResponseChecker } from '../support/openapi-check';
import { type AllInOne, startAllInOne } from '../support/all-in-one';
import { type BodyCase, bodyFor, oddString, pathIdFor, queryFor, resolver } from './schema-arbitraries';

jest.setTimeout(900_000);

type Json = Record<string, any>;
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let crm: AllInOne | undefined;
let baseUrl: string;
let key: string;
let document: Json;
let check: ReturnType<typeof createResponseChecker>;
/** Ids the system acknowledged, by collection path (`/v1/contacts`), for path ids that exist. */
const known = new Map<string, string[]>();

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const replay = (sent: Sent) =>
  [
    `curl -i -X ${sent.method} '${sent.url.replace(/'/g, "'\\''")}'`,
    ...Object.entries(sent.headers).map(([k, v]) => `-H '${k}: ${k === 'authorization' ? 'Bearer $KEY' : v}'`),
    ...(sent.body !== undefined ? [`--data-binary ${JSON.stringify(sent.body)}`] : []),
  ].join(' ');

/** An answer the server sent before closing on a request it would not read to the end. */
const CLOSED = '(connection closed after the answer, before the request was sent in full)';

async function send(sent: Sent): Promise<{ status: number; body: unknown; text: string }> {
  let response: Response;
  try {
    response = await fetch(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, redirect: 'manual' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    // Past 16 KiB of request line and headers the gateway answers 431 and closes; a client still
    // sending its body may meet the close before it reads the answer. Only then is no answer one.
    const headBytes = Buffer.byteLength(new URL(sent.url).pathname + new URL(sent.url).search) + Object.entries(sent.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    if (headBytes > 16 * 1024) return { status: 431, body: undefined, text: CLOSED };
    // Likewise a body past 1 MiB: the gateway answers 413 from Content-Length and does not read it all.
    if (sent.body !== undefined && Buffer.byteLength(sent.body) > 1024 * 1024) return { status: 413, body: undefined, text: CLOSED };
    throw new Error(`no answer (${cause?.code ?? cause?.message ?? error})\n  request: ${replay(sent).slice(0, 8_000)}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** The properties every answer must have; throws with the replayable request otherwise. */
function expectWellFormed(sent: Sent, answer: { status: number; body: unknown; text: string }, documented: boolean): void {
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${replay(sent).slice(0, 8_000)}\n  answer: ${answer.status} ${answer.text.slice(0, 500)}`);
  };
  if (answer.status >= 500) fail(`a ${answer.status}`);
  if (answer.status >= 400 && answer.status !== 405 && answer.text !== CLOSED) {
    const error = (answer.body as Json | undefined)?.error;
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || typeof error.request_id !== 'string') {
      fail('an error outside the envelope (code, message, request_id)');
    }
  }
  // 405 (a method the path does not offer) and 431 (headers past 16 KiB, refused by the HTTP parser
  // before any route) are answers of the server, not of an operation.
  if (documented && answer.status !== 405 && answer.status !== 431 && answer.text !== CLOSED) {
    try {
      check(sent.method, sent.url, answer.status, answer.body);
    } catch (error) {
      fail((error as Error).message);
    }
  }
}

/** A schema's declared properties, through $ref and allOf (a create's answer may be the record and more). */
function propertiesOf(schema: Json | undefined): Json {
  const resolved = resolver(document)(schema);
  return Object.assign({}, ...((resolved.allOf ?? []) as Json[]).map(propertiesOf), resolved.properties ?? {});
}

/** The record schema of the answer to `GET <collection>/{id}`, as the document declares it. */
const readSchemaOf = (collection: string): Json | undefined =>
  resolver(document)(document.paths[`${collection}/{id}`]?.get?.responses?.['200']?.content?.['application/json']?.schema).properties?.data as Json | undefined;

/**
 * A create that was acknowledged reads back as acknowledged, and what was sent as sent. A property
 * the create's answer declares and the read's record does not (a secret shown once: the document's
 * `<Record>Created` schema) is not read back, and a read must not carry it.
 */
async function expectReadBack(collection: string, sent: Sent, body: BodyCase, created: Json, schema: Json, recordSchema: Json): Promise<void> {
  const id = String(created.id);
  (known.get(collection) ?? known.set(collection, []).get(collection)!).push(id);
  const read = await send({ method: 'GET', url: `${baseUrl}${collection}/${id}`, headers: { authorization: `Bearer ${key}` } });
  const record = (read.body as Json | undefined)?.data as Json | undefined;
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${replay(sent)}\n  created: ${JSON.stringify(created).slice(0, 800)}\n  read: ${read.status} ${read.text.slice(0, 800)}`);
  };
  if (read.status === 404 || read.status === 405) return; // not readable by id (none here today), or gone already
  if (read.status !== 200 || !record) fail('an acknowledged create does not read back');
  // Fields that move by themselves after a create (a send's status, counters) are left out.
  const moving = new Set(['status', 'updated_at', 'sent_at', 'failure_reason', 'attempts', 'last_error', 'next_attempt_at', 'contacts_count', 'next_run_at', 'current_node_id', 'last_touchpoint_at', 'last_engagement_at', 'exit_reason', 'exited_at', 'completed_at']);
  const readProperties = propertiesOf(readSchemaOf(collection));
  const answerOnly = new Set(Object.keys(propertiesOf(recordSchema)).filter((name) => !Object.hasOwn(readProperties, name)));
  for (const [name, value] of Object.entries(created)) {
    if (answerOnly.has(name)) {
      if (Object.hasOwn(record!, name)) fail(`${name}, declared only by the create's answer, is returned by a read`);
      continue;
    }
    if (moving.has(name)) continue;
    if (!isDeepStrictEqual(record![name], value)) fail(`${name} read back differently from the acknowledged create`);
  }
  const sentValues = body.sent as Json | undefined;
  if (!sentValues || typeof sentValues !== 'object') return;
  const properties = (resolver(document)(schema).properties ?? {}) as Json;
  // Read-only fields are declared too, though a create's schema leaves them out: they are ignored, not custom.
  const recordProperties = propertiesOf(recordSchema);
  for (const [name, value] of Object.entries(sentValues)) {
    const declared = Object.hasOwn(properties, name) ? resolver(document)(properties[name]) : Object.hasOwn(recordProperties, name) ? {} : undefined;
    const plainString = declared && typeof value === 'string' && !declared.format && !declared.enum;
    const custom = !declared && !['workspace_id', 'custom', 'custom_fields', 'object', 'id', 'svc_uid', 'created_at', 'updated_at'].includes(name);
    // Object keys compare in any order: jsonb keeps objects, not the order of their keys.
    const readBack = Object.hasOwn(record!, name) ? record![name] : undefined;
    // A custom field sent as null is no field (in a PATCH, null removes one): a create keeps none.
    const expected = custom && value === null ? undefined : value;
    if ((plainString || custom) && !isDeepStrictEqual(readBack, expected)) {
      fail(`${name} was stored differently from how it was sent`);
    }
  }
}

interface Operation {
  method: string;
  template: string;
  operation: Json;
  documented: boolean;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Json)) {
    for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
      if (item[method]) out.push({ method: method.toUpperCase(), template, operation: item[method], documented: true });
    }
  }
  // The public paths a recipient's mail client and link scanners call (no key, a token only) are
  // in the document since issue #35, and checked against it like every other.
  for (const template of ['/t/o/{token}', '/t/c/{token}', '/u/{token}']) {
    if (!document.paths[template]) throw new Error(`${template} is not in the document`);
  }
  return out;
}

beforeAll(async () => {
  crm = await startAllInOne({ RATE_LIMIT_KEY: '100000000', RATE_LIMIT_WORKSPACE: '100000000', SEND_QUOTA_PER_HOUR: '10000000' });
  baseUrl = crm.url;
  key = crm.key;
  document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Json;
  check = createResponseChecker(document);
});

afterAll(async () => {
  await crm?.stop();
});

test('every operation: no 5xx, errors in the envelope, answers as documented, creates read back as sent; the server and earlier records survive', async () => {
  const auth = { authorization: `Bearer ${key}` };
  const sentinel = await send({
    method: 'POST',
    url: `${baseUrl}/v1/contacts`,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Sentinel', email: 'sentinel@example.com', notes: { kept: ['as', 'sent'] } }),
  });
  expect(sentinel.status).toBe(201);
  const before = (sentinel.body as Json).data as Json;

  const all = operations();
  const resolve = resolver(document);
  let requests = 0;
  const byStatus = new Map<number, number>();
  for (const [index, op] of all.entries()) {
    const parameters = ((op.operation.parameters ?? []) as Json[]).map(resolve);
    const collection = op.template.replace(/\/\{[^}]+\}.*$/, '');
    const requestSchema = op.operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
    const hasBody = ['POST', 'PATCH', 'PUT'].includes(op.method);
    const arbitrary = fc.record({
      id: pathIdFor(() => known.get(collection) ?? []),
      token: oddString.map((t) => encodeURIComponent(t.replace(/[\uD800-\uDFFF]/g, '?')) || 'x'),
      query: queryFor(document, parameters),
      body: hasBody ? bodyFor(document, requestSchema) : fc.constant<BodyCase>({}),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'k'.repeat(256), 'ключ', 'a\tb')), { freq: 4 }),
      authorization: fc.oneof(
        { weight: 12, arbitrary: fc.constant(`Bearer ${key}`) },
        { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', `Bearer ${key}x`, `bearer ${key}`, 'Basic dXNlcjpwYXNz', `Bearer svc_live_${'A'.repeat(32)}`) },
      ),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (input) => {
        const url = new URL(
          `${baseUrl}${op.template.replace('{id}', input.id).replace('{token}', input.token)}`,
        );
        for (const [name, value] of input.query) url.searchParams.append(name, value);
        const headers: Record<string, string> = {};
        if (input.authorization) headers.authorization = input.authorization;
        if (input.body.contentType) headers['content-type'] = input.body.contentType;
        if (input.idempotencyKey !== null && /^[\x20-\x7e]*$/.test(input.idempotencyKey)) headers['idempotency-key'] = input.idempotencyKey;
        const sent: Sent = { method: op.method, url: url.toString(), headers, body: input.body.text };
        const answer = await send(sent);
        requests++;
        byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
        expectWellFormed(sent, answer, op.documented);
        if (op.method === 'POST' && answer.status === 201 && !op.template.includes('{')) {
          const recordSchema = resolve(op.operation.responses?.['201']?.content?.['application/json']?.schema).properties?.data as Json | undefined;
          await expectReadBack(collection, sent, input.body, ((answer.body as Json).data ?? {}) as Json, requestSchema ?? {}, recordSchema ?? {});
        }
      }),
      { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
    );
  }

  // Still up, and what was written before the run is as it was.
  expect((await send({ method: 'GET', url: `${baseUrl}/healthz`, headers: {} })).status).toBe(200);
  const after = await send({ method: 'GET', url: `${baseUrl}/v1/contacts/${before.id}`, headers: auth });
  expect(after.status).toBe(200);
  expect({ ...((after.body as Json).data as Json), last_touchpoint_at: null, last_engagement_at: null, updated_at: null }).toEqual({
    ...before,
    last_touchpoint_at: null,
    last_engagement_at: null,
    updated_at: null,
  });
  console.log(
    `fuzz: ${all.length} operations, ${requests} requests (seed ${SEED}, ${RUNS} per operation); answers by status: ${[...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ')}`,
  );
});
