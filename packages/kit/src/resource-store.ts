import { type CursorCodec, queryFingerprint } from './cursor';
import { CrmError } from './errors';
import type { EventData, EventSubject } from '@crm/proto';
import { type CrmEvent, type EventInit, eventFrom, newRawEvent } from './events';
import type { FieldValue } from './field-values';
import { sqlParam, sqlTypeOf } from './field-values';
import { newId } from './ids';
import { SEARCH_WALK, SEARCH_WALK_FROM_TABLE, compileListQuery, compileSearchWalk, compileSearchWindow, positionOf, searchWindowApplies } from './keyset-sql';
import { type ListQuery, isShortSearch, queryIdentity } from './list-query';
import { type ApiRecord, checkRequireOneOf, rowToRecord, selectColumns, validateWrite } from './record-codec';
import { type ResourceSpec, declaredField } from './resource';
import type { QueryOptions, SqlClient, SqlQueryable } from './sql';
import { createTransactionRunner } from './transaction';

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
  create(ctx: WriteContext, body: unknown, options?: WriteOptions): Promise<ApiRecord>;
  update(ctx: WriteContext, id: string, body: unknown, options?: WriteOptions): Promise<ApiRecord>;
  delete(ctx: WriteContext, id: string): Promise<void>;
}

/** One record of `insertMany`: what `create` would take. */
export interface ManyWrite {
  ctx: WriteContext;
  body: unknown;
  /** The new record's id (required: the caller names each row before it writes). */
  id: string;
  systemFields?: Readonly<Record<string, FieldValue>>;
}

/** A store on SQL, which can also write many creates as one statement in its caller's transaction. */
export interface SqlResourceStore extends ResourceStore {
  /**
   * Inside the caller's transaction: creates every record as `create` would (validated body,
   * system fields, the resource's rules, column defaults for what is left out), in one INSERT, and
   * returns them in order with the events their creation publishes. The caller writes those
   * events to the outbox and answers any idempotency keys; a failure rolls back the caller's
   * transaction, so all of them or none are written.
   */
  insertMany(tx: SqlQueryable, writes: readonly ManyWrite[]): Promise<{ records: ApiRecord[]; events: CrmEvent[] }>;
}

/** Per-call options of a create or update made by the owning service itself. */
export interface WriteOptions {
  /** The new record's id, when the service needs it before the write (a Message-ID, a quota reservation). */
  id?: string;
  /**
   * Values of declared read-only fields that the service sets (a link only it may make), written
   * as given: they never come from a client body.
   */
  systemFields?: Readonly<Record<string, FieldValue>>;
  /**
   * More work in the write's transaction once the row is written (recording an idempotency key,
   * for example); throwing rolls the write back. Events it returns are committed with the write's.
   */
  inTransaction?: (tx: SqlQueryable, record: ApiRecord) => Promise<CrmEvent[] | void>;
}

/** A create or update about to be written, as a resource's `beforeWrite` rule sees it. */
export interface PendingWrite {
  mode: 'create' | 'update';
  ctx: WriteContext;
  /** Declared fields the write sets (validated body fields and system fields; null clears). */
  fields: Readonly<Record<string, FieldValue>>;
  /** The stored record (update only), read with a row lock in the write's transaction. */
  current: ApiRecord | undefined;
  /**
   * The declared fields as they will be: `current` with `fields` applied, date-times as ISO
   * strings. On create, fields the body leaves out are absent (column defaults are not known here).
   */
  next: Readonly<Record<string, unknown>>;
  tx: SqlQueryable;
}

/** A change in the course of being committed, as a resource's `events` option sees it. */
export interface RecordChange {
  verb: 'created' | 'updated' | 'deleted';
  ctx: WriteContext;
  /** The record before an update or delete. */
  before: ApiRecord | undefined;
  /** The record after a create or update. */
  after: ApiRecord | undefined;
  /** Declared fields and custom properties an update set or cleared; empty otherwise. */
  changed: string[];
}

/** The subjects of the catalog whose payload is `D` (or accepts it). */
type SubjectTaking<D> = { [S in EventSubject]: D extends EventData<S> ? S : never }[EventSubject];

/**
 * The subjects of a resource's default events, from the catalog: `created` `{id}`, `updated`
 * `{id, changed}`, `deleted` `{id, svc_uid}`. A subject whose message has another shape does not
 * compile here.
 */
export interface ResourceSubjects {
  created: SubjectTaking<{ id: string }>;
  updated: SubjectTaking<{ id: string; changed: string[] }>;
  deleted: SubjectTaking<{ id: string; svc_uid: string | null }>;
}

