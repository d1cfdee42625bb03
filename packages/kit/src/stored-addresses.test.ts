import { newId } from './ids';
import { baseFields, defineResource } from './resource';
import type { SqlClient } from './sql';
import { type AddressProblem, addressFields, checkStoredAddresses } from './stored-addresses';
import { sampleContacts } from './testing/sample-resource';
import { sqlBackends } from './testing/sql-backends';

/** Two address fields, one of them always set, as a sent email has. */
const sends = defineResource({
  name: 'sends',
  singular: 'send',
  table: 'sends',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: false,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    to_email: { type: 'email', readOnly: true, nullable: false },
    from_email: { type: 'email', nullable: false },
    subject: { type: 'string' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});

const LONG_LOCAL = `${'a'.repeat(65)}@example.com`;

describe.each(sqlBackends())('stored addresses on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_addresses'));
    await db.exec(`
      CREATE TABLE contacts (id uuid PRIMARY KEY, workspace_id uuid NOT NULL, email text, first_name text);
      CREATE TABLE sends (id uuid PRIMARY KEY, workspace_id uuid NOT NULL, to_email text NOT NULL, from_email text NOT NULL, subject text);
    `);
  });

  afterAll(async () => {
    await drop?.();
  });

  test('every stored address the rule refuses is reported, across pages, and nothing is changed', async () => {
    const workspace = newId();
    const rows: [string, string | null][] = [];
    for (let i = 0; i < 25; i++) rows.push([newId(), `p${i}@example.com`]);
    const bad = { local: newId(), label: newId(), syntax: newId() };
    rows.push([bad.local, LONG_LOCAL], [bad.label, `ada@${'é'.repeat(32)}.com`], [bad.syntax, 'ada..lovelace@example.com'], [newId(), null]);
    for (const [id, email] of rows) await db.query('INSERT INTO contacts (id, workspace_id, email) VALUES ($1, $2, $3)', [id, workspace, email]);

    const found: AddressProblem[] = [];
    const read = await checkStoredAddresses(db, sampleContacts, (p) => found.push(p), 4);
    expect(read).toBe(28);
    expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { resource: 'contacts', id: bad.local, workspace_id: workspace, field: 'email', reason: 'local part must be at most 64 octets (UTF-8 bytes); it has 65' },
        { resource: 'contacts', id: bad.label, workspace_id: workspace, field: 'email', reason: 'each domain label must be at most 63 octets (UTF-8 bytes); one has 64' },
        { resource: 'contacts', id: bad.syntax, workspace_id: workspace, field: 'email', reason: 'must be an email address' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    const { rows: kept } = await db.query<{ email: string }>('SELECT email FROM contacts WHERE id = $1', [bad.local]);
    expect(kept).toEqual([{ email: LONG_LOCAL }]);
  });

  test('each address field of a row is named on its own', async () => {
    const id = newId();
    const workspace = newId();
    await db.query('INSERT INTO sends (id, workspace_id, to_email, from_email) VALUES ($1, $2, $3, $4)', [id, workspace, LONG_LOCAL, 'me@example']);
    await db.query('INSERT INTO sends (id, workspace_id, to_email, from_email) VALUES ($1, $2, $3, $4)', [newId(), workspace, 'ok@example.com', 'me@example.com']);
    expect(addressFields(sends)).toEqual(['to_email', 'from_email']);
    const found: AddressProblem[] = [];
    expect(await checkStoredAddresses(db, sends, (p) => found.push(p))).toBe(2);
    expect(found).toEqual([
      { resource: 'sends', id, workspace_id: workspace, field: 'to_email', reason: expect.stringMatching(/^local part/) },
      { resource: 'sends', id, workspace_id: workspace, field: 'from_email', reason: 'must be an email address' },
    ]);
  });
});
