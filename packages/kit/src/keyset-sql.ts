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

/** The list's order as an ORDER BY list: the sort keys, nulls last, then id in the first key's direction. */
function listOrder(spec: ResourceSpec, query: ListQuery): string {
  const keys = query.sort.map((s) => `${queryColumn(spec, s.field)} ${dir(s)} NULLS LAST`);
  return [...keys, `id ${dir(query.sort[0]!)}`].join(', ');
}

export function compileListQuery(
  spec: ResourceSpec,
  columns: string,
  workspaceId: string,
  query: ListQuery,
  position: CursorPosition | undefined,
): CompiledQuery {
  const p = new Params();
  return { text: listSql(spec, columns, workspaceId, query, position, p, query.limit + 1).text, params: p.values };
}

/**
 * The list's SELECT of its first `take` rows after the position, its values added to `p`, and the
 * ORDER BY it ends with, as written (a query over its rows that orders them by the same words
 * needs no sort of its own).
 */
function listSql(
  spec: ResourceSpec,
  columns: string,
  workspaceId: string,
  query: ListQuery,
  position: CursorPosition | undefined,
  p: Params,
  take: number,
): { text: string; order: string } {
  const where = baseConditions(spec, workspaceId, query, p);
  const first = query.sort[0]!;
  const idDir = dir(first);

  if (query.sort.length === 1) {
    const field = spec.fields[first.field]!;
    const key = queryColumn(spec, first.field);
    const type = sqlTypeOf(field);
    const value = position?.values[0];
    const branchOrder = `${key} ${dir(first)}, id ${idDir}`;
    const setBranch = (extra: string[]) =>
      `SELECT ${columns} FROM ${spec.table} WHERE ${[...where, ...extra].join(' AND ')} ORDER BY ${branchOrder} LIMIT ${take}`;
    const resume = (v: unknown, id: string) => resumeAfter(p, key, first, type, v, id);

    if (!isNullable(field)) {
      const extra = position ? [resume(value, position.id)] : [];
      return { text: setBranch(extra), order: branchOrder };
    }
    // Ordered by the key too, although it is null throughout: the planner matches ORDER BY with the
    // (workspace_id, key, id) index only when the key is named, and otherwise walks the primary key,
    // filtering rows until it finds enough nulls.
    const nullBranch = (extra: string[]) =>
      `SELECT ${columns} FROM ${spec.table} WHERE ${[...where, `${key} IS NULL`, ...extra].join(' AND ')} ORDER BY ${branchOrder} LIMIT ${take}`;
    if (position && value === null) {
      // Already inside the trailing null rows: only they remain.
      return { text: nullBranch([`id ${after(first)} ${p.add(position.id, 'uuid')}`]), order: branchOrder };
    }
    const setPart = setBranch([`${key} IS NOT NULL`, ...(position ? [resume(value, position.id)] : [])]);
    const order = `${key} ${dir(first)} NULLS LAST, id ${idDir}`;
    return { text: `SELECT * FROM ((${setPart}) UNION ALL (${nullBranch([])})) AS page ORDER BY ${order} LIMIT ${take}`, order };
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
  const order = listOrder(spec, query);
  return { text: `SELECT ${columns} FROM ${spec.table} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${take}`, order };
}

/** How many rows, newest first, a search walks in its time index before it asks the trigram index. */
export const SEARCH_WINDOW = 20_000;

/**
 * Whether a search is the search window's case: a resource with a search column, listed in its
 * time order with no other filter than the time bounds. There the time index carries the search
 * column (the parity test asks for it), so walking it never reads the table.
 */
export function searchWindowApplies(spec: ResourceSpec, query: ListQuery): boolean {
  const first = query.sort[0]!;
  if (!spec.searchColumn || query.filters.length || query.updatedSince) return false;
  return query.sort.length === 1 && first.field === spec.timeField && !isNullable(spec.fields[spec.timeField]!);
}

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
  if (!query.q || !searchWindowApplies(spec, query)) return undefined;
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

/**
 * How many rows a page of a short search examines (compileSearchWalk) where an index that carries
 * the search column serves the walk (the search window's case, searchWindowApplies): a page that
 * finds too few walks them twice, which costs about what one search window costs a rare longer term.
 */
export const SEARCH_WALK = 10_000;

/** The same where each row is read from the table, at several times the cost of an index entry. */
export const SEARCH_WALK_FROM_TABLE = 2_000;

/**
 * A page of a search by a term no trigram index can serve (isShortSearch: fewer than three
 * characters). Postgres can only test such a term on each row, and a rare one would have the full
 * query test every row of the workspace. So a page examines at most `walkSize` rows of the list as
 * it is without `q`, in the list's order after the cursor (the same seek as the list's own page),
 * and keeps those that match; the first limit + 1 of them make the page as usual, and the walk stops
 * there. When fewer match, the page holds what it found (possibly nothing) and, if the walk ran to
 * its size, its cursor resumes after the last row examined: each row is examined by one page, in
 * order, so no match is skipped and none is given twice.
 *
 * Rows come back with `walk_hit` (a record of the page) or `walk_end` (the walk's last row, present
 * only when the page is not full and the walk examined `walkSize` rows: the next cursor's position).
 * The last row is found by a second walk of the same rows in the same statement (one snapshot),
 * reading only the order's columns, and only when the page is not full: numbering the rows of the
 * first walk instead cost more than walking them again (test/bench/HISTORY.md, 2026-11-27).
 */
export function compileSearchWalk(
  spec: ResourceSpec,
  columns: string,
  workspaceId: string,
  query: ListQuery,
  position: CursorPosition | undefined,
  walkSize: number,
): CompiledQuery {
  if (!query.q) throw new Error('compileSearchWalk needs a query with q');
  const p = new Params();
  const unsearched = { ...query, q: undefined };
  // What the order and the search read, and nothing else: in the search window's case an index
  // holds all of it, and the walk never reads the table.
  const ordered = [...new Set(['id', ...query.sort.map((s) => queryColumn(spec, s.field))])];
  const searched = spec.searchColumn ? [spec.searchColumn] : searchKeys(spec);
  const walk = listSql(spec, [...new Set([...ordered, ...searched])].join(', '), workspaceId, unsearched, position, p, walkSize);
  // Ordered in the walk's own words, so Postgres adds no sort and the LIMIT stops the walk.
  const found = `SELECT id FROM (${walk.text}) AS walk WHERE ${searchCondition(spec, query.q, p)} ORDER BY ${walk.order} LIMIT ${query.limit + 1}`;
  const again = listSql(spec, ordered.join(', '), workspaceId, unsearched, position, p, walkSize);
  const last = `SELECT id FROM (${again.text}) AS walk ORDER BY ${again.order} OFFSET ${walkSize - 1} LIMIT 1`;
  return {
    text:
      `WITH found AS (${found}) ` +
      `SELECT ${columns}, true AS walk_hit, false AS walk_end FROM ${spec.table} WHERE workspace_id = $1::uuid AND id IN (SELECT id FROM found) ` +
      `UNION ALL SELECT ${columns}, false, true FROM ${spec.table} ` +
      `WHERE workspace_id = $1::uuid AND (SELECT count(*) FROM found) <= ${query.limit} AND id = (${last}) ` +
      `ORDER BY ${listOrder(spec, query)}`,
    params: p.values,
  };
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