export interface ResourceStoreOptions {
  db: SqlClient;
  spec: ResourceSpec;
  /**
   * What a change publishes: the default events under these subjects, or `events` instead. With
   * neither, changes publish nothing.
   */
  subjects?: ResourceSubjects;
  cursors: CursorCodec;
  /** How many of the newest rows a search walks first (compileSearchWindow); default SEARCH_WINDOW. */
  searchWindow?: number;
  /**
   * How many rows a page of a short search examines (compileSearchWalk): where the search window's
   * index serves it (default SEARCH_WALK), and where rows are read from the table (default
   * SEARCH_WALK_FROM_TABLE).
   */
  searchWalk?: { index?: number; table?: number };
  /** Called after a commit that wrote events, so the outbox relay publishes without waiting. */
  afterCommit?: () => void;
  /** A rule checked in the delete's transaction before the row goes (throw a CrmError to refuse). */
  beforeDelete?: (tx: SqlQueryable, ctx: WriteContext, id: string) => Promise<void>;
  /** Extra work in the same transaction after a row is deleted (e.g. removing memberships). */
  onDelete?: (tx: SqlQueryable, ctx: WriteContext, record: ApiRecord) => Promise<CrmEvent[]>;
  /**
   * The resource's domain rules for creates and updates, run in the write's transaction before the
   * row is written (after the current row is locked, on update): throw a CrmError to refuse the
   * write, or return fields to add or override, read-only ones included (a status's timestamp, a
   * derived duration, a default).
   */
  beforeWrite?: (write: PendingWrite) => Promise<Record<string, FieldValue> | void> | Record<string, FieldValue> | void;
  /** The events a change publishes, in place of the defaults of `subjects`; [] publishes nothing. */
  events?: (change: RecordChange) => EventInit[];
}

/** A row about to be inserted: its id, workspace, declared fields (after the rules) and custom properties. */
interface InsertRow {
  id: string;
  ctx: WriteContext;
  fields: Record<string, FieldValue>;
  custom: Record<string, unknown>;
}

/** Rows that only become records: their date-times come back as the API's strings, not Dates. */
const asRecords: QueryOptions = { isoTimestamps: true };

