import { type ApiRecord, CrmError, type SqlQueryable, isUuid, rowToRecord, selectColumns } from '@crm/kit';
import { contacts } from '@crm/people-contract';

/**
 * What another context needs of many contacts at once: id, address and owner. The flow engine
 * enrolls up to 500 given contacts, or a whole pool page by page (tens of thousands), without
 * paging through the public list's records.
 */
export interface ContactRef {
  id: string;
  email?: string;
  owner_id?: string;
}

export interface ContactRefs {
  /** The given contacts that exist in the workspace (at most 1,000 ids). */
  ofIds(workspaceId: string, ids: readonly string[]): Promise<{ contacts: ContactRef[] }>;
  /** The records of the given contacts that exist in the workspace, as GetContact reads each (at most 1,000 ids). */
  records(workspaceId: string, ids: readonly string[]): Promise<ApiRecord[]>;
  /** A pool's members after `after` in contact id order, at most `limit` (1 to 10,000). */
  ofPool(workspaceId: string, poolId: string, after: string | undefined, limit: number): Promise<{ contacts: ContactRef[]; next_after: string }>;
}

const ref = (row: { id: string; email: string | null; owner_id: string | null }): ContactRef => ({
  id: row.id,
  ...(row.email ? { email: row.email } : {}),
  ...(row.owner_id ? { owner_id: row.owner_id } : {}),
});

/** At most 1,000 ids, each a UUID (others cannot name a contact), lower-cased and once each. */
function idsOf(ids: readonly string[], parameter: string): string[] {
  if (ids.length > 1_000) throw CrmError.invalid('at most 1,000 contact ids per call', { parameter });
  return [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
}

export function createContactRefs(db: SqlQueryable): ContactRefs {
  const columns = selectColumns(contacts);
  return {
    async ofIds(workspaceId, ids) {
      const valid = idsOf(ids, 'contact_ids');
      if (!valid.length) return { contacts: [] };
      const { rows } = await db.query<{ id: string; email: string | null; owner_id: string | null }>(
        `SELECT id, email, owner_id FROM contacts WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])`,
        [workspaceId, valid],
      );
      return { contacts: rows.map(ref) };
    },
    async records(workspaceId, ids) {
      const valid = idsOf(ids, 'ids');
      if (!valid.length) return [];
      const { rows } = await db.query(`SELECT ${columns} FROM contacts WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])`, [workspaceId, valid]);
      return rows.map((row) => rowToRecord(contacts, row));
    },
    async ofPool(workspaceId, poolId, after, limit) {
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw CrmError.invalid('limit must be 1 to 10,000', { parameter: 'limit' });
      if (after !== undefined && !isUuid(after)) throw CrmError.invalid('after must be a contact id', { parameter: 'after' });
      const { rows: pool } = await db.query(`SELECT 1 FROM pools WHERE workspace_id = $1::uuid AND id = $2::uuid`, [workspaceId, poolId]);
      if (!pool.length) throw CrmError.notFound('pool');
      const { rows } = await db.query<{ id: string; email: string | null; owner_id: string | null }>(
        `SELECT c.id, c.email, c.owner_id
           FROM pool_contacts m JOIN contacts c ON c.workspace_id = m.workspace_id AND c.id = m.contact_id
          WHERE m.workspace_id = $1::uuid AND m.pool_id = $2::uuid AND ($3::uuid IS NULL OR m.contact_id > $3::uuid)
          ORDER BY m.contact_id LIMIT $4`,
        [workspaceId, poolId, after ?? null, limit],
      );
      return { contacts: rows.map(ref), next_after: rows.length === limit ? rows[rows.length - 1]!.id : '' };
    },
  };
}
