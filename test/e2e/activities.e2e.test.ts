/**
 * End to end, distributed: tasks, call logs and meetings over HTTP, with the activities service in
 * its own `crm start activities` process behind the gateway (test/support/stack.ts). Every operation
 * is driven as a client would drive it: its success, its scope, its errors. A last suite checks
 * that the all-in-one `crm start` serves the same operations.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TEST_NATS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { type ApiResponse, apiClient } from '../support/http';
import { type CrmProcess, freePort, startCrm } from '../support/processes';
import { type Stack, startStack } from '../support/stack';
import { ActivitiesEvents } from '@crm/proto';

// Processes start and migrate here: minutes, not Jest's default seconds.
jest.setTimeout(180_000);
const useNats = serviceAvailable('NATS', TEST_NATS_URL);
const MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let stack: Stack | undefined;
let api: Stack['api'];
let workspaceId = '';
let otherWorkspaceId = '';
const keys = {
  full: '',
  other: '',
  tasksRead: '',
  tasksNoDelete: '',
  callLogsRead: '',
  meetingsRead: '',
  meetingsNoDelete: '',
};

beforeAll(async () => {
  stack = await startStack();
  api = stack.api;
  const acme = await stack.workspaceWithKey('Acme', '*');
  workspaceId = acme.workspaceId;
  keys.full = acme.key;
  const globex = await stack.workspaceWithKey('Globex', '*');
  keys.other = globex.key;
  otherWorkspaceId = globex.workspaceId;
  keys.tasksRead = (await stack.createKey(workspaceId, 'tasks:read')).key;
  keys.tasksNoDelete = (await stack.createKey(workspaceId, 'tasks:read,tasks:write')).key;
  keys.callLogsRead = (await stack.createKey(workspaceId, 'call_logs:read')).key;
  keys.meetingsRead = (await stack.createKey(workspaceId, 'meetings:read')).key;
  keys.meetingsNoDelete = (await stack.createKey(workspaceId, 'meetings:read,meetings:write')).key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

type Response = ApiResponse<any>;

/** Every record of a list, following next_cursor, with the page invariants checked on the way. */
async function listAll(query: string, key = keys.full): Promise<any[]> {
  const records: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Response = await api('GET', `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect([query, page.status]).toEqual([query, 200]);
    expect(page.body.has_more).toBe(page.body.next_cursor !== null);
    records.push(...page.body.data);
    cursor = page.body.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  return records;
}

/** Records the references of activities name: a user, a contact, an organization of a workspace. */
let users = 0;
async function user(workspace = workspaceId): Promise<string> {
  users++;
  const made = await stack!.admin<{ id: string }>(['admin', 'user', 'create', '--workspace', workspace, '--email', `rep${users}@acme.test`, '--name', `Rep ${users}`, '--role', 'member']);
  return made.id;
}
async function created(path: string, body: Record<string, unknown>, key = keys.full): Promise<string> {
  const response = await api('POST', path, { key, body });
  expect([path, response.status]).toEqual([path, 201]);
  return response.body.data.id;
}

function expectError(response: Response, status: number, code: string) {
  expect([response.status, response.body?.error?.code]).toEqual([status, code]);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
}

describe('tasks over HTTP', () => {
  test('create, get, complete, reopen, list and delete, identically under /v1 and /api/v1', async () => {
    const created = await api('POST', '/v1/tasks', {
      key: keys.full,
      body: { title: 'Call Ada', due_at: '2026-06-01T09:30:00+02:00', priority: 2, type: 'call', suggested_action: 'call', flow_enrollment_id: '0196d0c0-0000-7000-8000-000000000000', crm_ref: 'x-1' },
    });
    expect(created.status).toBe(201);
    const task = created.body.data;
    expect(task).toMatchObject({
      title: 'Call Ada',
      status: 'open',
      due_at: '2026-06-01T07:30:00.000Z',
      priority: 2,
      flow_enrollment_id: null,
      completed_at: null,
      description: null,
      svc_uid: null,
      crm_ref: 'x-1',
    });
    expect(task.created_at).toMatch(MS);

    for (const prefix of ['/v1', '/api/v1']) {
      const got = await api('GET', `${prefix}/tasks/${task.id}`, { key: keys.full });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ data: task });
    }

    const completed = await api('PATCH', `/api/v1/tasks/${task.id}`, { key: keys.full, body: { status: 'completed' } });
    expect(completed.status).toBe(200);
    expect(completed.body.data).toMatchObject({ status: 'completed', completed_at: expect.stringMatching(MS), title: 'Call Ada' });
    const listed = await api('GET', `/v1/tasks?status=completed&priority=2&updated_since=${encodeURIComponent(task.updated_at)}`, { key: keys.full });
    expect(listed.body).toEqual({ data: [completed.body.data], next_cursor: null, has_more: false });

    const reopened = await api('PATCH', `/v1/tasks/${task.id}`, { key: keys.full, body: { status: 'open', description: 'again' } });
    expect(reopened.body.data).toMatchObject({ status: 'open', completed_at: null, description: 'again' });

    const deleted = await api('DELETE', `/v1/tasks/${task.id}`, { key: keys.full });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await api('GET', `/v1/tasks/${task.id}`, { key: keys.full }), 404, 'not_found');
    expectError(await api('DELETE', `/v1/tasks/${task.id}`, { key: keys.full }), 404, 'not_found');
  });

  test("a task from another workspace is 404 for every operation and absent from its lists", async () => {
    const { body } = await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Private task' } });
    const id = body.data.id;
    for (const [method, extra] of [['GET', {}], ['PATCH', { body: { status: 'completed' } }], ['DELETE', {}]] as const) {
      const response = await api(method, `/v1/tasks/${id}`, { key: keys.other, ...extra });
      expect([method, response.status, response.body.error.code]).toEqual([method, 404, 'not_found']);
    }
    const theirs = await api('GET', '/v1/tasks?limit=200', { key: keys.other });
    expect(theirs.body.data.map((t: { id: string }) => t.id)).not.toContain(id);
    const mine = await api('GET', `/v1/tasks/${id}`, { key: keys.full });
    expect(mine.body.data.status).toBe('open');
  });

  test('the list pages by cursor with typed filters and every sort key, up to 200 a page', async () => {
    const assignee = await user();
    const organization = await created('/v1/organizations', { name: 'Initech' });
    const due = ['2026-07-03T00:00:00Z', null, '2026-07-01T00:00:00Z', '2026-07-02T00:00:00Z', null];
    const made: any[] = [];
    for (const [i, due_at] of due.entries()) {
      const response = await api('POST', '/v1/tasks', {
        key: keys.full,
        body: { title: `Inbox ${i}`, assignee_id: assignee, organization_id: organization, due_at, priority: i % 2, suggested_action: i < 3 ? 'email' : 'other' },
      });
      expect(response.status).toBe(201);
      made.push(response.body.data);
    }
    const byDue = await listAll(`/v1/tasks?assignee_id=${assignee}&sort=due_at&limit=2`);
    expect(byDue.map((t) => t.title)).toEqual(['Inbox 2', 'Inbox 3', 'Inbox 0', ...[made[1], made[4]].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => t.title)]);
    for (const sort of ['created_at', '-created_at', 'updated_at', '-due_at', 'priority', '-priority', 'status', '-status']) {
      const all = await listAll(`/v1/tasks?organization_id=${organization}&sort=${sort}&limit=1`);
      expect([sort, all.length]).toEqual([sort, 5]);
    }
    const newestFirst = await listAll(`/v1/tasks?organization_id=${organization}&limit=3`);
    expect(newestFirst.map((t) => t.id)).toEqual([...made].reverse().map((t) => t.id));
    expect((await listAll(`/v1/tasks?organization_id=${organization}&suggested_action=other&priority=1&limit=200`)).map((t) => t.title)).toEqual(['Inbox 3']);
    expect((await listAll(`/v1/tasks?assignee_id=${assignee}&q=INBOX%204&limit=50`)).map((t) => t.title)).toEqual(['Inbox 4']);
    const since = await listAll(`/v1/tasks?assignee_id=${assignee}&since=${encodeURIComponent(made[3].created_at)}&sort=created_at&limit=50`);
    expect(since.map((t) => t.id)).toEqual(made.slice(3).map((t) => t.id));

    const first = await api('GET', `/v1/tasks?assignee_id=${assignee}&limit=2`, { key: keys.full });
    expect(first.body.has_more).toBe(true);
    expectError(
      await api('GET', `/v1/tasks?assignee_id=${randomUUID()}&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: keys.full }),
      400,
      'invalid_request',
    );
  });

  test('bad list parameters are 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['limit=201', 'limit'],
      ['limit=0', 'limit'],
      ['limit=ten', 'limit'],
      ['priority=high', 'priority'],
      ['priority=1.5', 'priority'],
      ['assignee_id=me', 'assignee_id'],
      ['contact_id=42', 'contact_id'],
      ['flow_enrollment_id=abc', 'flow_enrollment_id'],
      ['status=done', 'status'],
      ['suggested_action=fax', 'suggested_action'],
      ['updated_since=yesterday', 'updated_since'],
      ['since=2026-06-01', 'since'],
      ['sort=title', 'sort'],
      ['colour=red', 'colour'],
      ['cursor=forged.cursor', 'cursor'],
    ];
    for (const [query, parameter] of cases) {
      const response = await api('GET', `/v1/tasks?${query}`, { key: keys.full });
      expect([query, response.status, response.body.error.code]).toEqual([query, 400, 'invalid_request']);
      if (parameter !== 'cursor') expect([query, response.body.error.message]).toEqual([query, expect.stringContaining(parameter)]);
    }
    expect((await api('GET', '/v1/tasks?limit=200', { key: keys.full })).status).toBe(200);
  });

  test('bodies are validated: another status is 422, read-only fields are ignored', async () => {
    const invalid = await api('POST', '/v1/tasks', { key: keys.full, body: { priority: 'high', due_at: '2026-06-01 10:00', status: 'done' } });
    expectError(invalid, 422, 'validation_failed');
    expect(invalid.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'title', message: 'is required' },
        { field: 'priority', message: 'must be an integer' },
        { field: 'due_at', message: 'must be an RFC 3339 date-time with offset, between years 0001 and 9999 in UTC' },
        { field: 'status', message: 'must be one of open, completed' },
      ]),
    );
    expectError(await api('POST', '/v1/tasks', { key: keys.full, body: { title: ' ' } }), 422, 'validation_failed');
    const { body } = await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Transitions' } });
    for (const patch of [{ status: 'archived' }, { status: null }, { title: null }]) {
      expectError(await api('PATCH', `/v1/tasks/${body.data.id}`, { key: keys.full, body: patch }), 422, 'validation_failed');
    }
    const ignored = await api('PATCH', `/v1/tasks/${body.data.id}`, {
      key: keys.full,
      body: { completed_at: '2026-01-01T00:00:00Z', flow_enrollment_id: randomUUID(), id: 'nope' },
    });
    expect(ignored.body.data).toMatchObject({ id: body.data.id, completed_at: null, flow_enrollment_id: null, status: 'open' });
    expectError(await api('PATCH', `/v1/tasks/${body.data.id}`, { key: keys.full }), 422, 'validation_failed');
    expectError(await api('GET', '/v1/tasks/not-a-uuid', { key: keys.full }), 400, 'invalid_request');
    expectError(await api('PUT', `/v1/tasks/${body.data.id}`, { key: keys.full, body: {} }), 405, 'method_not_allowed');
    const svc = await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Linked', svc_uid: `svc-${body.data.id}` } });
    expect(svc.status).toBe(201);
    expectError(await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Twin', svc_uid: `svc-${body.data.id}` } }), 409, 'conflict');
    expect((await listAll(`/v1/tasks?svc_uid=svc-${body.data.id}&limit=10`)).map((t) => t.id)).toEqual([svc.body.data.id]);
  });

  test('each operation requires its scope', async () => {
    const { body } = await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Scoped' } });
    const id = body.data.id;
    expect((await api('GET', '/v1/tasks', { key: keys.tasksRead })).status).toBe(200);
    expect((await api('GET', `/v1/tasks/${id}`, { key: keys.tasksRead })).status).toBe(200);
    const cases: [string, string, string, unknown][] = [
      [keys.tasksRead, 'POST', '/v1/tasks', { title: 'No' }],
      [keys.tasksRead, 'PATCH', `/v1/tasks/${id}`, { status: 'completed' }],
      [keys.tasksNoDelete, 'DELETE', `/v1/tasks/${id}`, undefined],
      [keys.callLogsRead, 'GET', '/v1/tasks', undefined],
    ];
    const required = ['tasks:write', 'tasks:write', 'tasks:delete', 'tasks:read'];
    for (const [i, [key, method, url, requestBody]] of cases.entries()) {
      const response = await api(method, url, { key, body: requestBody });
      expectError(response, 403, 'forbidden');
      expect(response.body.error.details).toEqual({ required_scope: required[i] });
    }
    expect((await api('PATCH', `/v1/tasks/${id}`, { key: keys.tasksNoDelete, body: { status: 'completed' } })).status).toBe(200);
    expectError(await api('GET', '/v1/tasks'), 401, 'unauthorized');
  });
});

