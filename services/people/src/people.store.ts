import {
  type CrmEvent,
  type CursorCodec,
  type FieldValue,
  type PendingWrite,
  type ResourceStore,
  type SqlClient,
  type SqlQueryable,
  type WriteContext,
  CrmError,
  createResourceStore,
  newEvent,
} from '@crm/kit';
import { contacts, organizations, pools } from '@crm/people-contract';
import { PeopleEvents } from '@crm/proto';
import { removeContactMemberships } from './pool-members.store';

export interface StoreDeps {
  db: SqlClient;
  cursors: CursorCodec;
  afterCommit?: () => void;
}

/**
 * A contact's organization must exist in its workspace (422 naming organization_id otherwise). The
 * organization row is locked against deletion until the write commits; the deferred foreign key
 * backs this up.
 */
async function checkOrganization({ fields, ctx, tx }: PendingWrite): Promise<Record<string, FieldValue> | void> {
  const organizationId = fields.organization_id;
  if (typeof organizationId !== 'string') return;
  const { rows } = await tx.query(`SELECT 1 FROM organizations WHERE workspace_id = $1::uuid AND id = $2::uuid FOR KEY SHARE`, [
    ctx.workspaceId,
    organizationId,
  ]);
  if (!rows.length) {
    throw CrmError.validation([{ field: 'organization_id', message: 'no organization with this id in the workspace' }]);
  }
}

/** Contacts: deleting one also removes its pool memberships and fixes those pools' counts. */
export function createContactsStore({ db, cursors, afterCommit }: StoreDeps): ResourceStore {
  return createResourceStore({
    db,
    spec: contacts,
    subjects: { created: PeopleEvents.ContactCreated, updated: PeopleEvents.ContactUpdated, deleted: PeopleEvents.ContactDeleted },
    cursors,
    afterCommit,
    beforeWrite: checkOrganization,
    onDelete: (tx, ctx, record) => removeContactMemberships(tx, ctx, record.id as string),
  });
}

/**
 * Clears organization_id on the contacts of an organization being deleted, in the deletion's
 * transaction: each such contact is updated (updated_at moves) and publishes contact.updated.
 */
async function clearOrganization(tx: SqlQueryable, ctx: WriteContext, organizationId: string): Promise<CrmEvent[]> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE contacts SET organization_id = NULL, updated_at = $3::timestamptz
      WHERE workspace_id = $1::uuid AND organization_id = $2::uuid RETURNING id`,
    [ctx.workspaceId, organizationId, new Date().toISOString()],
  );
  return rows.map((r) => newEvent(PeopleEvents.ContactUpdated, ctx.workspaceId, { id: r.id, changed: ['organization_id'] }));
}

export function createOrganizationsStore({ db, cursors, afterCommit }: StoreDeps): ResourceStore {
  return createResourceStore({
    db,
    spec: organizations,
    subjects: {
      created: PeopleEvents.OrganizationCreated,
      updated: PeopleEvents.OrganizationUpdated,
      deleted: PeopleEvents.OrganizationDeleted,
    },
    cursors,
    afterCommit,
    onDelete: (tx, ctx, record) => clearOrganization(tx, ctx, record.id as string),
  });
}

/** Pools: their memberships go with them (foreign key cascade), without an event each. */
export function createPoolsStore({ db, cursors, afterCommit }: StoreDeps): ResourceStore {
  return createResourceStore({
    db,
    spec: pools,
    subjects: { created: PeopleEvents.PoolCreated, updated: PeopleEvents.PoolUpdated, deleted: PeopleEvents.PoolDeleted },
    cursors,
    afterCommit,
  });
}
