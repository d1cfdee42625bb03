import {
  type ApiRecord,
  type CrmEvent,
  type CursorCodec,
  type FieldIssue,
  type ResourceStore,
  type SqlClient,
  type SqlQueryable,
  type TransactionRunner,
  type WriteContext,
  CrmError,
  createResourceStore,
  isUuid,
  newEvent,
  newId,
  rowToRecord,
  selectColumns,
  validateWrite,
} from '@crm/kit';
import { PeopleError, PeopleErrorCode, parsePoolMembersBody, poolContacts, pools } from '@crm/people-contract';
import { PeopleEvents } from '@crm/proto';

/**
 * Pool memberships and the pool's `contacts_count`, kept exact in the transaction of every change.
 *
 * Lock order, the same on every path, so membership changes never deadlock with each other or with
 * deletions: contacts (FOR KEY SHARE, in id order) → the pool row (FOR NO KEY UPDATE) → membership
 * rows. Holding the pool row serialises all membership changes of one pool, so the count's relative
 * updates never lose one, and the KEY SHARE locks keep a contact from being deleted while it is
 * being added (its deletion waits, then removes the new membership too). Deleting a contact locks
 * its pools after the contact row and before its memberships (see removeContactMemberships).
 */
export interface AddMembersResult {
  added: string[];
  already_members: string[];
  not_found: string[];
  contacts_count: number;
}

export interface RemoveMembersResult {
  removed: string[];
  not_members: string[];
  not_found: string[];
  contacts_count: number;
}

export interface PoolMembers {
  add(ctx: WriteContext, poolId: string, contactIds: readonly string[]): Promise<AddMembersResult>;
  remove(ctx: WriteContext, poolId: string, contactIds: readonly string[]): Promise<RemoveMembersResult>;
}

export interface PoolMembersDeps {
  db: SqlClient;
  cursors: CursorCodec;
  tx: TransactionRunner;
}

const COLUMNS = selectColumns(poolContacts);

