import * as grpc from '@grpc/grpc-js';
import {
  type CrmEvent,
  type EventBus,
  type SqlClient,
  CrmError,
  createCursorCodec,
  createLogger,
  createMemoryBus,
  createOutboxRelay,
  newId,
  parseListQuery,
  runMigrations,
  startGrpcServer,
  toStruct,
  unary,
  type RunningGrpcServer,
} from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { contacts } from '@crm/people-contract';
import { PeopleEvents, loadPeople } from '@crm/proto';
import { migrations } from './migrations';
import { peopleGrpcBinding } from './people.grpc';
import { type PeopleService, createPeopleService } from './people.service';

const log = createLogger('test', 'silent');

describe.each(sqlBackends())('people service on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  let bus: EventBus;
  let people: PeopleService;
  let relay: ReturnType<typeof createOutboxRelay>;
  const received: CrmEvent[] = [];
  const ws = newId();
  const otherWs = newId();
  const ctx = { workspaceId: ws };

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_people'));
    expect(await runMigrations(db, migrations)).toEqual(migrations.map((m) => m.id));
    expect(await runMigrations(db, migrations)).toEqual([]);
    bus = createMemoryBus();
    await bus.subscribe({ durable: 'test', subjects: ['crm.people.>'], handler: async (event) => void received.push(event) });
    relay = createOutboxRelay({ db, bus, pollIntervalMs: 50 });
    people = createPeopleService({ db, cursors: createCursorCodec('c'.repeat(32)), afterCommit: () => relay.nudge() });
    relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await drop();
  });

  test('create returns the full record with nulls, custom fields and ms timestamps', async () => {
    const created = await people.contacts.create(ctx, {
      first_name: 'Ada',
      email: 'ada@example.com',
      priority: 3,
      lead_score: 42,
      tags: ['vip'],
      id: 'ignored',
      created_at: '1999-01-01T00:00:00Z',
      last_engagement_at: '2030-01-01T00:00:00Z',
    });
    expect(created).toMatchObject({ first_name: 'Ada', email: 'ada@example.com', priority: 3, last_name: null, lead_score: 42, tags: ['vip'] });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.created_at).not.toBe('1999-01-01T00:00:00.000Z');
    expect(created.last_engagement_at).toBeNull();
    expect(await people.contacts.get(ws, created.id as string)).toEqual(created);
    await expectEventually(() => expect(received.map((e) => [e.type, e.data.id])).toContainEqual([PeopleEvents.ContactCreated, created.id]));
  });

  test('email is unique per workspace, case-insensitively, and free in another workspace', async () => {
    await people.contacts.create(ctx, { email: 'Grace@Example.com' });
    await expect(people.contacts.create(ctx, { email: 'grace@example.com' })).rejects.toMatchObject({ code: 'conflict', details: { field: 'email' } });
    await expect(people.contacts.create({ workspaceId: otherWs }, { email: 'grace@example.com' })).resolves.toBeDefined();
  });

  test('svc_uid is unique per workspace', async () => {
    await people.contacts.create(ctx, { last_name: 'Hopper', svc_uid: 'ext-1' });
    await expect(people.contacts.create(ctx, { last_name: 'Other', svc_uid: 'ext-1' })).rejects.toMatchObject({ code: 'conflict', details: { field: 'svc_uid' } });
  });

  test('an address past RFC 5321 limits is refused naming email, on create and on update', async () => {
    const local65 = `${'a'.repeat(65)}@example.com`;
    const message = 'local part must be at most 64 octets (UTF-8 bytes); it has 65';
    await expect(people.contacts.create(ctx, { email: local65 })).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'email', message }] });
    const kept = await people.contacts.create(ctx, { email: `${'a'.repeat(64)}@limits.example.com` });
    await expect(people.contacts.update(ctx, String(kept.id), { email: local65 })).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'email', message }] });
    // Octets, not characters: 33 characters of which 32 take two bytes each.
    await expect(people.contacts.update(ctx, String(kept.id), { email: `${'é'.repeat(32)}a@example.com` })).rejects.toMatchObject({ details: [{ field: 'email', message }] });
    expect((await people.contacts.get(ws, String(kept.id))).email).toBe(`${'a'.repeat(64)}@limits.example.com`);
  });

  test('validation lists every bad field', async () => {
    const error = await people.contacts.create(ctx, { email: 'nope', priority: 'high', owner_id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmError);
    expect((error as CrmError).code).toBe('validation_failed');
    expect((error as CrmError).details).toEqual(
      expect.arrayContaining([
        { field: 'email', message: 'must be an email address' },
        { field: 'priority', message: 'must be an integer' },
        { field: 'owner_id', message: 'must be a UUID' },
      ]),
    );
    await expect(people.contacts.create(ctx, { title: 'CTO' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(people.contacts.create(ctx, [])).rejects.toMatchObject({ code: 'validation_failed' });
  });

  test('patch merges, null clears, and a record may not lose every identifying field', async () => {
    const c = await people.contacts.create(ctx, { first_name: 'Linus', last_name: 'T', city: 'Helsinki', stage_note: 'x', keep: 1 });
    const patched = await people.contacts.update(ctx, c.id as string, { city: null, country: 'FI', stage_note: null, extra: { a: 1 } });
    expect(patched).toMatchObject({ first_name: 'Linus', city: null, country: 'FI', keep: 1, extra: { a: 1 } });
    expect(patched).not.toHaveProperty('stage_note');
    expect(patched.updated_at >= (c.updated_at as string)).toBe(true);
    await expect(people.contacts.update(ctx, c.id as string, { first_name: null, last_name: null })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await people.contacts.get(ws, c.id as string)).toMatchObject({ first_name: 'Linus', last_name: 'T' });
    await expectEventually(() =>
      expect(received.find((e) => e.type === PeopleEvents.ContactUpdated && e.data.id === c.id)?.data.changed).toEqual(
        expect.arrayContaining(['city', 'country', 'extra', 'stage_note']),
      ),
    );
  });

  test('q searches the four fields through one lowered column: any case, any field, never across two, characters literal, this workspace only', async () => {
    const tag = newId().slice(0, 8);
    const make = (body: Record<string, unknown>) => people.contacts.create(ctx, body).then((c) => c.id as string);
    const first = await make({ first_name: `Zoe${tag}`, last_name: 'Quill' });
    const last = await make({ last_name: `Mbeki${tag}` });
    const mail = await make({ email: `ops+${tag}@Example.org` });
    const company = await make({ first_name: 'Co', company_name: `50%_Off ${tag} GmbH` });
    await people.contacts.create({ workspaceId: otherWs }, { first_name: `Zoe${tag}` });
    const q = async (term: string) => (await people.contacts.list(ws, parseListQuery(contacts, { q: term }))).data.map((c) => c.id).sort();
    expect(await q(tag)).toEqual([first, last, mail, company].sort());
    expect(await q(`ZOE${tag.toUpperCase()}`)).toEqual([first]);
    expect(await q(`mbeki${tag}`)).toEqual([last]);
    expect(await q(`+${tag}@example.ORG`)).toEqual([mail]);
    expect(await q(`50%_off ${tag}`)).toEqual([company]);
    // `%` and `_` are themselves: no wildcard matches the other contacts.
    expect(await q(`5_%_off ${tag}`)).toEqual([]);
    // The end of one field and the start of the next are not one term.
    expect(await q(`${tag}quill`)).toEqual([]);
    expect(await q(`${tag} quill`)).toEqual([]);
    // A change of a searched field is searched at once (the column is generated from the row).
    await people.contacts.update(ctx, last, { last_name: `Okafor${tag}` });
    expect(await q(`mbeki${tag}`)).toEqual([]);
    expect(await q(`okafor${tag}`)).toEqual([last]);
  });

  test("another workspace's record is invisible", async () => {
    const c = await people.contacts.create(ctx, { first_name: 'Private' });
    const other = { workspaceId: otherWs };
    await expect(people.contacts.get(otherWs, c.id as string)).rejects.toMatchObject({ code: 'not_found' });
    await expect(people.contacts.update(other, c.id as string, { city: 'X' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(people.contacts.delete(other, c.id as string)).rejects.toMatchObject({ code: 'not_found' });
    const page = await people.contacts.list(otherWs, parseListQuery(contacts, { limit: '100' }));
    expect(page.data.map((r) => r.id)).not.toContain(c.id);
  });

  test('delete removes the record and publishes contact.deleted', async () => {
    const c = await people.contacts.create(ctx, { first_name: 'Gone', svc_uid: 'ext-gone' });
    await people.contacts.delete(ctx, c.id as string);
    await expect(people.contacts.get(ws, c.id as string)).rejects.toMatchObject({ code: 'not_found' });
    await expect(people.contacts.delete(ctx, c.id as string)).rejects.toMatchObject({ code: 'not_found' });
    await expectEventually(() =>
      expect(received.find((e) => e.type === PeopleEvents.ContactDeleted && e.data.id === c.id)).toMatchObject({
        workspace_id: ws,
        data: { id: c.id, svc_uid: 'ext-gone' },
      }),
    );
  });

  test('a failed write leaves no row and no event', async () => {
    const count = async (table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
    await expectEventually(async () => expect(await count('outbox')).toBe(0));
    const contactsBefore = await count('contacts');
    const eventsBefore = received.length;
    await expect(people.contacts.create(ctx, { email: 'ADA@example.com', first_name: 'Duplicate' })).rejects.toMatchObject({ code: 'conflict' });
    expect(await count('contacts')).toBe(contactsBefore);
    expect(await count('outbox')).toBe(0);
    expect(received.length).toBe(eventsBefore);
  });

  describe('over gRPC', () => {
    let server: RunningGrpcServer;
    let client: grpc.Client;
    beforeAll(async () => {
      server = await startGrpcServer('127.0.0.1:0', [peopleGrpcBinding(people, log)]);
      client = new (loadPeople().crm.people.v1.PeopleService)(server.address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client.close();
      await server.shutdown();
    });

    test('round-trips records, custom fields and pages', async () => {
      const created = await unary<unknown, Record<string, unknown>>(client, 'CreateContact', {
        workspace_id: ws,
        fields: toStruct({ first_name: 'Grpc', nested: { deep: [1, 'two', null, true] } }),
      });
      expect(created.first_name).toBe('Grpc');
      expect(created).not.toHaveProperty('last_name');
      const page = await unary<unknown, { data: Record<string, unknown>[]; page: { next_cursor: string; has_more: boolean } }>(
        client,
        'ListContacts',
        { workspace_id: ws, limit: 1, sort: '-created_at' },
      );
      expect(page.data).toHaveLength(1);
      expect(page.page.has_more).toBe(true);
      expect(page.page.next_cursor).not.toBe('');
    });

    test('domain errors arrive with their code and details', async () => {
      await expect(unary(client, 'CreateContact', { workspace_id: ws, fields: toStruct({ email: 'bad' }) })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'email', message: 'must be an email address' }],
      });
      await expect(unary(client, 'GetContact', { workspace_id: ws, id: 'nope' })).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(unary(client, 'GetContact', { workspace_id: ws, id: newId() })).rejects.toMatchObject({ code: 'not_found' });
      await expect(unary(client, 'ListContacts', { workspace_id: ws, limit: 500 })).rejects.toMatchObject({ code: 'invalid_request' });
    });

    test('GetContacts answers each existing contact of the workspace as GetContact does, and nothing else', async () => {
      const mine = await people.contacts.create(ctx, { first_name: 'Batch', email: 'batch@example.com', tier: 'gold' });
      const theirs = await people.contacts.create({ workspaceId: otherWs }, { first_name: 'Elsewhere' });
      const one = await unary<unknown, Record<string, unknown>>(client, 'GetContact', { workspace_id: ws, id: mine.id });
      const many = await unary<unknown, { contacts: Record<string, unknown>[] }>(client, 'GetContacts', {
        workspace_id: ws,
        // Upper case, twice, another workspace's, unknown and not an id at all.
        ids: [String(mine.id).toUpperCase(), String(mine.id), String(theirs.id), newId(), 'nope'],
      });
      expect(many.contacts).toEqual([one]);
      await expect(unary(client, 'GetContacts', { workspace_id: ws, ids: Array.from({ length: 1_001 }, () => newId()) })).rejects.toMatchObject({
        code: 'invalid_request',
        details: { parameter: 'ids' },
      });
      expect(await unary(client, 'GetContacts', { workspace_id: ws, ids: [] })).toEqual({ contacts: [] });
    });
  });
});