describe('call logs over HTTP', () => {
  test('a dialer logs a call: duration derived, mode kept, readable by id and in the list', async () => {
    const contact = await created('/v1/contacts', { first_name: 'Called' });
    const logged = await api('POST', '/v1/call_logs', {
      key: keys.full,
      body: { contact_id: contact, status: 'completed', outcome: 'connected', mode: 'dialer', started_at: '2026-05-15T10:00:00Z', ended_at: '2026-05-15T10:02:05.300Z', notes: 'Budget approved', dialer_call_id: 'd-77' },
    });
    expect(logged.status).toBe(201);
    expect(logged.body.data).toMatchObject({ duration_seconds: 125, mode: 'dialer', started_at: '2026-05-15T10:00:00.000Z', dialer_call_id: 'd-77', owner_id: null });
    const manual = await api('POST', '/v1/call_logs', { key: keys.full, body: { contact_id: contact, status: 'missed', duration_seconds: 0 } });
    expect(manual.body.data).toMatchObject({ mode: 'manual', duration_seconds: 0, outcome: null });

    const got = await api('GET', `/api/v1/call_logs/${logged.body.data.id}`, { key: keys.callLogsRead });
    expect(got.body).toEqual({ data: logged.body.data });
    expect((await listAll(`/v1/call_logs?contact_id=${contact}&sort=-duration_seconds&limit=1`)).map((c) => c.id)).toEqual([
      logged.body.data.id,
      manual.body.data.id,
    ]);
    expect((await listAll(`/v1/call_logs?contact_id=${contact}&mode=manual&limit=10`)).map((c) => c.id)).toEqual([manual.body.data.id]);
    expect((await listAll(`/v1/call_logs?contact_id=${contact}&q=budget&limit=10`)).map((c) => c.id)).toEqual([logged.body.data.id]);
    for (const sort of ['started_at', '-ended_at', 'created_at']) {
      expect([sort, (await listAll(`/v1/call_logs?contact_id=${contact}&sort=${sort}&limit=1`)).length]).toEqual([sort, 2]);
    }
    expectError(await api('GET', `/v1/call_logs/${logged.body.data.id}`, { key: keys.other }), 404, 'not_found');
    expectError(await api('GET', '/v1/call_logs?limit=101', { key: keys.full }), 400, 'invalid_request');
    expectError(await api('GET', '/v1/call_logs?outcome=hung_up', { key: keys.full }), 400, 'invalid_request');
  });

  test('duration is talk time within the call\'s span; status is required', async () => {
    const times = { status: 'completed', started_at: '2026-05-15T10:00:00Z', ended_at: '2026-05-15T10:00:30Z' };
    const disagree = await api('POST', '/v1/call_logs', { key: keys.full, body: { ...times, duration_seconds: 45 } });
    expectError(disagree, 422, 'validation_failed');
    expect(disagree.body.error.details).toEqual([{ field: 'duration_seconds', message: expect.stringContaining('at most the 30 seconds between') }]);
    expect((await api('POST', '/v1/call_logs', { key: keys.full, body: { ...times, duration_seconds: 30 } })).status).toBe(201);
    // A no-answer call: it rang for 30 s and nobody talked.
    const noAnswer = await api('POST', '/v1/call_logs', { key: keys.full, body: { ...times, outcome: 'no_answer', duration_seconds: 0 } });
    expect([noAnswer.status, noAnswer.body.data?.duration_seconds]).toEqual([201, 0]);
    const backwards = await api('POST', '/v1/call_logs', { key: keys.full, body: { ...times, ended_at: '2026-05-15T09:59:59Z' } });
    expect(backwards.body.error.details).toEqual([{ field: 'ended_at', message: 'must not be before started_at' }]);
    const missing = await api('POST', '/v1/call_logs', { key: keys.full, body: { outcome: 'busy', duration_seconds: -5 } });
    expectError(missing, 422, 'validation_failed');
    expect(missing.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'status', message: 'is required' },
        { field: 'duration_seconds', message: 'must be between 0 and 2147483647' },
      ]),
    );
  });

  test('call logs cannot be changed or deleted (405), and writing needs call_logs:write', async () => {
    const { body } = await api('POST', '/v1/call_logs', { key: keys.full, body: { status: 'failed' } });
    for (const method of ['PATCH', 'DELETE', 'PUT']) {
      const response = await api(method, `/v1/call_logs/${body.data.id}`, { key: keys.full, body: method === 'DELETE' ? undefined : { notes: 'x' } });
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
    const denied = await api('POST', '/v1/call_logs', { key: keys.callLogsRead, body: { status: 'completed' } });
    expectError(denied, 403, 'forbidden');
    expect(denied.body.error.details).toEqual({ required_scope: 'call_logs:write' });
    const listDenied = await api('GET', '/v1/call_logs', { key: keys.tasksRead });
    expect(listDenied.body.error.details).toEqual({ required_scope: 'call_logs:read' });
  });
});

