/**
 * The requests that once answered 500, sent to the distributed system (each service its own `crm
 * start` process behind the gateway), now answered as the client's to fix, and what is accepted
 * read back exactly as sent. The classes behind them are covered by the fuzzer (test/fuzz); these
 * are the examples, end to end.
 */
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

let stack: Stack | undefined;
let key = '';

beforeAll(async () => {
  stack = await startStack();
  key = (await stack.workspaceWithKey('Hostile', '*')).key;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const post = (path: string, rawBody: string) => stack!.api('POST', path, { key, rawBody, headers: { 'content-type': 'application/json' } });

function expect422(response: { status: number; body: any }, field: string, message: RegExp) {
  expect([response.status, response.body?.error?.code]).toEqual([422, 'validation_failed']);
  expect(response.body.error.request_id).toEqual(expect.any(String));
  expect(response.body.error.details).toEqual([{ field, message: expect.stringMatching(message) }]);
}

test('NUL in a value or a property name, and nesting hundreds deep, are 422 naming where', async () => {
  expect422(await post('/v1/contacts', '{"first_name":"a","company_name":"nul\\u0000byte"}'), 'company_name', /NUL/);
  expect422(await post('/v1/tasks', '{"title":"x","\\u0000":1}'), '\\u0000', /property name must not contain NUL/);
  const deep = `{"first_name":"d","extra":${'{"a":'.repeat(300)}1${'}'.repeat(300)}}`;
  expect422(await post('/v1/contacts', deep), `extra${'.a'.repeat(31)}`, /more than 32 levels deep/);
  expect422(await post('/v1/contacts', '{"first_name":"\\ud800"}'), 'first_name', /unpaired surrogate/);
});

test('property names of Object.prototype are ordinary custom fields, stored and cleared as sent', async () => {
  const created = await post('/v1/contacts', '{"first_name":"Proto","toString":"x","valueOf":{"a":1},"constructor":[1,2]}');
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  const read = await stack!.api('GET', `/v1/contacts/${id}`, { key });
  expect(read.body.data).toMatchObject({ first_name: 'Proto', toString: 'x', valueOf: { a: 1 }, constructor: [1, 2] });
  const patched = await stack!.api('PATCH', `/v1/contacts/${id}`, { key, rawBody: '{"toString":null}', headers: { 'content-type': 'application/json' } });
  expect(patched.status).toBe(200);
  expect(Object.hasOwn(patched.body.data, 'toString')).toBe(false);
  const task = await post('/v1/tasks', '{"title":"t","hasOwnProperty":1,"isPrototypeOf":"y"}');
  expect([task.status, task.body.data?.hasOwnProperty, task.body.data?.isPrototypeOf]).toEqual([201, 1, 'y']);
});

test('dates every store can hold, in UTC years 0001 to 9999; lengths in code points', async () => {
  expect422(await post('/v1/tasks', '{"title":"t","due_at":"0000-01-01T00:00:00Z"}'), 'due_at', /between years 0001 and 9999/);
  expect422(await post('/v1/tasks', '{"title":"t","due_at":"9999-12-31T23:59:59-05:00"}'), 'due_at', /between years 0001 and 9999/);
  const edge = await post('/v1/tasks', '{"title":"t","due_at":"9999-12-31T23:59:59.999Z"}');
  expect([edge.status, edge.body.data?.due_at]).toEqual([201, '9999-12-31T23:59:59.999Z']);
  const query = await stack!.api('GET', `/v1/tasks?since=${encodeURIComponent('0000-12-31T23:00:00Z')}`, { key });
  expect([query.status, query.body.error.details]).toEqual([400, { parameter: 'since' }]);
  // first_name holds 255 characters: 255 emoji are 255 characters (510 UTF-16 units).
  const emoji = await post('/v1/contacts', JSON.stringify({ first_name: '😀'.repeat(255) }));
  expect([emoji.status, emoji.body.data?.first_name]).toEqual([201, '😀'.repeat(255)]);
  expect422(await post('/v1/contacts', JSON.stringify({ first_name: '😀'.repeat(256) })), 'first_name', /at most 255 characters/);
});

test('a dialer\'s no-answer call: it rang for 30 s, nobody talked', async () => {
  const call = await post('/v1/call_logs', '{"status":"completed","outcome":"no_answer","started_at":"2026-05-15T10:00:00Z","ended_at":"2026-05-15T10:00:30Z","duration_seconds":0}');
  expect([call.status, call.body.data?.duration_seconds]).toEqual([201, 0]);
  expect422(
    await post('/v1/call_logs', '{"status":"completed","started_at":"2026-05-15T10:00:00Z","ended_at":"2026-05-15T10:00:30Z","duration_seconds":45}'),
    'duration_seconds',
    /at most the 30 seconds/,
  );
});
