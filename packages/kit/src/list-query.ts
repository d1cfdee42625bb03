import { CrmError } from './errors';
import { type FieldValue, parseQueryValue } from './field-values';
import { DEFAULT_LIMIT, type ResourceSpec, filterKeys, searchKeys, sortKeys } from './resource';
import { codePointLength, textProblem } from './json-limits';
import { parseDateTime } from './time';

export type SortDirection = 'asc' | 'desc';

export interface SortKey {
  field: string;
  direction: SortDirection;
}

export interface ListQuery {
  limit: number;
  sort: SortKey[];
  filters: { field: string; value: FieldValue }[];
  since?: Date;
  until?: Date;
  q?: string;
  updatedSince?: Date;
  cursor?: string;
}

/** Raw list parameters as they arrive (query string, or the gRPC ListRequest). */
export type RawListParams = Record<string, string | string[] | undefined>;

const COMMON_PARAMS = ['cursor', 'limit', 'sort', 'since', 'until', 'q', 'updated_since'] as const;
const MAX_Q_LENGTH = 200;
/**
 * A term shorter than this (in code points, surrounding spaces aside) holds no trigram, so no
 * trigram index can narrow it: it is served by a walk of a bounded number of rows per page
 * (keyset-sql compileSearchWalk; gateway/README.md, "Query strings").
 */
export const TRIGRAM_LENGTH = 3;

/** Whether a term is one a trigram index cannot serve, searched by a bounded walk instead. */
export const isShortSearch = (q: string): boolean => codePointLength(q.trim()) < TRIGRAM_LENGTH;

/** The parameters a list of this resource accepts, for validation and the OpenAPI description. */
export function listParameterNames(spec: ResourceSpec): string[] {
  // `q` only where the resource has search fields (pool_contacts has none: q is an unknown parameter).
  const common = searchKeys(spec).length ? COMMON_PARAMS : COMMON_PARAMS.filter((name) => name !== 'q');
  return [...common, ...filterKeys(spec)];
}

/**
 * Strict parsing of a list query (gateway/README.md, "Lists" and "Query strings"): unknown
 * parameters, repeated parameters, values of the wrong type, out-of-range limits and unknown sort
 * keys are all 400s that name the parameter; nothing is silently clamped or ignored.
 */
export function parseListQuery(spec: ResourceSpec, raw: RawListParams): ListQuery {
  const allowed = new Set(listParameterNames(spec));
  const one = (name: string): string | undefined => {
    const value = raw[name];
    if (Array.isArray(value)) throw CrmError.invalid(`query parameter ${name} must be given at most once`, { parameter: name });
    return value;
  };
  const bad = (name: string, message: string) =>
    CrmError.invalid(`query parameter ${name} ${message}`, { parameter: name });

  for (const name of Object.keys(raw)) {
    if (raw[name] === undefined) continue;
    if (!allowed.has(name)) {
      throw CrmError.invalid(`unknown query parameter ${name}; ${spec.name} accepts ${[...allowed].join(', ')}`, {
        parameter: name,
      });
    }
  }

  const query: ListQuery = { limit: DEFAULT_LIMIT, sort: [], filters: [] };

  const limit = one('limit');
  if (limit !== undefined) {
    if (!/^\d{1,4}$/.test(limit) || +limit < 1 || +limit > spec.maxLimit) {
      throw bad('limit', `must be an integer from 1 to ${spec.maxLimit}`);
    }
    query.limit = +limit;
  }

  const sort = one('sort');
  if (sort !== undefined) {
    const keys = sortKeys(spec);
    const seen = new Set<string>();
    for (const part of sort.split(',')) {
      const direction: SortDirection = part.startsWith('-') ? 'desc' : 'asc';
      const field = part.replace(/^[-+]/, '');
      if (!keys.includes(field)) throw bad('sort', `has unknown key "${field}"; allowed: ${keys.join(', ')}`);
      if (seen.has(field)) throw bad('sort', `names ${field} twice`);
      seen.add(field);
      query.sort.push({ field, direction });
    }
  } else {
    query.sort.push({ field: spec.timeField, direction: 'desc' });
  }

  const dateParam = (name: string): Date | undefined => {
    const value = one(name);
    if (value === undefined) return undefined;
    const date = parseDateTime(value);
    if (!date) throw bad(name, 'must be an RFC 3339 date-time with offset between years 0001 and 9999, e.g. 2026-05-15T10:00:00Z');
    return date;
  };
  query.since = dateParam('since');
  query.until = dateParam('until');
  query.updatedSince = dateParam('updated_since');

  const q = one('q');
  if (q !== undefined) {
    if (q.trim() === '') throw bad('q', 'must not be empty');
    const problem = textProblem(q);
    if (problem) throw bad('q', problem);
    // A search column joins the fields with U+001F: no term may hold a control character.
    if (/[\u0000-\u001f\u007f]/.test(q)) throw bad('q', 'must not contain control characters');
    if (codePointLength(q) > MAX_Q_LENGTH) throw bad('q', `must be at most ${MAX_Q_LENGTH} characters`);
    query.q = q;
  }

  for (const field of filterKeys(spec)) {
    const value = one(field);
    if (value === undefined) continue;
    const parsed = parseQueryValue(spec.fields[field]!, value);
    if (!parsed.ok) throw bad(field, parsed.message);
    query.filters.push({ field, value: parsed.value });
  }

  const cursor = one('cursor');
  if (cursor !== undefined) {
    if (cursor === '') throw bad('cursor', 'must not be empty');
    if (textProblem(cursor)) throw bad('cursor', 'is malformed');
    query.cursor = cursor;
  }
  return query;
}

/** The parts of a query a cursor is bound to: everything but the page size and the cursor itself. */
export function queryIdentity(spec: ResourceSpec, workspaceId: string, query: ListQuery): unknown {
  return [
    spec.name,
    workspaceId,
    query.sort.map((s) => `${s.direction === 'desc' ? '-' : ''}${s.field}`),
    query.filters.map((f) => [f.field, f.value instanceof Date ? f.value.toISOString() : f.value]),
    query.since?.toISOString() ?? null,
    query.until?.toISOString() ?? null,
    query.q ?? null,
    query.updatedSince?.toISOString() ?? null,
  ];
}
