/**
 * `crm check addresses`, run as an operator runs it: the built command over the stores an
 * installation keeps. Rows that break the address rule (kit's email-address.ts) are written
 * directly, as an earlier release could have stored them; the command reports each one as a JSON
 * line, changes nothing, and exits 1 (0 when none, 2 when it cannot run). Once over an all-in-one's
 * embedded stores under CRM_DATA_DIR, once over this machine's Postgres in a context's own schema.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { activitiesApi } from '@crm/activities-contract';
import { createEmbeddedStore } from '@crm/directory';
import { directoryApi } from '@crm/directory-contract';
import { flowsApi } from '@crm/flows-contract';
import { type SqlClient, addressFields, createPgClient, createPgliteClient, newId, runMigrations } from '@crm/kit';
import { TEST_DATABASE_URL, serviceAvailable } from '@crm/kit/testing';
import { messagingApi } from '@crm/messaging-contract';
import { peopleApi } from '@crm/people-contract';
import { Client } from 'pg';
import { SERVICE_COMPONENTS } from '../../packages/cli/src/components';
import { runCrm } from '../support/processes';

jest.setTimeout(120_000);

const LOCAL_65 = `${'a'.repeat(65)}@example.com`;
const LOCAL_65_REASON = 'local part must be at most 64 octets (UTF-8 bytes); it has 65';
const LABEL_64 = `ada@${'é'.repeat(32)}.com`;
const LABEL_64_REASON = 'each domain label must be at most 63 octets (UTF-8 bytes); one has 64';
const T = '2020-01-01T00:00:00.000Z';

const lines = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);
const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

const insertContact = (db: SqlClient, workspaceId: string, email: string) => {
  const id = newId();
  return db.query('INSERT INTO contacts (id, workspace_id, email, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [id, workspaceId, email, T]).then(() => id);
};
const insertSend = (db: SqlClient, workspaceId: string, to: string, from: string) => {
  const id = newId();
  return db
    .query(
      `INSERT INTO sent_emails (workspace_id, id, contact_id, status, subject, body, to_email, from_email, message_id, created_at, updated_at)
       VALUES ($1, $2, $3, 'queued', 'Hi', '<p>Hi</p>', $4, $5, $6, $7, $7)`,
      [workspaceId, id, newId(), to, from, `<${id}@mail.example.com>`, T],
    )
    .then(() => id);
};

test('every context whose declarations hold an address is read by the check', () => {
  // The directory's users are read by the directory's own reader (documents, not tables).
  const checked = new Set(SERVICE_COMPONENTS.flatMap((c) => c.database?.resources ?? []));
  for (const api of [peopleApi, messagingApi, activitiesApi, flowsApi]) {
    for (const { spec } of api.routes) {
      if (addressFields(spec).length) expect([api.name, spec.name, checked.has(spec)]).toEqual([api.name, spec.name, true]);
    }
  }
  expect(directoryApi.routes.filter(({ spec }) => addressFields(spec).length).map(({ spec }) => spec.name)).toEqual(['users']);
});

describe('all-in-one: the embedded stores under CRM_DATA_DIR', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crm-check-'));
    env = { CRM_DATA_DIR: dataDir, DATABASE_URL: '', MONGO_URL: '', LOG_LEVEL: 'warn' };
    // What `crm migrate` does for the contexts that keep addresses, in this process: the command
    // takes longer than runCrm waits when it starts PGlite for every context.
    for (const name of ['people', 'messaging']) {
      await withSchema(name, async (db) => void (await runMigrations(db, SERVICE_COMPONENTS.find((c) => c.name === name)!.database!.migrations)));
    }
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A PGlite of the data folder, as the all-in-one opens it; closed before the command runs. */
  async function withSchema(name: string, fn: (db: SqlClient) => Promise<void>): Promise<void> {
    const db = await createPgliteClient({ dataDir: path.join(dataDir, name), schema: name });
    try {
      await fn(db);
    } finally {
      await db.close();
    }
  }

  test('reports each offending row once, with its context, and changes nothing', async () => {
    const workspaceId = newId();
    const ids = { contact: '', labelContact: '', send: '', user: newId(), integration: newId() };
    const user = (id: string, email: string) => ({
      _id: id,
      workspace_id: workspaceId,
      email,
      email_lower: email.toLowerCase(),
      full_name: 'Old',
      role: 'member',
      is_active: true,
      svc_uid: null,
      created_at: T,
      updated_at: T,
    });
    await withSchema('people', (db) => insertContact(db, workspaceId, 'ada@example.com').then(() => undefined));
    await withSchema('messaging', (db) => insertSend(db, workspaceId, 'ada@example.com', 'me@example.com').then(() => undefined));
    const directory = path.join(dataDir, 'directory');
    let store = await createEmbeddedStore({ dataDir: directory });
    await store.collection('users').insertOne(user(newId(), 'grace@example.com'));
    await store.close();
    const clean = await runCrm(['check', 'addresses'], env);
    expect([clean.code, clean.stdout]).toEqual([0, '']);
    expect(clean.stderr).toMatch(/no address breaks the address rule \(people 0, messaging 0, directory 0\), in 3 records read/);

    await withSchema('people', async (db) => {
      ids.contact = await insertContact(db, workspaceId, LOCAL_65);
      ids.labelContact = await insertContact(db, workspaceId, LABEL_64);
    });
    await withSchema('messaging', async (db) => {
      ids.send = await insertSend(db, workspaceId, LOCAL_65, 'me@example.com');
    });
    store = await createEmbeddedStore({ dataDir: directory });
    await store.collection('users').insertOne(user(ids.user, LOCAL_65));
    await store.collection('integrations').insertOne({
      _id: ids.integration,
      workspace_id: workspaceId,
      type: 'smtp',
      name: 'Mail',
      status: 'connected',
      enabled: true,
      svc_uid: null,
      secret: { v: 1, iv: '', tag: '', ct: '' },
      config: { host: 'smtp.example.com', from_email: LABEL_64 },
      created_at: T,
      updated_at: T,
    });
    await store.close();

    const result = await runCrm(['check', 'addresses'], env);
    expect(result.code).toBe(1);
    expect(lines(result.stdout).sort(byId)).toEqual(
      [
        { context: 'people', resource: 'contacts', id: ids.contact, workspace_id: workspaceId, field: 'email', reason: LOCAL_65_REASON },
        { context: 'people', resource: 'contacts', id: ids.labelContact, workspace_id: workspaceId, field: 'email', reason: LABEL_64_REASON },
        { context: 'messaging', resource: 'sent_emails', id: ids.send, workspace_id: workspaceId, field: 'to_email', reason: LOCAL_65_REASON },
        { context: 'directory', resource: 'users', id: ids.user, workspace_id: workspaceId, field: 'email', reason: LOCAL_65_REASON },
        { context: 'directory', resource: 'integrations', id: ids.integration, workspace_id: workspaceId, field: 'config.from_email', reason: LABEL_64_REASON },
      ].sort(byId),
    );
    expect(result.stderr).toMatch(/5 addresses break the address rule \(people 2, messaging 1, directory 2\), in 8 records read; nothing was changed/);

    // Reported, never changed: the same rows are found again.
    await withSchema('people', async (db) => {
      expect((await db.query('SELECT email FROM contacts WHERE id = $1', [ids.contact])).rows).toEqual([{ email: LOCAL_65 }]);
    });
    const again = await runCrm(['check', 'addresses', 'people'], env);
    expect([again.code, lines(again.stdout).map((l) => l.id).sort()]).toEqual([1, [ids.contact, ids.labelContact].sort()]);
  });

  test('refuses to read the embedded stores of a running all-in-one, or stores that are not there', async () => {
    // This test's own process stands for the running all-in-one: the record names a live pid.
    writeFileSync(path.join(dataDir, 'all-in-one.json'), JSON.stringify({ pid: process.pid, api: 'http://127.0.0.1:1', directory: '127.0.0.1:1' }));
    try {
      const running = await runCrm(['check', 'addresses'], env);
      expect([running.code, running.stdout]).toEqual([2, '']);
      expect(running.stderr).toMatch(new RegExp(`an all-in-one \\(pid ${process.pid}\\) runs on .* stop it first`));
    } finally {
      rmSync(path.join(dataDir, 'all-in-one.json'), { force: true });
    }
    const empty = mkdtempSync(path.join(tmpdir(), 'crm-check-empty-'));
    try {
      const missing = await runCrm(['check', 'addresses'], { ...env, CRM_DATA_DIR: empty });
      expect([missing.code, missing.stdout]).toEqual([2, '']);
      expect(missing.stderr).toMatch(/no embedded store at .*people/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const unknown = await runCrm(['check', 'addresses', 'flows'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/"flows" keeps no email addresses/);
  });
});

const usePostgres = serviceAvailable('Postgres', TEST_DATABASE_URL);

(usePostgres ? describe : describe.skip)('a context on Postgres (DATABASE_URL and DB_SCHEMA)', () => {
  const schema = `t_check_${randomBytes(4).toString('hex')}_people`;
  let db: SqlClient;

  beforeAll(async () => {
    db = await createPgClient({ url: TEST_DATABASE_URL, schema, max: 2 });
    const people = SERVICE_COMPONENTS.find((c) => c.name === 'people')!;
    await runMigrations(db, people.database!.migrations);
  });

  afterAll(async () => {
    await db?.close();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  test('reads the schema DB_SCHEMA names, and exits 0 once nothing breaks the rule', async () => {
    const env = { DATABASE_URL: TEST_DATABASE_URL, DB_SCHEMA: schema, LOG_LEVEL: 'warn' };
    const workspaceId = newId();
    await insertContact(db, workspaceId, 'grace@example.com');
    expect(await runCrm(['check', 'addresses', 'people'], env)).toMatchObject({ code: 0, stdout: '' });

    const id = await insertContact(db, workspaceId, LOCAL_65);
    const found = await runCrm(['check', 'addresses', 'people'], env);
    expect(found.code).toBe(1);
    expect(lines(found.stdout)).toEqual([{ context: 'people', resource: 'contacts', id, workspace_id: workspaceId, field: 'email', reason: LOCAL_65_REASON }]);

    const wrongSchema = await runCrm(['check', 'addresses', 'people'], { ...env, DB_SCHEMA: `${schema}_none` });
    expect(wrongSchema.code).toBe(2);
    expect(wrongSchema.stderr).toMatch(/people: no table contacts in schema/);
  });
});
