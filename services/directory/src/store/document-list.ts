import {
  type ApiRecord,
  type CursorCodec,
  type CursorPosition,
  type ListQuery,
  type Page,
  type ResourceSpec,
  type SortKey,
  isNullable,
  positionOf,
  queryFingerprint,
  queryIdentity,
  searchKeys,
} from '@crm/kit';
import type { DocumentCollection, Filter, SortSpec } from './document-store';

/**
 * A list of the directory's documents with the rules and cursors of every Postgres list
 * (kit/keyset-sql): the filters, `since`/`until` on the time field, `updated_since`, `q` as a
 * case-insensitive substring of any search field, the sort keys then `_id` in the direction of the
 * first key, and a keyset seek after the cursor's position, so a deep page costs what the first
 * costs (each sort key has an index led by `workspace_id`, directory.schema.ts).
 *
 * "Nulls last" holds because there are no nulls to place: a lister refuses a declaration with a
 * nullable sort key, so MongoDB's own null ordering (first when ascending) can never show. Timestamps
 * are stored as RFC 3339 UTC strings with milliseconds, which sort and compare as strings.
 */
export interface DocumentLister<D extends { _id: string }> {
  list(workspaceId: string, query: ListQuery): Promise<Page>;
  readonly collection: DocumentCollection<D>;
}

const path = (field: string) => (field === 'id' ? '_id' : field);
const scalar = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function documentLister<D extends { _id: string }>(options: {
  spec: ResourceSpec;
  collection: DocumentCollection<D>;
  cursors: CursorCodec;
  toRecord: (doc: D) => ApiRecord;
}): DocumentLister<D> {
  const { spec, collection, cursors, toRecord } = options;
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.sort && isNullable(field)) throw new Error(`${spec.name}.${name}: a document list cannot sort on a nullable field`);
  }
  return {
    collection,
    async list(workspaceId, query) {
      const fingerprint = queryFingerprint(queryIdentity(spec, workspaceId, query));
      const position = query.cursor ? cursors.decode(fingerprint, query.cursor) : undefined;
      const docs = await collection.find(listFilter(spec, workspaceId, query, position), {
        sort: listSort(query.sort),
        limit: query.limit + 1,
      });
      const hasMore = docs.length > query.limit;
      const data = (hasMore ? docs.slice(0, query.limit) : docs).map(toRecord);
      const last = data[data.length - 1];
      return { data, nextCursor: hasMore && last ? cursors.encode(fingerprint, positionOf(query, last)) : null, hasMore };
    },
  };
}

/** The query's conditions as one MongoDB filter; every value is data, never an operator. */
export function listFilter(spec: ResourceSpec, workspaceId: string, query: ListQuery, position?: CursorPosition): Filter {
  const all: Filter[] = [{ workspace_id: workspaceId }];
  for (const { field, value } of query.filters) all.push({ [path(field)]: { $eq: scalar(value) } });
  if (query.since) all.push({ [spec.timeField]: { $gte: query.since.toISOString() } });
  if (query.until) all.push({ [spec.timeField]: { $lt: query.until.toISOString() } });
  if (query.updatedSince) all.push({ updated_at: { $gt: query.updatedSince.toISOString() } });
  if (query.q) {
    const pattern = escapeRegex(query.q);
    all.push({ $or: searchKeys(spec).map((field) => ({ [path(field)]: { $regex: pattern, $options: 'i' } })) });
  }
  if (position) all.push(after(query.sort, position));
  return all.length === 1 ? all[0]! : { $and: all };
}

/** Rows strictly after the position in (sort keys…, _id) order: one alternative per key. */
function after(sort: readonly SortKey[], position: CursorPosition): Filter {
  const op = (s: SortKey) => (s.direction === 'asc' ? '$gt' : '$lt');
  const alternatives: Filter[] = [];
  const equal: Filter[] = [];
  sort.forEach((s, i) => {
    const value = position.values[i];
    alternatives.push({ $and: [...equal, { [path(s.field)]: { [op(s)]: value } }] });
    equal.push({ [path(s.field)]: { $eq: value } });
  });
  alternatives.push({ $and: [...equal, { _id: { [op(sort[0]!)]: position.id } }] });
  return { $or: alternatives };
}

export function listSort(sort: readonly SortKey[]): SortSpec {
  const spec: Record<string, 1 | -1> = {};
  for (const s of sort) spec[path(s.field)] = s.direction === 'asc' ? 1 : -1;
  spec._id = sort[0]!.direction === 'asc' ? 1 : -1;
  return spec;
}
