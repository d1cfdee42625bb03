import { type CursorCodec, queryFingerprint } from './cursor';
import { CrmError } from './errors';
import { type CrmEvent, newEvent, writeOutbox } from './events';
import type { FieldValue } from './field-values';
import { sqlTypeOf } from './field-values';
import { newId } from './ids';
import { compileListQuery, positionOf } from './keyset-sql';
import { type ListQuery, queryIdentity } from './list-query';
import { type ApiRecord, checkRequireOneOf, rowToRecord, selectColumns, validateWrite } from './record-codec';
import type { ResourceSpec } from './resource';
import { type SqlClient, type SqlQueryable, pgErrorOf } from './sql';

export interface Page {
  data: ApiRecord[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Who is writing: the workspace is mandatory, so no store call can escape tenant scoping. */
export interface WriteContext {
  workspaceId: string;
  actorUserId?: string;
}

export interface ResourceStore {
  readonly spec: ResourceSpec;
  list(workspaceId: string, query: ListQuery): Promise<Page>;
  get(workspaceId: string, id: string): Promise<ApiRecord>;
  create(ctx: WriteContext, body: unknown): Promise<ApiRecord>;
  update(ctx: WriteContext, id: string, body: unknown): Promise<ApiRecord>;
  delete(ctx: WriteContext, id: string): Promise<void>;
}

export interface ResourceStoreOptions {
  db: SqlClient;
  spec: ResourceSpec;
  /** Event subject prefix, e.g. `crm.people`; events are `<prefix>.<singular>.<verb>`. */
  eventPrefix: string;
  cursors: CursorCodec;
  /** Called after a commit that wrote events, so the outbox relay publishes without waiting. */
  afterCommit?: () => void;
  /** Extra work in the same transaction after a row is deleted (e.g. removing memberships). */
  onDelete?: (tx: SqlQueryable, ctx: WriteContext, record: ApiRecord) => Promise<CrmEvent[]>;
}

/** Translates constraint violations into the domain's errors (the store layer owns SQL). */
export function translateDbError(spec: ResourceSpec, error: unknown): never {
  const pg = pgErrorOf(error);
  if (pg?.code === '23505') {
    const field = (pg.constraint && spec.uniqueConstraints?.[pg.constraint]) ?? undefined;
    throw new CrmError(
      'conflict',
      field ? `a ${spec.singular} with this ${field} already exists` : `${spec.singular} conflicts with an existing one`,
      field ? { field } : undefined,
    );
  }
  if (pg?.code === '40001' || pg?.code === '40P01') {
    throw new CrmError('conflict', 'the record was changed concurrently; retry the request');
  }
  throw error;
}

export function createResourceStore(options: ResourceStoreOptions): ResourceStore {
  const { db, spec, cursors } = options;
  const columns = selectColumns(spec);
  const event = (ctx: WriteContext, verb: string, data: Record<string, unknown>) =>
    newEvent(`${options.eventPrefix}.${spec.singular}.${verb}`, ctx.workspaceId, data);

  async function inTransaction<T>(work: (tx: SqlQueryable) => Promise<{ value: T; events: CrmEvent[] }>): Promise<T> {
    let result: { value: T; events: CrmEvent[] };
    try {
      result = await db.transaction(async (tx) => {
        const done = await work(tx);
        if (done.events.length) await writeOutbox(tx, done.events);
        return done;
      });
    } catch (error) {
      translateDbError(spec, error);
    }
    if (result.events.length) options.afterCommit?.();
    return result.value;
  }

  const assignments = (fields: Record<string, FieldValue>, params: unknown[]) =>
    Object.entries(fields).map(([key, value]) => {
      params.push(value instanceof Date ? value.toISOString() : value);
      return `${key} = $${params.length}::${sqlTypeOf(spec.fields[key]!)}`;
    });

  return {
    spec,

    async list(workspaceId, query) {
      const fingerprint = queryFingerprint(queryIdentity(spec, workspaceId, query));
      const position = query.cursor ? cursors.decode(fingerprint, query.cursor) : undefined;
      if (position && position.values.length !== query.sort.length) {
        throw CrmError.invalid('cursor does not belong to this query');
      }
      const { text, params } = compileListQuery(spec, columns, workspaceId, query, position);
      const { rows } = await db.query(text, params);
      const hasMore = rows.length > query.limit;
      const pageRows = hasMore ? rows.slice(0, query.limit) : rows;
      const last = pageRows[pageRows.length - 1];
      return {
        data: pageRows.map((row) => rowToRecord(spec, row)),
        nextCursor: hasMore && last ? cursors.encode(fingerprint, positionOf(query, last)) : null,
        hasMore,
      };
    },

    async get(workspaceId, id) {
      const { rows } = await db.query(`SELECT ${columns} FROM ${spec.table} WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      if (!rows[0]) throw CrmError.notFound(spec.singular);
      return rowToRecord(spec, rows[0]);
    },

    async create(ctx, body) {
      const values = validateWrite(spec, body, 'create');
      const record = { ...values.fields };
      checkRequireOneOf(spec, record);
      const id = newId();
      const now = new Date().toISOString();
      const names = ['id', 'workspace_id', ...Object.keys(values.fields), 'created_at', 'updated_at'];
      const params: unknown[] = [id, ctx.workspaceId];
      const placeholders = ['$1::uuid', '$2::uuid'];
      for (const [key, value] of Object.entries(values.fields)) {
        params.push(value instanceof Date ? value.toISOString() : value);
        placeholders.push(`$${params.length}::${sqlTypeOf(spec.fields[key]!)}`);
      }
      params.push(now, now);
      placeholders.push(`$${params.length - 1}::timestamptz`, `$${params.length}::timestamptz`);
      if (spec.customFields) {
        names.push('custom');
        params.push(JSON.stringify(values.customSet));
        placeholders.push(`$${params.length}::jsonb`);
      }
      return inTransaction(async (tx) => {
        const { rows } = await tx.query(
          `INSERT INTO ${spec.table} (${names.join(', ')}) VALUES (${placeholders.join(', ')}) RETURNING ${columns}`,
          params,
        );
        const created = rowToRecord(spec, rows[0]!);
        return { value: created, events: [event(ctx, 'created', { id })] };
      });
    },

    async update(ctx, id, body) {
      const values = validateWrite(spec, body, 'update');
      const params: unknown[] = [ctx.workspaceId, id];
      const sets = assignments(values.fields, params);
      params.push(new Date().toISOString());
      sets.push(`updated_at = $${params.length}::timestamptz`);
      if (spec.customFields && (Object.keys(values.customSet).length || values.customUnset.length)) {
        params.push(JSON.stringify(values.customSet), values.customUnset);
        sets.push(`custom = (custom || $${params.length - 1}::jsonb) - $${params.length}::text[]`);
      }
      const changed = [...Object.keys(values.fields), ...Object.keys(values.customSet), ...values.customUnset];
      return inTransaction(async (tx) => {
        const { rows } = await tx.query(
          `UPDATE ${spec.table} SET ${sets.join(', ')} WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING ${columns}`,
          params,
        );
        if (!rows[0]) throw CrmError.notFound(spec.singular);
        const updated = rowToRecord(spec, rows[0]);
        checkRequireOneOf(spec, updated);
        return { value: updated, events: [event(ctx, 'updated', { id, changed })] };
      });
    },

    async delete(ctx, id) {
      await inTransaction(async (tx) => {
        const { rows } = await tx.query(
          `DELETE FROM ${spec.table} WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING ${columns}`,
          [ctx.workspaceId, id],
        );
        if (!rows[0]) throw CrmError.notFound(spec.singular);
        const record = rowToRecord(spec, rows[0]);
        const extra = options.onDelete ? await options.onDelete(tx, ctx, record) : [];
        return { value: undefined, events: [event(ctx, 'deleted', { id, svc_uid: record.svc_uid ?? null }), ...extra] };
      });
    },
  };
}