/** The existing contacts among `ids`, locked against deletion until the transaction ends. */
async function lockContacts(tx: SqlQueryable, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM contacts WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[]) ORDER BY id FOR KEY SHARE`,
    [workspaceId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

async function lockPool(tx: SqlQueryable, workspaceId: string, poolId: string): Promise<boolean> {
  const { rows } = await tx.query(`SELECT id FROM pools WHERE workspace_id = $1::uuid AND id = $2::uuid FOR NO KEY UPDATE`, [
    workspaceId,
    poolId,
  ]);
  return rows.length === 1;
}

/** Moves the (locked) pool's count by `delta`; a changed count is a change of the pool record. */
async function adjustCount(tx: SqlQueryable, workspaceId: string, poolId: string, delta: number, at: string): Promise<number> {
  const { rows } = await tx.query<{ contacts_count: number }>(
    delta === 0
      ? `SELECT contacts_count FROM pools WHERE workspace_id = $1::uuid AND id = $2::uuid`
      : `UPDATE pools SET contacts_count = contacts_count + $3::int, updated_at = $4::timestamptz
          WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING contacts_count`,
    delta === 0 ? [workspaceId, poolId] : [workspaceId, poolId, delta, at],
  );
  return rows[0]!.contacts_count;
}

function actor(ctx: WriteContext): string | null {
  if (!ctx.actorUserId) return null;
  if (!isUuid(ctx.actorUserId)) throw CrmError.invalid('actor_user_id must be a UUID', { parameter: 'actor_user_id' });
  return ctx.actorUserId.toLowerCase();
}

/** The bulk members rule of the contract, the one the gateway applies to the HTTP body. */
const checkIds = (contactIds: readonly string[]): string[] => parsePoolMembersBody({ contact_ids: contactIds });

/**
 * Removes every membership of a contact being deleted, in the deletion's transaction, and fixes the
 * counts of its pools. Each removed membership publishes `pool_contact.deleted` with
 * `cause: contact_deleted`.
 */
export async function removeContactMemberships(tx: SqlQueryable, ctx: WriteContext, contactId: string): Promise<CrmEvent[]> {
  const { rows: poolRows } = await tx.query<{ id: string }>(
    `SELECT id FROM pools
      WHERE workspace_id = $2::uuid
        AND id IN (SELECT pool_id FROM pool_contacts WHERE workspace_id = $2::uuid AND contact_id = $1::uuid)
      ORDER BY id FOR NO KEY UPDATE`,
    [contactId, ctx.workspaceId],
  );
  if (poolRows.length === 0) return [];
  const { rows: removed } = await tx.query<{ id: string; pool_id: string; svc_uid: string | null }>(
    `DELETE FROM pool_contacts WHERE contact_id = $1::uuid AND workspace_id = $2::uuid RETURNING id, pool_id, svc_uid`,
    [contactId, ctx.workspaceId],
  );
  if (removed.length === 0) return [];
  await tx.query(
    `UPDATE pools SET contacts_count = pools.contacts_count - gone.n, updated_at = $2::timestamptz
       FROM (SELECT pool_id, count(*)::int AS n FROM unnest($1::uuid[]) AS pool_id GROUP BY pool_id) AS gone
      WHERE pools.workspace_id = $3::uuid AND pools.id = gone.pool_id`,
    [removed.map((r) => r.pool_id), new Date().toISOString(), ctx.workspaceId],
  );
  return removed.map((r) =>
    newEvent(PeopleEvents.PoolContactDeleted, ctx.workspaceId, {
      id: r.id,
      pool_id: r.pool_id,
      contact_id: contactId,
      svc_uid: r.svc_uid,
      cause: 'contact_deleted',
    }),
  );
}

/**
 * The pool_contacts resource: listed and read by the generic store, created and deleted here (they
 * move the pool's count), never updated.
 */
export function createPoolContactsStore({ db, cursors, tx }: PoolMembersDeps): ResourceStore {
  // Reads only: creates and deletes below publish their own events.
  const generic = createResourceStore({ db, spec: poolContacts, cursors });
  return {
    spec: poolContacts,
    list: (workspaceId, query) => generic.list(workspaceId, query),
    get: (workspaceId, id) => generic.get(workspaceId, id),

    async create(ctx, body) {
      const values = validateWrite(poolContacts, body, 'create');
      const poolId = values.fields.pool_id as string;
      const contactId = values.fields.contact_id as string;
      const addedBy = actor(ctx);
      return tx.run(poolContacts, ctx.workspaceId, async (q) => {
        const contactExists = (await lockContacts(q, ctx.workspaceId, [contactId])).has(contactId);
        const poolExists = await lockPool(q, ctx.workspaceId, poolId);
        const issues: FieldIssue[] = [];
        if (!poolExists) issues.push({ field: 'pool_id', message: 'no pool with this id in the workspace' });
        if (!contactExists) issues.push({ field: 'contact_id', message: 'no contact with this id in the workspace' });
        if (issues.length) throw new PeopleError(PeopleErrorCode.UnknownReference, CrmError.validation(issues).message, issues);
        const id = newId();
        const now = new Date().toISOString();
        const { rows } = await q.query(
          `INSERT INTO pool_contacts (id, workspace_id, svc_uid, pool_id, contact_id, added_by, added_at, custom, created_at, updated_at)
           VALUES ($1::uuid, $2::uuid, $3::text, $4::uuid, $5::uuid, $6::uuid, $7::timestamptz, $8::jsonb, $7::timestamptz, $7::timestamptz)
           ON CONFLICT (workspace_id, pool_id, contact_id) DO NOTHING
           RETURNING ${COLUMNS}`,
          [id, ctx.workspaceId, values.fields.svc_uid ?? null, poolId, contactId, addedBy, now, JSON.stringify(values.customSet)],
        );
        if (!rows[0]) {
          throw new PeopleError(PeopleErrorCode.AlreadyMember, 'this contact is already a member of the pool', { field: 'contact_id' });
        }
        await adjustCount(q, ctx.workspaceId, poolId, 1, now);
        const created = rowToRecord(poolContacts, rows[0]);
        return {
          value: created,
          events: [newEvent(PeopleEvents.PoolContactCreated, ctx.workspaceId, { id, pool_id: poolId, contact_id: contactId, added_by: addedBy })],
        };
      });
    },

    async update() {
      throw new PeopleError(
        PeopleErrorCode.MembershipImmutable,
        'pool memberships cannot be changed: delete the membership and create another',
      );
    },

    async delete(ctx, id) {
      await tx.run(poolContacts, ctx.workspaceId, async (q) => {
        const { rows: found } = await q.query<{ pool_id: string }>(
          `SELECT pool_id FROM pool_contacts WHERE workspace_id = $1::uuid AND id = $2::uuid`,
          [ctx.workspaceId, id],
        );
        if (!found[0]) throw CrmError.notFound(poolContacts.singular);
        await lockPool(q, ctx.workspaceId, found[0].pool_id);
        const { rows } = await q.query<ApiRecord>(
          `DELETE FROM pool_contacts WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING ${COLUMNS}`,
          [ctx.workspaceId, id],
        );
        // Gone meanwhile: removed in bulk, or with its pool or contact.
        if (!rows[0]) throw CrmError.notFound(poolContacts.singular);
        const record = rowToRecord(poolContacts, rows[0]);
        await adjustCount(q, ctx.workspaceId, String(record.pool_id), -1, new Date().toISOString());
        const data = {
          id,
          pool_id: String(record.pool_id),
          contact_id: String(record.contact_id),
          svc_uid: (record.svc_uid as string | null) ?? null,
          cause: 'removed',
        };
        return { value: undefined, events: [newEvent(PeopleEvents.PoolContactDeleted, ctx.workspaceId, data)] };
      });
    },
  };
}

/** `POST` and `DELETE /v1/pools/{id}/members`: up to 500 contacts in one transaction, one event. */
export function createPoolMembers({ tx }: Pick<PoolMembersDeps, 'tx'>): PoolMembers {
  return {
    async add(ctx, poolId, contactIds) {
      const ids = checkIds(contactIds);
      const addedBy = actor(ctx);
      return tx.run(pools, ctx.workspaceId, async (q) => {
        const existing = await lockContacts(q, ctx.workspaceId, ids);
        if (!(await lockPool(q, ctx.workspaceId, poolId))) throw CrmError.notFound(pools.singular);
        const candidates = ids.filter((id) => existing.has(id)).sort();
        const now = new Date().toISOString();
        let added = new Set<string>();
        if (candidates.length) {
          // In contact order, like the locks above: two calls on one pool are serialised by the pool
          // row anyway, and this keeps the insert order independent of the request's.
          const { rows } = await q.query<{ contact_id: string }>(
            `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_by, added_at, created_at, updated_at)
             SELECT m.id, $1::uuid, $2::uuid, m.contact_id, $3::uuid, $4::timestamptz, $4::timestamptz, $4::timestamptz
               FROM unnest($5::uuid[], $6::uuid[]) AS m(id, contact_id)
              ORDER BY m.contact_id
             ON CONFLICT (workspace_id, pool_id, contact_id) DO NOTHING
             RETURNING contact_id`,
            [ctx.workspaceId, poolId, addedBy, now, candidates.map(() => newId()), candidates],
          );
          added = new Set(rows.map((r) => r.contact_id));
        }
        const count = await adjustCount(q, ctx.workspaceId, poolId, added.size, now);
        const result: AddMembersResult = {
          added: ids.filter((id) => added.has(id)),
          already_members: ids.filter((id) => existing.has(id) && !added.has(id)),
          not_found: ids.filter((id) => !existing.has(id)),
          contacts_count: count,
        };
        const events = result.added.length
          ? [
              newEvent(PeopleEvents.PoolMembersAdded, ctx.workspaceId, {
                id: poolId,
                contact_ids: result.added,
                added_by: addedBy,
                contacts_count: count,
              }),
            ]
          : [];
        return { value: result, events };
      });
    },

    async remove(ctx, poolId, contactIds) {
      const ids = checkIds(contactIds);
      return tx.run(pools, ctx.workspaceId, async (q) => {
        if (!(await lockPool(q, ctx.workspaceId, poolId))) throw CrmError.notFound(pools.singular);
        const { rows: removedRows } = await q.query<{ contact_id: string }>(
          `DELETE FROM pool_contacts WHERE pool_id = $1::uuid AND workspace_id = $2::uuid AND contact_id = ANY($3::uuid[])
           RETURNING contact_id`,
          [poolId, ctx.workspaceId, ids],
        );
        const removed = new Set(removedRows.map((r) => r.contact_id));
        const { rows: contactRows } = await q.query<{ id: string }>(
          `SELECT id FROM contacts WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])`,
          [ctx.workspaceId, ids.filter((id) => !removed.has(id))],
        );
        const existing = new Set(contactRows.map((r) => r.id));
        const count = await adjustCount(q, ctx.workspaceId, poolId, -removed.size, new Date().toISOString());
        const result: RemoveMembersResult = {
          removed: ids.filter((id) => removed.has(id)),
          not_members: ids.filter((id) => existing.has(id)),
          not_found: ids.filter((id) => !removed.has(id) && !existing.has(id)),
          contacts_count: count,
        };
        const events = result.removed.length
          ? [newEvent(PeopleEvents.PoolMembersRemoved, ctx.workspaceId, { id: poolId, contact_ids: result.removed, contacts_count: count })]
          : [];
        return { value: result, events };
      });
    },
  };
}