export function createResourceStore(options: ResourceStoreOptions): SqlResourceStore {
  const { db, spec, cursors } = options;
  const columns = selectColumns(spec);
  const eventsOf = (change: RecordChange): CrmEvent[] => {
    const ws = change.ctx.workspaceId;
    if (options.events) return options.events(change).map((init) => eventFrom(ws, init));
    const subjects = options.subjects;
    if (!subjects) return [];
    // ResourceSubjects only admits subjects whose message takes these payloads.
    switch (change.verb) {
      case 'created':
        return [newRawEvent(subjects.created, ws, { id: String(change.after!.id) })];
      case 'updated':
        return [newRawEvent(subjects.updated, ws, { id: String(change.after!.id), changed: change.changed })];
      case 'deleted':
        return [newRawEvent(subjects.deleted, ws, { id: String(change.before!.id), svc_uid: (change.before!.svc_uid as string | null) ?? null })];
    }
  };
  // With rules or custom events an update reads the current row first, under a row lock.
  const readsCurrent = Boolean(options.beforeWrite || options.events);

  /** Fields set by the service itself must be declared: a typo is a programming error, not a 422. */
  const declared = (fields: Readonly<Record<string, FieldValue>> | void | undefined, source: string) => {
    for (const key of Object.keys(fields ?? {})) {
      if (!declaredField(spec, key) || key === 'id' || key === 'created_at' || key === 'updated_at') {
        throw new Error(`${spec.name}: ${source} sets ${key}, which is not a writable declared field`);
      }
    }
    return fields ?? {};
  };

  /** A create's validated body and the declared fields it sets, system fields included. */
  const createValues = (body: unknown, systemFields: Readonly<Record<string, FieldValue>> | undefined) => {
    const values = validateWrite(spec, body, 'create');
    const given = { ...values.fields, ...declared(systemFields, 'systemFields') };
    checkRequireOneOf(spec, given);
    return { values, given };
  };

  /** Runs the resource's rule, if any, and returns the fields to write. */
  async function applyRules(
    tx: SqlQueryable,
    mode: PendingWrite['mode'],
    ctx: WriteContext,
    fields: Record<string, FieldValue>,
    current: ApiRecord | undefined,
  ): Promise<Record<string, FieldValue>> {
    if (!options.beforeWrite) return fields;
    const next: Record<string, unknown> = { ...(current ?? {}) };
    for (const [key, value] of Object.entries(fields)) next[key] = value instanceof Date ? value.toISOString() : value;
    const extra = await options.beforeWrite({ mode, ctx, fields, current, next, tx });
    return { ...fields, ...declared(extra, 'beforeWrite') };
  }

  const transactions = createTransactionRunner(db, options.afterCommit);
  const inTransaction = <T>(workspaceId: string, work: (tx: SqlQueryable) => Promise<{ value: T; events: CrmEvent[] }>) =>
    transactions.run(spec, workspaceId, work);

  const assignments = (fields: Record<string, FieldValue>, params: unknown[]) =>
    Object.entries(fields).map(([key, value]) => {
      params.push(sqlParam(spec.fields[key]!, value));
      return `${key} = $${params.length}::${sqlTypeOf(spec.fields[key]!)}`;
    });

  /** One INSERT of the rows: the union of their fields as columns, DEFAULT where a row leaves one out. */
  function insertStatement(rows: readonly InsertRow[], now: string): [string, unknown[]] {
    const fieldNames = [...new Set(rows.flatMap((row) => Object.keys(row.fields)))];
    const names = ['id', 'workspace_id', ...fieldNames, 'created_at', 'updated_at', ...(spec.customFields ? ['custom'] : [])];
    const params: unknown[] = [];
    const param = (value: unknown, type: string) => {
      params.push(value);
      return `$${params.length}::${type}`;
    };
    const tuples = rows.map((row) => {
      const cells = [param(row.id, 'uuid'), param(row.ctx.workspaceId, 'uuid')];
      for (const name of fieldNames) {
        cells.push(Object.hasOwn(row.fields, name) ? param(sqlParam(spec.fields[name]!, row.fields[name]!), sqlTypeOf(spec.fields[name]!)) : 'DEFAULT');
      }
      cells.push(param(now, 'timestamptz'), param(now, 'timestamptz'));
      if (spec.customFields) cells.push(param(JSON.stringify(row.custom), 'jsonb'));
      return `(${cells.join(', ')})`;
    });
    return [`INSERT INTO ${spec.table} (${names.join(', ')}) VALUES ${tuples.join(', ')} RETURNING ${columns}`, params];
  }

  return {
    spec,

    async list(workspaceId, query) {
      const fingerprint = queryFingerprint(queryIdentity(spec, workspaceId, query));
      const position = query.cursor ? cursors.decode(fingerprint, query.cursor) : undefined;
      if (position && position.values.length !== query.sort.length) {
        throw CrmError.invalid('cursor does not belong to this query');
      }
      const page = (rows: Record<string, unknown>[], resumeAfter: Record<string, unknown> | undefined): Page => ({
        data: rows.map((row) => rowToRecord(spec, row)),
        nextCursor: resumeAfter ? cursors.encode(fingerprint, positionOf(query, resumeAfter)) : null,
        hasMore: resumeAfter !== undefined,
      });
      if (query.q && isShortSearch(query.q)) {
        // No index narrows the term: each page examines a bounded number of rows, and resumes
        // after the last one it examined when it found too few to fill itself.
        const walkSize = searchWindowApplies(spec, query) ? (options.searchWalk?.index ?? SEARCH_WALK) : (options.searchWalk?.table ?? SEARCH_WALK_FROM_TABLE);
        const walk = compileSearchWalk(spec, columns, workspaceId, query, position, walkSize);
        const { rows } = await db.query(walk.text, walk.params, asRecords);
        const hits = rows.filter((row) => row.walk_hit);
        if (hits.length > query.limit) return page(hits.slice(0, query.limit), hits[query.limit - 1]);
        return page(hits, rows.find((row) => row.walk_end));
      }
      // A search tries the newest rows first; a page it cannot fill is asked of the whole table.
      const window = compileSearchWindow(spec, columns, workspaceId, query, position, options.searchWindow);
      let rows = window ? (await db.query(window.text, window.params, asRecords)).rows : [];
      if (rows.length <= query.limit) {
        const { text, params } = compileListQuery(spec, columns, workspaceId, query, position);
        ({ rows } = await db.query(text, params, asRecords));
      }
      return rows.length > query.limit ? page(rows.slice(0, query.limit), rows[query.limit - 1]) : page(rows, undefined);
    },

    async get(workspaceId, id) {
      const { rows } = await db.query(`SELECT ${columns} FROM ${spec.table} WHERE workspace_id = $1 AND id = $2`, [workspaceId, id], asRecords);
      if (!rows[0]) throw CrmError.notFound(spec.singular);
      return rowToRecord(spec, rows[0]);
    },

    async create(ctx, body, writeOptions) {
      const { values, given } = createValues(body, writeOptions?.systemFields);
      const id = writeOptions?.id ?? newId();
      const now = new Date().toISOString();
      return inTransaction(ctx.workspaceId, async (tx) => {
        const fields = await applyRules(tx, 'create', ctx, given, undefined);
        const { rows } = await tx.query(...insertStatement([{ id, ctx, fields, custom: values.customSet }], now), asRecords);
        const created = rowToRecord(spec, rows[0]!);
        const extra = (await writeOptions?.inTransaction?.(tx, created)) ?? [];
        const change: RecordChange = { verb: 'created', ctx, before: undefined, after: created, changed: [] };
        return { value: created, events: [...eventsOf(change), ...extra] };
      });
    },

    async insertMany(tx, writes) {
      if (!writes.length) return { records: [], events: [] };
      const now = new Date().toISOString();
      const rows: InsertRow[] = [];
      for (const write of writes) {
        const { values, given } = createValues(write.body, write.systemFields);
        rows.push({ id: write.id, ctx: write.ctx, fields: await applyRules(tx, 'create', write.ctx, given, undefined), custom: values.customSet });
      }
      const { rows: inserted } = await tx.query(...insertStatement(rows, now), asRecords);
      // RETURNING gives no order: each record is matched to its write by id.
      const byId = new Map(inserted.map((row) => [String((row as { id: unknown }).id), rowToRecord(spec, row)]));
      const records = rows.map((row) => byId.get(row.id)!);
      const events = records.flatMap((after, i) => eventsOf({ verb: 'created', ctx: rows[i]!.ctx, before: undefined, after, changed: [] }));
      return { records, events };
    },

    async update(ctx, id, body, writeOptions) {
      const values = validateWrite(spec, body, 'update');
      const given = { ...values.fields, ...declared(writeOptions?.systemFields, 'systemFields') };
      return inTransaction(ctx.workspaceId, async (tx) => {
        let current: ApiRecord | undefined;
        if (readsCurrent) {
          const { rows: found } = await tx.query(
            `SELECT ${columns} FROM ${spec.table} WHERE workspace_id = $1::uuid AND id = $2::uuid FOR UPDATE`,
            [ctx.workspaceId, id],
            asRecords,
          );
          if (!found[0]) throw CrmError.notFound(spec.singular);
          current = rowToRecord(spec, found[0]);
        }
        const fields = await applyRules(tx, 'update', ctx, given, current);
        const params: unknown[] = [ctx.workspaceId, id];
        const sets = assignments(fields, params);
        params.push(new Date().toISOString());
        sets.push(`updated_at = $${params.length}::timestamptz`);
        if (spec.customFields && (Object.keys(values.customSet).length || values.customUnset.length)) {
          params.push(JSON.stringify(values.customSet), values.customUnset);
          sets.push(`custom = (custom || $${params.length - 1}::jsonb) - $${params.length}::text[]`);
        }
        const changed = [...Object.keys(fields), ...Object.keys(values.customSet), ...values.customUnset];
        const { rows } = await tx.query(
          `UPDATE ${spec.table} SET ${sets.join(', ')} WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING ${columns}`,
          params,
          asRecords,
        );
        if (!rows[0]) throw CrmError.notFound(spec.singular);
        const updated = rowToRecord(spec, rows[0]);
        checkRequireOneOf(spec, updated);
        const extra = (await writeOptions?.inTransaction?.(tx, updated)) ?? [];
        const change: RecordChange = { verb: 'updated', ctx, before: current, after: updated, changed };
        return { value: updated, events: [...eventsOf(change), ...extra] };
      });
    },

    async delete(ctx, id) {
      await inTransaction(ctx.workspaceId, async (tx) => {
        await options.beforeDelete?.(tx, ctx, id);
        const { rows } = await tx.query(
          `DELETE FROM ${spec.table} WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING ${columns}`,
          [ctx.workspaceId, id],
          asRecords,
        );
        if (!rows[0]) throw CrmError.notFound(spec.singular);
        const record = rowToRecord(spec, rows[0]);
        const extra = options.onDelete ? await options.onDelete(tx, ctx, record) : [];
        const change: RecordChange = { verb: 'deleted', ctx, before: record, after: undefined, changed: [] };
        return { value: undefined, events: [...eventsOf(change), ...extra] };
      });
    },
  };
}