describe('meetings over HTTP', () => {
  const slot = { scheduled_start: '2026-08-10T14:00:00Z', scheduled_end: '2026-08-10T14:45:00Z' };

  test('create, get, reschedule, cancel, list and delete', async () => {
    const owner = await user();
    const created = await api('POST', '/v1/meetings', { key: keys.full, body: { title: 'Demo', owner_id: owner, location: 'Zoom', ...slot } });
    expect(created.status).toBe(201);
    const meeting = created.body.data;
    expect(meeting).toMatchObject({ status: 'scheduled', outcome: null, scheduled_start: '2026-08-10T14:00:00.000Z', scheduled_end: '2026-08-10T14:45:00.000Z' });
    expect((await api('GET', `/api/v1/meetings/${meeting.id}`, { key: keys.meetingsRead })).body).toEqual({ data: meeting });

    const moved = await api('PATCH', `/v1/meetings/${meeting.id}`, { key: keys.full, body: { scheduled_start: '2026-08-11T09:00:00Z', scheduled_end: '2026-08-11T10:00:00Z' } });
    expect(moved.body.data).toMatchObject({ scheduled_start: '2026-08-11T09:00:00.000Z', title: 'Demo' });
    const second = await api('POST', '/v1/meetings', { key: keys.full, body: { title: 'Kickoff', owner_id: owner, description: 'with the CTO', ...slot } });
    const canceled = await api('PATCH', `/v1/meetings/${second.body.data.id}`, { key: keys.full, body: { status: 'canceled', outcome: 'rescheduled' } });
    expect(canceled.body.data).toMatchObject({ status: 'canceled', outcome: 'rescheduled' });

    expect((await listAll(`/v1/meetings?owner_id=${owner}&limit=1`)).map((m) => m.title)).toEqual(['Demo', 'Kickoff']);
    expect((await listAll(`/v1/meetings?owner_id=${owner}&sort=scheduled_start&limit=1`)).map((m) => m.title)).toEqual(['Kickoff', 'Demo']);
    expect((await listAll(`/v1/meetings?owner_id=${owner}&sort=-scheduled_end&limit=5`)).map((m) => m.title)).toEqual(['Demo', 'Kickoff']);
    expect((await listAll(`/v1/meetings?owner_id=${owner}&status=canceled&limit=5`)).map((m) => m.title)).toEqual(['Kickoff']);
    expect((await listAll(`/v1/meetings?owner_id=${owner}&q=cto&limit=5`)).map((m) => m.title)).toEqual(['Kickoff']);
    const window = `since=${encodeURIComponent('2026-08-11T00:00:00Z')}&until=${encodeURIComponent('2026-08-12T00:00:00Z')}`;
    expect((await listAll(`/v1/meetings?owner_id=${owner}&${window}&limit=5`)).map((m) => m.title)).toEqual(['Demo']);

    expect((await api('DELETE', `/v1/meetings/${meeting.id}`, { key: keys.full })).status).toBe(204);
    expectError(await api('GET', `/v1/meetings/${meeting.id}`, { key: keys.full }), 404, 'not_found');
  });

  test('scheduled_end must stay after scheduled_start; enums are checked; scopes apply', async () => {
    const inverted = await api('POST', '/v1/meetings', { key: keys.full, body: { title: 'Backwards', scheduled_start: slot.scheduled_end, scheduled_end: slot.scheduled_start } });
    expectError(inverted, 422, 'validation_failed');
    expect(inverted.body.error.details).toEqual([{ field: 'scheduled_end', message: 'must be after scheduled_start' }]);
    const { body } = await api('POST', '/v1/meetings', { key: keys.full, body: { title: 'Fixed', ...slot } });
    const id = body.data.id;
    const late = await api('PATCH', `/v1/meetings/${id}`, { key: keys.full, body: { scheduled_start: '2026-08-10T15:00:00Z' } });
    expect(late.body.error.details).toEqual([{ field: 'scheduled_start', message: 'must be before scheduled_end' }]);
    const bad = await api('PATCH', `/v1/meetings/${id}`, { key: keys.full, body: { status: 'postponed', outcome: 'won' } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.body.error.details).toHaveLength(2);
    expectError(await api('POST', '/v1/meetings', { key: keys.full, body: { title: 'No time' } }), 422, 'validation_failed');

    expectError(await api('PATCH', `/v1/meetings/${id}`, { key: keys.meetingsRead, body: { title: 'x' } }), 403, 'forbidden');
    const noDelete = await api('DELETE', `/v1/meetings/${id}`, { key: keys.meetingsNoDelete });
    expect(noDelete.body.error.details).toEqual({ required_scope: 'meetings:delete' });
    expect((await api('PATCH', `/v1/meetings/${id}`, { key: keys.meetingsNoDelete, body: { location: 'Office' } })).status).toBe(200);
    for (const [method, extra] of [['GET', {}], ['PATCH', { body: { title: 'Theirs' } }], ['DELETE', {}]] as const) {
      expectError(await api(method, `/v1/meetings/${id}`, { key: keys.other, ...extra }), 404, 'not_found');
    }
    expectError(await api('GET', '/v1/meetings?since=tomorrow', { key: keys.full }), 400, 'invalid_request');
    expectError(await api('GET', '/v1/meetings?sort=title', { key: keys.full }), 400, 'invalid_request');
  });
});

describe('references', () => {
  test('every id naming another record is checked in the caller\'s workspace: unknown and foreign alike are 422 naming the field', async () => {
    const contact = await created('/v1/contacts', { first_name: 'Known' });
    const organization = await created('/v1/organizations', { name: 'Known Co' });
    const rep = await user();
    // Globex's records, which Acme's key must not be able to name.
    const foreign = {
      contact: await created('/v1/contacts', { first_name: 'Theirs' }, keys.other),
      organization: await created('/v1/organizations', { name: 'Theirs Co' }, keys.other),
    };
    const otherUser = await user(otherWorkspaceId);
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v1/tasks', { title: 'T', contact_id: randomUUID() }, 'contact_id'],
      ['/v1/tasks', { title: 'T', contact_id: foreign.contact }, 'contact_id'],
      ['/v1/tasks', { title: 'T', organization_id: foreign.organization }, 'organization_id'],
      ['/v1/tasks', { title: 'T', assignee_id: otherUser }, 'assignee_id'],
      ['/v1/tasks', { title: 'T', assignee_id: randomUUID() }, 'assignee_id'],
      ['/v1/call_logs', { status: 'completed', contact_id: foreign.contact }, 'contact_id'],
      ['/v1/call_logs', { status: 'completed', owner_id: otherUser }, 'owner_id'],
      ['/v1/meetings', { title: 'M', scheduled_start: '2026-08-10T14:00:00Z', scheduled_end: '2026-08-10T15:00:00Z', contact_id: randomUUID() }, 'contact_id'],
      ['/v1/meetings', { title: 'M', scheduled_start: '2026-08-10T14:00:00Z', scheduled_end: '2026-08-10T15:00:00Z', owner_id: otherUser }, 'owner_id'],
      ['/v1/contacts', { first_name: 'C', owner_id: otherUser }, 'owner_id'],
      ['/v1/pools', { name: 'P', owner_id: randomUUID() }, 'owner_id'],
      ['/v1/flows', { name: 'F', owner_id: otherUser, nodes: [{ key: 'end', type: 'end' }], edges: [] }, 'owner_id'],
      ['/v1/touchpoints', { contact_id: contact, channel: 'chat_app', direction: 'outbound', owner_id: randomUUID() }, 'owner_id'],
    ];
    for (const [path, body, field] of cases) {
      const refused = await api('POST', path, { key: keys.full, body });
      expectError(refused, 422, 'validation_failed');
      // The same answer for an id of another workspace and for one that exists nowhere.
      expect([path, field, refused.body.error.details]).toEqual([path, field, [{ field, message: expect.stringMatching(/^no (contact|organization|user) with this id in the workspace$/) }]]);
    }
    // A PATCH is checked like a create; the known references of the workspace are accepted.
    const task = await created('/v1/tasks', { title: 'Call back', contact_id: contact, organization_id: organization, assignee_id: rep });
    expectError(await api('PATCH', `/v1/tasks/${task}`, { key: keys.full, body: { contact_id: foreign.contact } }), 422, 'validation_failed');
    const moved = await api('PATCH', `/v1/tasks/${task}`, { key: keys.full, body: { assignee_id: null, contact_id: contact } });
    expect([moved.status, moved.body.data.assignee_id, moved.body.data.contact_id]).toEqual([200, null, contact]);
    await created('/v1/call_logs', { status: 'completed', contact_id: contact, owner_id: rep });
    await created('/v1/meetings', { title: 'Demo', scheduled_start: '2026-08-10T14:00:00Z', scheduled_end: '2026-08-10T15:00:00Z', contact_id: contact, owner_id: rep });
    await created('/v1/contacts', { first_name: 'Owned', owner_id: rep });
  });

  // The deletion travels as an event from people to activities: across processes, that is NATS.
  (useNats ? test : test.skip)('a deleted contact\'s tasks, calls and meetings stay, without the contact', async () => {
    const contact = await created('/v1/contacts', { first_name: 'Leaving' });
    const task = await created('/v1/tasks', { title: 'Follow up', contact_id: contact });
    const call = await created('/v1/call_logs', { status: 'completed', contact_id: contact });
    expect((await api('DELETE', `/v1/contacts/${contact}`, { key: keys.full })).status).toBe(204);
    await expectEventually(async () => {
      const [t, c] = await Promise.all([api('GET', `/v1/tasks/${task}`, { key: keys.full }), api('GET', `/v1/call_logs/${call}`, { key: keys.full })]);
      expect([t.status, t.body.data.contact_id, c.status, c.body.data.contact_id]).toEqual([200, null, 200, null]);
    }, { timeoutMs: 20_000 });
    // And the deleted contact can no longer be named.
    expectError(await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Too late', contact_id: contact } }), 422, 'validation_failed');
  });
});

(useNats ? describe : describe.skip)('activity events on NATS JetStream', () => {
  test('completing a task and logging a call are published with their contracts', async () => {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstream } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const { body } = await api('POST', '/v1/tasks', { key: keys.full, body: { title: 'Evented' } });
      const done = await api('PATCH', `/v1/tasks/${body.data.id}`, { key: keys.full, body: { status: 'completed' } });
      const call = await api('POST', '/v1/call_logs', { key: keys.full, body: { status: 'completed', started_at: '2026-05-15T10:00:00Z' } });
      const js = jetstream(nc);
      const expectLast = async (subject: string, data: Record<string, unknown>) => {
        const consumer = await js.consumers.get('CRM', { filter_subjects: subject, deliver_policy: 'last_per_subject' as never });
        await expectEventually(
          async () => {
            const msg = await consumer.next({ expires: 1_000 });
            expect(msg).toBeTruthy();
            const event = msg!.json<{ id: string; type: string; workspace_id: string; data: Record<string, unknown> }>();
            expect(event).toMatchObject({ type: subject, workspace_id: workspaceId, data });
            expect(msg!.headers?.get('Nats-Msg-Id')).toBe(event.id);
          },
          { timeoutMs: 10_000, intervalMs: 100 },
        );
      };
      await expectLast(ActivitiesEvents.TaskCompleted, { task_id: body.data.id, completed_at: done.body.data.completed_at });
      await expectLast(ActivitiesEvents.CallLogged, { call_log_id: call.body.data.id, status: 'completed', occurred_at: '2026-05-15T10:00:00.000Z' });
    } finally {
      await nc.close();
    }
  });
});

