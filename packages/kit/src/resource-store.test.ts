import { PeopleEvents } from '@crm/proto';
import fc from 'fast-check';
import { createCursorCodec } from './cursor';
import { CrmError } from './errors';
import { OUTBOX_MIGRATION_SQL } from './events/outbox';
import { newId } from './ids';
import { createResourceStore } from './resource-store';
import type { SqlClient } from './sql';
import { sampleContacts } from './testing/sample-resource';
import { sqlBackends } from './testing/sql-backends';

/**
 * `insertMany`, the one-statement form of many creates: each record must come out exactly as its
 * own `create` would write it (validation, system fields, column defaults, custom properties) with
 * the same events, and a batch with one bad write writes nothing.
 */
describe.each(sqlBackends())('resource store insertMany on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const workspaceId = newId();
  const ctx = { workspaceId };
  const store = () =>
    createResourceStore({
      db,
      spec: sampleContacts,
      cursors: createCursorCodec('s'.repeat(32)),
      subjects: { created: PeopleEvents.ContactCreated, updated: PeopleEvents.ContactUpdated, deleted: PeopleEvents.ContactDeleted },
    });

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_store_many'));
    await db.exec(OUTBOX_MIGRATION_SQL);
    // `country` has a column default: a write that leaves it out must get it both ways.
    await db.exec(`CREATE TABLE contacts (
      workspace_id uuid NOT NULL, id uuid NOT NULL, svc_uid text, first_name text, last_name text, email text, owner_id uuid,
      country text DEFAULT 'ZZ', last_engagement_at timestamptz(3), created_at timestamptz(3) NOT NULL, updated_at timestamptz(3) NOT NULL,
      custom jsonb NOT NULL DEFAULT '{}', PRIMARY KEY (workspace_id, id))`);
  });
  afterAll(async () => drop());

  const body = fc.record(
    {
      first_name: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
      last_name: fc.string({ maxLength: 12 }),
      email: fc.constantFrom('a@example.com', 'B@Example.org'),
      country: fc.constantFrom('US', 'DE'),
      owner_id: fc.uuid(),
      tier: fc.constantFrom('gold', 'silver'),
      score: fc.integer({ min: 0, max: 100 }),
    },
    { requiredKeys: [] },
  );
  const withoutOwnIdentity = (record: Record<string, unknown>) => {
    const { id: _id, created_at: _c, updated_at: _u, ...rest } = record;
    return rest;
  };

  test('each record comes out as its own create would write it, with the same events, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 8 }), fc.option(fc.constantFrom('Sys', null), { nil: undefined }), async (bodies, system) => {
        const s = store();
        const systemFields = system === undefined ? undefined : { last_name: system };
        const one = await Promise.all(bodies.map((b) => s.create(ctx, b, systemFields ? { systemFields } : {})));
        const ids = bodies.map(() => newId());
        const { records, events } = await db.transaction((tx) =>
          s.insertMany(
            tx,
            bodies.map((b, i) => ({ ctx, body: b, id: ids[i]!, ...(systemFields ? { systemFields } : {}) })),
          ),
        );
        expect(records.map((r) => r.id)).toEqual(ids);
        expect(records.map(withoutOwnIdentity)).toEqual(one.map(withoutOwnIdentity));
        expect(events.map((e) => [e.type, e.workspace_id, e.data])).toEqual(ids.map((id) => [PeopleEvents.ContactCreated, workspaceId, { id }]));
        for (const record of records) expect(await s.get(workspaceId, String(record.id))).toEqual(record);
      }),
      { numRuns: backend.name === 'postgres' ? 40 : 15 },
    );
  });

  test('one bad write fails the whole batch, and nothing is written', async () => {
    const s = store();
    const ids = [newId(), newId()];
    await expect(
      db.transaction((tx) =>
        s.insertMany(tx, [
          { ctx, body: { first_name: 'Fine' }, id: ids[0]! },
          { ctx, body: { email: 'not an address' }, id: ids[1]! },
        ]),
      ),
    ).rejects.toBeInstanceOf(CrmError);
    const { rows } = await db.query(`SELECT id FROM contacts WHERE workspace_id = $1 AND id = ANY($2::uuid[])`, [workspaceId, ids]);
    expect(rows).toEqual([]);
    await expect(db.transaction((tx) => s.insertMany(tx, []))).resolves.toEqual({ records: [], events: [] });
    // A system field the resource does not declare writable is a programming error, not a 422.
    await expect(db.transaction((tx) => s.insertMany(tx, [{ ctx, body: {}, id: newId(), systemFields: { created_at: new Date() } }]))).rejects.toThrow(
      /not a writable declared field/,
    );
  });
});
