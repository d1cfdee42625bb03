import type { CursorPosition } from './cursor';
import { sqlTypeOf } from './field-values';
import type { ListQuery, SortKey } from './list-query';
import { type ResourceSpec, isNullable, queryColumn, searchKeys } from './resource';

/**
 * Compiles a parsed list query into one keyset-paginated SELECT. Every identifier in the text comes
 * from the resource declaration; every value is a parameter.
 *
 * Order: the sort keys, nulls last in both directions, then `id` in the direction of the first key.
 *
 * Seeks, not scans: with a single sort key (the common case and the default), the page is the union
 * of two index seeks on (workspace_id, key, id), one over the rows whose key is set, resuming with
 * a row comparison `(key, id) > (v, id0)`, and one over the rows whose key is null, resuming on id.
 * Both are bounded by the page size, so a page 500,000 rows deep costs what the first page costs. A
 * NOT NULL key needs only the first seek. Several sort keys fall back to an exact OR-expanded
 * predicate, which is correct for any mix of directions but is not guaranteed to be a seek.
 */
export interface CompiledQuery {
  text: string;
  params: unknown[];
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown, type: string): string {
    this.values.push(value instanceof Date ? value.toISOString() : value);
    return `$${this.values.length}::${type}`;
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function baseConditions(spec: ResourceSpec, workspaceId: string, query: ListQuery, p: Params): string[] {
  const where = [`workspace_id = ${p.add(workspaceId, 'uuid')}`];
  for (const { field, value } of query.filters) {
    where.push(`${queryColumn(spec, field)} = ${p.add(value, sqlTypeOf(spec.fields[field]!))}`);
  }
  const time = queryColumn(spec, spec.timeField);
  if (query.since) where.push(`${time} >= ${p.add(query.since, 'timestamptz')}`);
  if (query.until) where.push(`${time} < ${p.add(query.until, 'timestamptz')}`);
  if (query.updatedSince) where.push(`updated_at > ${p.add(query.updatedSince, 'timestamptz')}`);
  if (query.q) where.push(searchCondition(spec, query.q, p));
  return where;
}

/** `q` as a condition: on the search column where there is one, else on each search field. */
function searchCondition(spec: ResourceSpec, q: string, p: Params): string {
  const pattern = p.add(`%${escapeLike(q)}%`, 'text');
  // Lowered by the database, as the column was: the same case folding on both sides.
  if (spec.searchColumn) return `${spec.searchColumn} LIKE lower(${pattern})`;
  return `(${searchKeys(spec).map((f) => `${f} ILIKE ${pattern}`).join(' OR ')})`;
}

const dir = (s: SortKey) => (s.direction === 'asc' ? 'ASC' : 'DESC');
const after = (s: SortKey) => (s.direction === 'asc' ? '>' : '<');
/** The rows after the cursor on one sort key: `(column, id)` past the cursor's, in the key's direction. */
const resumeAfter = (p: Params, column: string, s: SortKey, type: string, value: unknown, id: string) =>
  `(${column}, id) ${after(s)} (${p.add(value, type)}, ${p.add(id, 'uuid')})`;

export function compileListQuery(
  spec: ResourceSpec,
  columns: string,
  workspaceId: string,
  query: ListQuery,
  position: CursorPosition | undefined,
): CompiledQuery {
  const p = new Params();
  const where = baseConditions(spec, workspaceId, query, p);
  const take = query.limit + 1;
  const first = query.sort[0]!;
  const idDir = dir(first);

  if (query.sort.length === 1) {
    const field = spec.fields[first.field]!;
    const key = queryColumn(spec, first.field);
    const type = sqlTypeOf(field);
    const value = position?.values[0];
    const setBranch = (extra: string[]) =>
      `SELECT ${columns} FROM ${spec.table} WHERE ${[...where, ...extra].join(' AND ')} ` +
      `ORDER BY ${key} ${dir(first)}, id ${idDir} LIMIT ${take}`;
    const resume = (v: unknown, id: string) => resumeAfter(p, key, first, type, v, id);

    if (!isNullable(field)) {
      const extra = position ? [resume(value, position.id)] : [];
      return { text: setBranch(extra), params: p.values };
    }
    // Ordered by the key too, although it is null throughout: the planner matches ORDER BY with the
    // (workspace_id, key, id) index only when the key is named, and otherwise walks the primary key,
    // filtering rows until it finds enough nulls.
    const nullBranch = (extra: string[]) =>
      `SELECT ${columns} FROM ${spec.table} WHERE ${[...where, `${key} IS NULL`, ...extra].join(' AND ')} ` +
      `ORDER BY ${key} ${dir(first)}, id ${idDir} LIMIT ${take}`;
    if (position && value === null) {
      // Already inside the trailing null rows: only they remain.
      return { text: nullBranch([`id ${after(first)} ${p.add(position.id, 'uuid')}`]), params: p.values };
    }
    const setPart = setBranch([`${key} IS NOT NULL`, ...(position ? [resume(value, position.id)] : [])]);
    const text =
      `SELECT * FROM ((${setPart}) UNION ALL (${nullBranch([])})) AS page ` +
      `ORDER BY ${key} ${dir(first)} NULLS LAST, id ${idDir} LIMIT ${take}`;
    return { text, params: p.values };
  }

  if (position) {
    const alternatives: string[] = [];
    const equalities: string[] = [];
    query.sort.forEach((s, i) => {
      const type = sqlTypeOf(spec.fields[s.field]!);
      const column = queryColumn(spec, s.field);
      const v = position.values[i];
      if (v !== null && v !== undefined) {
        const param = p.add(v, type);
        alternatives.push([...equalities, `(${column} ${after(s)} ${param} OR ${column} IS NULL)`].join(' AND '));
        equalities.push(`${column} = ${param}`);
      } else {
        // Nothing sorts after null on this key; rows tie with the cursor only where it is null too.
        equalities.push(`${column} IS NULL`);
      }
    });
    alternatives.push([...equalities, `id ${after(first)} ${p.add(position.id, 'uuid')}`].join(' AND '));
    where.push(`(${alternatives.map((a) => `(${a})`).join(' OR ')})`);
  }
  const order = query.sort.map((s) => `${queryColumn(spec, s.field)} ${dir(s)} NULLS LAST`).join(', ');
  return {
    text: `SELECT ${columns} FROM ${spec.table} WHERE ${where.join(' AND ')} ORDER BY ${order}, id ${idDir} LIMIT ${take}`,
    params: p.values,
  };
}

/** How many rows, newest first, a search walks in its time index before it asks the trigram index. */
export const SEARCH_WINDOW = 20_000;

/**
 * The fast way to a page of `q` results, where it applies: a resource with a search column, listed
 * in its time order with no other filter than the time bounds. The newest SEARCH_WINDOW rows after
 * the cursor are walked in the time index, which carries the search column (`INCLUDE`, checked by
 * the parity test), so each row is tested without reading the table, and the page's rows are read
 * by id. A page it fills (limit + 1 rows) is exactly the full query's: every row outside the window
 * comes later in the order. One it does not fill says nothing, and the caller runs
 * compileListQuery. Why: Postgres estimates a trigram `LIKE` badly (100 rows for a term that
 * matches 17,000), and then reads every match from the table and sorts them; a common term is
 * found in the first few thousand rows of the index instead (packages/kit/README.md, "Search").
 */
export function compileSearchWindow(
  spec: ResourceSpec,
  columns: string,
  workspaceId: string,
  query: ListQuery,
  position: CursorPosition | undefined,
  windowSize: number = SEARCH_WINDOW,
): CompiledQuery | undefined {
  const first = query.sort[0]!;
  const timeField = spec.fields[spec.timeField]!;
  if (!query.q || !spec.searchColumn || query.filters.length || query.updatedSince) return undefined;
  if (query.sort.length !== 1 || first.field !== spec.timeField || isNullable(timeField)) return undefined;
  const p = new Params();
  const time = queryColumn(spec, spec.timeField);
  // The workspace and the time bounds inside the window ($1 is the workspace); the search on it.
  const where = baseConditions(spec, workspaceId, { ...query, q: undefined }, p);
  if (position) where.push(resumeAfter(p, time, first, sqlTypeOf(timeField), position.values[0], position.id));
  const order = `${time} ${dir(first)}, id ${dir(first)}`;
  const window = `SELECT id, ${time}, ${spec.searchColumn} FROM ${spec.table} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${windowSize}`;
  const found = `SELECT id FROM (${window}) AS w WHERE ${searchCondition(spec, query.q, p)} ORDER BY ${order} LIMIT ${query.limit + 1}`;
  return { text: `SELECT ${columns} FROM ${spec.table} WHERE workspace_id = $1::uuid AND id IN (${found}) ORDER BY ${order}`, params: p.values };
}

/** The cursor position of a row: its sort values (date-times as ISO strings) and id. */
export function positionOf(query: ListQuery, row: Record<string, unknown>): CursorPosition {
  return {
    values: query.sort.map((s) => {
      // Sort keys are scalars (a json field cannot be one).
      const v = row[s.field] as string | number | boolean | Date | null | undefined;
      return v instanceof Date ? v.toISOString() : (v ?? null);
    }),
    id: String(row.id),
  };
}