describe('all-in-one', () => {
  let dataDir: string;
  let running: CrmProcess | undefined;
  afterAll(async () => {
    await running?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('`crm start` serves tasks, call logs and meetings in one process', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crm-aio-activities-'));
    running = startCrm('all-in-one', ['start'], {
      DATABASE_URL: '',
      NATS_URL: '',
      MONGO_URL: '',
      REDIS_URL: '',
      CURSOR_SECRET: '',
      SECRETS_KEY: '',
      KEY_PEPPER: '',
      CRM_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      DIRECTORY_ADDR: `127.0.0.1:${await freePort()}`,
    });
    const process_ = running;
    const { url, key } = await expectEventually(
      () => {
        if (process_.child.exitCode !== null) throw new Error(`crm start exited:\n${process_.output()}`);
        const output = process_.output();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        const printed = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output);
        expect(match && printed).toBeTruthy();
        return { url: match![1]!, key: printed![1]! };
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    const local = apiClient(url);
    const task = await local('POST', '/v1/tasks', { key, body: { title: 'All in one' } });
    expect(task.status).toBe(201);
    expect((await local('PATCH', `/v1/tasks/${task.body.data.id}`, { key, body: { status: 'completed' } })).body.data.completed_at).toMatch(MS);
    expect((await local('POST', '/v1/call_logs', { key, body: { status: 'completed', duration_seconds: 12 } })).status).toBe(201);
    const meeting = await local('POST', '/v1/meetings', { key, body: { title: 'Sync', scheduled_start: '2026-09-01T10:00:00Z', scheduled_end: '2026-09-01T10:15:00Z' } });
    expect(meeting.status).toBe(201);
    const lists = await Promise.all(['tasks', 'call_logs', 'meetings'].map((name) => local('GET', `/v1/${name}`, { key })));
    expect(lists.map((l) => [l.status, l.body.data.length])).toEqual([
      [200, 1],
      [200, 1],
      [200, 1],
    ]);
  });
});
