import { baseFields, defineResource } from '../resource';
import { type SqlClient, createPgliteClient } from '../sql';
import { tableProblems } from './parity';

/** Memberships filtered by the owner they belong to: the filter whose index the rule is about. */
const memberships = defineResource({
  name: 'memberships',
  singular: 'membership',
  table: 'memberships',
  timeField: 'added_at',
  maxLimit: 100,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    owner_id: { type: 'uuid', filter: true, required: true },
    added_at: { type: 'datetime', readOnly: true, sort: true },
    created_at: baseFields.created_at,
    updated_at: baseFields.updated_at,
  },
});

const FILTER_PROBLEM = 'memberships: table memberships has no index (workspace_id, owner_id, added_at, id) for filter owner_id';

describe('parity of a filter with its index', () => {
  let db: SqlClient;
  const query = async <R>(text: string, params?: unknown[]) => (await db.query<R>(text, params)).rows;

  beforeAll(async () => {
    db = await createPgliteClient({ schema: 'parity_rule' });
  }, 30_000);
  afterAll(() => db.close());

  /** The memberships table with `owner` as owner_id's foreign key (or none) and `indexes`. */
  async function problemsWith(owner: string, indexes: string): Promise<string[]> {
    await db.exec(`
      DROP TABLE IF EXISTS memberships; DROP TABLE IF EXISTS owners; DROP TABLE IF EXISTS tenant_owners;
      CREATE TABLE owners (id uuid PRIMARY KEY);
      CREATE TABLE tenant_owners (workspace_id uuid, id uuid, PRIMARY KEY (workspace_id, id));
      CREATE TABLE memberships (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        owner_id uuid NOT NULL ${owner},
        added_at timestamptz(3) NOT NULL
      );
      CREATE INDEX memberships_added_at_idx ON memberships (workspace_id, added_at, id);
      ${indexes}
    `);
    return (await tableProblems(query, memberships, [])).filter((problem) => problem.includes('owner_id'));
  }

  test('an index led by the workspace serves any filter', async () => {
    const index = 'CREATE INDEX m_owner ON memberships (workspace_id, owner_id, added_at, id)';
    expect(await problemsWith('', index)).toEqual([]);
    expect(await problemsWith('REFERENCES owners (id)', index)).toEqual([]);
  });

  test('an index led by the filter does not serve it, whatever the column references', async () => {
    // Tables are distributed by workspace (packages/kit/README.md, "Tenancy in every key"): a seek
    // names the workspace first, whatever the filter's column refers to.
    const index = 'CREATE INDEX m_owner ON memberships (owner_id, added_at, id)';
    expect(await problemsWith('', index)).toEqual([FILTER_PROBLEM]);
    expect(await problemsWith('REFERENCES owners (id)', index)).toEqual([FILTER_PROBLEM]);
    const composite = `ALTER TABLE memberships ADD CONSTRAINT m_owner_tenant FOREIGN KEY (workspace_id, owner_id) REFERENCES tenant_owners (workspace_id, id);
       ${index}`;
    expect(await problemsWith('', composite)).toEqual([FILTER_PROBLEM]);
  });

  test('after the workspace, the index goes on with the filter, then the time field', async () => {
    expect(await problemsWith('', 'CREATE INDEX m_owner ON memberships (workspace_id, owner_id, id)')).toEqual([FILTER_PROBLEM]);
  });
});
