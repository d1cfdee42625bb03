/**
 * The narrow document store the directory needs, with MongoDB semantics. Two implementations pass
 * the same contract suite (`document-store.contract.ts`): `mongo-store.ts` over the official driver
 * and `embedded-store.ts` (in memory, optionally persisted to a file) for the all-in-one process.
 *
 * Documents are JSON values: strings, finite numbers, booleans, null, arrays and plain objects.
 * Timestamps are stored as RFC 3339 strings, which sort correctly as strings. Fields set to
 * `undefined` are dropped, as they are in JSON.
 */

/** A MongoDB query document, for example `{ workspace_id: 'w', email_lower: { $in: [...] } }`. */
export type Filter = Readonly<Record<string, unknown>>;

/** A MongoDB sort document: field path → 1 (ascending) or -1 (descending). */
export type SortSpec = Readonly<Record<string, 1 | -1>>;

/** The update operators the directory uses; a document is never replaced wholesale. */
export interface UpdateSpec {
  $set?: Readonly<Record<string, unknown>>;
  $unset?: Readonly<Record<string, '' | 1 | true>>;
  $inc?: Readonly<Record<string, number>>;
}

export interface FindOptions {
  sort?: SortSpec;
  limit?: number;
}

export interface IndexSpec {
  collection: string;
  /** Explicit so both implementations report the same name in `DuplicateKeyError`. */
  name: string;
  keys: Readonly<Record<string, 1 | -1>>;
  unique?: boolean;
  /**
   * Only documents matching this filter are indexed (MongoDB partial index). MongoDB accepts a
   * subset of operators here: equality, `$exists: true`, `$gt`/`$gte`/`$lt`/`$lte`, `$type`, `$and`,
   * `$or`, `$in`. Use `{ field: { $type: 'string' } }` for "unique when not null".
   */
  partialFilterExpression?: Filter;
}

export interface DocumentCollection<T extends { _id: string }> {
  /** Throws `DuplicateKeyError` when `_id` or a unique index is already taken. */
  insertOne(doc: T): Promise<void>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Updates the first matching document. Throws `DuplicateKeyError` and leaves it unchanged when
   * the update would break a unique index. */
  updateOne(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }>;
  /** Updates every matching document, one at a time: a `DuplicateKeyError` stops at the document
   * that would break a unique index, leaving the ones before it updated (as MongoDB does). */
  updateMany(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }>;
  deleteOne(filter: Filter): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter): Promise<{ deletedCount: number }>;
}

export interface DocumentStore {
  collection<T extends { _id: string }>(name: string): DocumentCollection<T>;
  /** Creates the indexes that do not exist yet; idempotent. Throws `DuplicateKeyError` when a new
   * unique index cannot be built over the documents already stored. */
  ensureIndexes(specs: readonly IndexSpec[]): Promise<void>;
  /** Waits for pending writes and releases the connection or file. */
  close(): Promise<void>;
}

/** The one error both implementations raise for a unique-index violation, naming the index. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(readonly index: string) {
    super(`duplicate key for unique index ${index}`);
  }
}

/** MongoDB's name for the implicit unique index on `_id`. */
export const ID_INDEX = '_id_';
