import { emailAddressProblem } from './email-address';
import type { ResourceSpec } from './resource';
import type { SqlQueryable } from './sql';

/** A stored address that breaks the address rule: where it is and why, never the address itself. */
export interface AddressProblem {
  resource: string;
  id: string;
  workspace_id: string;
  field: string;
  reason: string;
}

/** The fields of a declaration that hold an address. */
export const addressFields = (spec: ResourceSpec): string[] =>
  Object.entries(spec.fields)
    .filter(([, field]) => field.type === 'email' && !field.sameAs)
    .map(([name]) => name);

/**
 * Reads every stored address of the resource's `email` fields, in pages along its ids, and reports
 * each one the address rule (`emailAddressProblem`) refuses. Rows written before the rule took its
 * current form are reported, never changed. Answers how many rows were read.
 */
export async function checkStoredAddresses(
  db: SqlQueryable,
  spec: ResourceSpec,
  report: (problem: AddressProblem) => void,
  pageSize = 1_000,
): Promise<number> {
  const fields = addressFields(spec);
  if (!fields.length) return 0;
  // Column names come from the declaration, never from input.
  const sql = `SELECT id, workspace_id, ${fields.join(', ')} FROM ${spec.table}
                WHERE (${fields.map((f) => `${f} IS NOT NULL`).join(' OR ')}) AND ($1::uuid IS NULL OR id > $1::uuid)
                ORDER BY id LIMIT $2 -- all workspaces: an operator's check of every stored address`;
  let after: string | null = null;
  let read = 0;
  for (;;) {
    const { rows }: { rows: Record<string, unknown>[] } = await db.query(sql, [after, pageSize]);
    for (const row of rows) {
      for (const field of fields) {
        const value = row[field];
        if (typeof value !== 'string') continue;
        const reason = emailAddressProblem(value);
        if (reason) report({ resource: spec.name, id: String(row.id), workspace_id: String(row.workspace_id), field, reason });
      }
    }
    read += rows.length;
    if (rows.length < pageSize) return read;
    after = String(rows[rows.length - 1]!.id);
  }
}
