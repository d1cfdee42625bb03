/**
 * Least privilege for data, against this machine's Postgres: infra/postgres/roles.sql creates a
 * migrate (DDL) role and an app (DML) role per service; `crm migrate` runs with the first (several
 * at once, as replicas' init containers do), the services run with the second and DB_MIGRATE=skip,
 * and the app role can change data but not the schema.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { TEST_DATABASE_URL, serviceAvailable, toolAvailable } from '@crm/kit/testing';
import { Client } from 'pg';
import { REPO_ROOT, runCrm } from '../support/processes';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const ROLES_SQL = path.join(REPO_ROOT, 'infra/postgres/roles.sql');
const havePsql =
  serviceAvailable('Postgres', TEST_DATABASE_URL) &&
  toolAvailable(
    'psql',
    (() => {
      try {
        require('node:child_process').execFileSync('psql', ['--version'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })(),
  );

const run = `roles_${randomBytes(3).toString('hex')}`;
const SERVICES = ['people', 'activities'] as const;
const schemaOf = (service: string) => `${run}_${service}`;
const migrateRole = (service: string) => `${run}_${service}_migrate`;
const appRole = (service: string) => `${run}_${service}_app`;
/** The test database as `role` (this machine's Postgres trusts local connections: no password). */
const urlAs = (role: string) => {
  const url = new URL(TEST_DATABASE_URL);
  url.username = role;
  url.password = '';
  return url.toString();
};

function psql(args: string[]): Promise<{ code: number; stderr: string }> {
  const url = new URL(TEST_DATABASE_URL);
  return new Promise((resolve) => {
    execFile(
      'psql',
      ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username), '-d', url.pathname.slice(1), ...args],
      { timeout: 30_000 },
      (error, _stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

async function asRole<T>(role: string, schema: string, fn: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: urlAs(role), options: `-c search_path=${schema}` });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

const sqlState = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

(havePsql ? describe : describe.skip)('migrate role and app role (infra/postgres/roles.sql)', () => {
  let stack: Stack | undefined;

  beforeAll(async () => {
    for (const service of SERVICES) {
      // Twice: the script is idempotent.
      for (let i = 0; i < 2; i++) {
        const result = await psql(['-v', `schema=${schemaOf(service)}`, '-v', `migrate_role=${migrateRole(service)}`, '-v', `app_role=${appRole(service)}`, '-f', ROLES_SQL]);
        expect([service, result.code, result.stderr]).toEqual([service, 0, '']);
      }
    }
  });

  afterAll(async () => {
    await stack?.stop();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      for (const service of SERVICES) {
        await admin.query(`DROP SCHEMA IF EXISTS ${schemaOf(service)} CASCADE`);
        for (const role of [migrateRole(service), appRole(service)]) {
          await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
          await admin.query(`DROP ROLE IF EXISTS ${role}`);
        }
      }
    } finally {
      await admin.end();
    }
  });

  const appEnv = (service: string) => ({ DATABASE_URL: urlAs(appRole(service)), DB_SCHEMA: schemaOf(service), DB_MIGRATE: 'skip' });

  test('a service with DB_MIGRATE=skip refuses to start on a schema that is not migrated, and says what to do', async () => {
    const result = await runCrm(['start', 'people'], {
      ...appEnv('people'),
      CURSOR_SECRET: randomBytes(32).toString('base64'),
      GRPC_ADDR: '127.0.0.1:0',
      NATS_URL: '',
      LOG_LEVEL: 'silent',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/not at the latest migration \(missing: 001_outbox, .*\).*crm migrate/);
  });

  test('the app role cannot migrate', async () => {
    const result = await runCrm(['migrate', 'people'], { DATABASE_URL: urlAs(appRole('people')), DB_SCHEMA: schemaOf('people'), LOG_LEVEL: 'silent' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/permission denied/);
  });

  test('several `crm migrate` at once with the migrate role apply each migration exactly once', async () => {
    for (const service of SERVICES) {
      const env = { DATABASE_URL: urlAs(migrateRole(service)), DB_SCHEMA: schemaOf(service), LOG_LEVEL: 'silent' };
      const results = await Promise.all([1, 2, 3].map(() => runCrm(['migrate', service], env)));
      for (const r of results) expect([service, r.code, r.stderr]).toEqual([service, 0, '']);
      const applied = results.flatMap((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
      const { rows } = await asRole(migrateRole(service), schemaOf(service), (db) => db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id'));
      expect(applied.sort()).toEqual(rows.map((r) => r.id));
      expect(rows.length).toBeGreaterThan(3);
    }
  });

  test('the services run with the app role: the API reads and writes', async () => {
    stack = await startStack({ componentEnv: Object.fromEntries(SERVICES.map((s) => [s, appEnv(s)])) });
    const { key } = await stack.workspaceWithKey(`roles-${run}`, '*');
    const contact = await stack.api('POST', '/v1/contacts', { key, body: { first_name: 'Least', email: `least-${run}@example.com` } });
    expect(contact.status).toBe(201);
    expect((await stack.api('PATCH', `/v1/contacts/${contact.body.data.id}`, { key, body: { last_name: 'Privilege' } })).status).toBe(200);
    expect((await stack.api('GET', `/v1/contacts/${contact.body.data.id}`, { key })).body.data.last_name).toBe('Privilege');
    const task = await stack.api('POST', '/v1/tasks', { key, body: { title: 'Rotate the migrate password' } });
    expect(task.status).toBe(201);
    expect((await stack.api('DELETE', `/v1/tasks/${task.body.data.id}`, { key })).status).toBe(204);
    // The rows are in the schemas the migrate role owns.
    const { rows } = await asRole(appRole('people'), schemaOf('people'), (db) => db.query('SELECT count(*)::int AS n FROM contacts'));
    expect(rows[0].n).toBe(1);
  });

  test('the app role can neither alter nor create in its schema, nor create a schema; the migrate role can', async () => {
    const schema = schemaOf('people');
    const denied = '42501'; // insufficient_privilege
    await asRole(appRole('people'), schema, async (db) => {
      expect(await sqlState(db.query('ALTER TABLE contacts ADD COLUMN intruder int'))).toBe(denied);
      expect(await sqlState(db.query('CREATE TABLE intruder (id int)'))).toBe(denied);
      expect(await sqlState(db.query('CREATE INDEX intruder ON contacts (workspace_id)'))).toBe(denied);
      expect(await sqlState(db.query('DROP TABLE contacts'))).toBe(denied);
      expect(await sqlState(db.query('TRUNCATE contacts'))).toBe(denied);
      expect(await sqlState(db.query(`CREATE SCHEMA ${run}_intruder`))).toBe(denied);
      expect(await sqlState(db.query('CREATE TABLE public.intruder (id int)'))).toBe(denied);
      // and it cannot reach into another service's schema
      expect(await sqlState(db.query(`SELECT 1 FROM ${schemaOf('activities')}.tasks LIMIT 1`))).toBe(denied);
      expect(await sqlState(db.query('SELECT count(*) FROM contacts'))).toBe('ok');
    });
    await asRole(migrateRole('people'), schema, async (db) => {
      await db.query('BEGIN');
      expect(await sqlState(db.query('ALTER TABLE contacts ADD COLUMN probe int'))).toBe('ok');
      expect(await sqlState(db.query('CREATE TABLE probe (id int)'))).toBe('ok');
      await db.query('ROLLBACK');
    });
  });
});
