import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Query, update as applyUpdate } from 'mingo';
import {
  DuplicateKeyError,
  ID_INDEX,
  type DocumentCollection,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type UpdateSpec,
} from './document-store';

/**
 * The directory's document store for the all-in-one process: documents live in memory, filters and
 * updates are evaluated by mingo (the MongoDB query language in JavaScript), and with a `dataDir`
 * every change is persisted to one JSON file.
 *
 * It is sized for the directory (workspaces, users, keys, integrations: thousands of documents,
 * not millions): unique checks and lookups by `_id` or by a whole unique key are map lookups, other
 * queries scan the collection, and every write rewrites the file. One process owns the file.
 */
export interface EmbeddedStoreOptions {
  /** Folder for the data file; the store is memory-only when absent. */
  dataDir?: string;
  fileName?: string;
}

export const DEFAULT_EMBEDDED_FILE = 'directory-documents.json';

type Doc = { _id: string } & Record<string, unknown>;

interface Snapshot {
  version: 1;
  collections: Record<string, Doc[]>;
  indexes: IndexSpec[];
}

const SUPPORTED_UPDATE_OPERATORS: ReadonlySet<string> = new Set(['$set', '$unset', '$inc']);

/** Copies through JSON so stored and returned documents never share objects with callers, and an
 * in-memory store behaves exactly as one reloaded from its file (`undefined` dropped, etc.). */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export async function createEmbeddedStore(options: EmbeddedStoreOptions = {}): Promise<DocumentStore> {
  const file = options.dataDir ? path.resolve(options.dataDir, options.fileName ?? DEFAULT_EMBEDDED_FILE) : undefined;
  let snapshot: Snapshot = { version: 1, collections: {}, indexes: [] };
  if (file) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await removeStaleTempFiles(file);
    snapshot = (await readSnapshot(file)) ?? snapshot;
  }
  return new EmbeddedStore(snapshot, file ? new SnapshotWriter(file) : undefined);
}

/** A unique index: its key → the `_id` holding it, so checks and point lookups cost O(1). */
class UniqueIndex {
  private readonly partial: Query | undefined;
  readonly owners = new Map<string, string>();

  constructor(readonly spec: IndexSpec) {
    this.partial = spec.partialFilterExpression ? new Query(spec.partialFilterExpression) : undefined;
  }

  get isPartial(): boolean {
    return this.partial !== undefined;
  }

  /** The document's key in this index, or undefined when a partial filter leaves it out. */
  keyOf(doc: Doc): string | undefined {
    return this.partial && !this.partial.test(doc) ? undefined : indexKey(this.spec, doc);
  }
}

class CollectionState {
  /** By `_id`, in insertion order, which stands in for MongoDB's natural order. */
  readonly docs = new Map<string, Doc>();
  readonly uniqueIndexes: UniqueIndex[] = [];

  /** The index `doc` would violate if stored under its `_id` (replacing any previous version). */
  violatedIndex(doc: Doc): string | undefined {
    for (const index of this.uniqueIndexes) {
      const key = index.keyOf(doc);
      if (key === undefined) continue;
      const owner = index.owners.get(key);
      if (owner !== undefined && owner !== doc._id) return index.spec.name;
    }
    return undefined;
  }

  /** Stores `next` (new or replacing `previous`), keeping every unique index in step. */
  put(next: Doc, previous: Doc | undefined): void {
    if (previous) this.unindex(previous);
    this.docs.set(next._id, next);
    for (const index of this.uniqueIndexes) {
      const key = index.keyOf(next);
      if (key !== undefined) index.owners.set(key, next._id);
    }
  }

  remove(doc: Doc): void {
    this.unindex(doc);
    this.docs.delete(doc._id);
  }

  /** Adds a unique index over the stored documents; as in MongoDB, fails if they already break it. */
  addUniqueIndex(spec: IndexSpec): void {
    const index = new UniqueIndex(spec);
    for (const doc of this.docs.values()) {
      const key = index.keyOf(doc);
      if (key === undefined) continue;
      if (index.owners.has(key)) throw new DuplicateKeyError(spec.name);
      index.owners.set(key, doc._id);
    }
    this.uniqueIndexes.push(index);
  }

  /**
   * The documents that can match `filter`. When the filter fixes `_id`, or every field of a
   * non-partial unique index, to a plain value, at most one document can match and it is found
   * directly; otherwise every document is a candidate. Callers still test the whole filter.
   */
  candidates(filter: Filter): Iterable<Doc> {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    for (const index of this.uniqueIndexes) {
      if (index.isPartial) continue;
      const fields = Object.keys(index.spec.keys);
      if (!fields.every((field) => isPlainValue(filter[field]))) continue;
      const owner = index.owners.get(JSON.stringify(fields.map((field) => filter[field])));
      const doc = owner === undefined ? undefined : this.docs.get(owner);
      return doc ? [doc] : [];
    }
    return this.docs.values();
  }

  firstMatch(filter: Filter): Doc | undefined {
    const query = new Query(filter);
    for (const doc of this.candidates(filter)) if (query.test(doc)) return doc;
    return undefined;
  }

  allMatches(filter: Filter): Doc[] {
    const query = new Query(filter);
    return [...this.candidates(filter)].filter((doc) => query.test(doc));
  }

  private unindex(doc: Doc): void {
    for (const index of this.uniqueIndexes) {
      const key = index.keyOf(doc);
      if (key !== undefined && index.owners.get(key) === doc._id) index.owners.delete(key);
    }
  }
}

class EmbeddedStore implements DocumentStore {
  private readonly collections = new Map<string, CollectionState>();
  private readonly indexes: IndexSpec[] = [];
  private closed = false;

  constructor(
    initial: Snapshot,
    private readonly writer: SnapshotWriter | undefined,
  ) {
    for (const [name, docs] of Object.entries(initial.collections)) {
      const state = this.state(name);
      for (const doc of docs) state.docs.set(doc._id, doc);
    }
    for (const spec of initial.indexes) this.addIndex(spec);
  }

  collection<T extends { _id: string }>(name: string): DocumentCollection<T> {
    // Every method body runs synchronously up to `persist()`, so a check and the write it guards
    // (a unique index, a conditional update) can never interleave with another caller's.
    const store = this;
    return {
      async insertOne(doc: T): Promise<void> {
        store.assertOpen();
        const stored = jsonCopy(doc) as unknown as Doc;
        if (typeof stored._id !== 'string') throw new TypeError('document _id must be a string');
        const state = store.state(name);
        if (state.docs.has(stored._id)) throw new DuplicateKeyError(ID_INDEX);
        const violated = state.violatedIndex(stored);
        if (violated) throw new DuplicateKeyError(violated);
        state.put(stored, undefined);
        await store.persist();
      },

      async findOne(filter: Filter): Promise<T | null> {
        store.assertOpen();
        const found = store.state(name).firstMatch(filter);
        return found ? (jsonCopy(found) as unknown as T) : null;
      },

      async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
        store.assertOpen();
        let cursor = new Query(filter).find<Doc>([...store.state(name).candidates(filter)]);
        if (options.sort) cursor = cursor.sort(options.sort);
        // As in MongoDB, a limit of 0 means no limit.
        if (options.limit) cursor = cursor.limit(options.limit);
        return cursor.all().map((d) => jsonCopy(d) as unknown as T);
      },

      async updateOne(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }> {
        store.assertOpen();
        assertSupportedUpdate(update);
        const state = store.state(name);
        const current = state.firstMatch(filter);
        if (!current) return { matchedCount: 0 };
        if (applyTo(state, current, update)) await store.persist();
        return { matchedCount: 1 };
      },

      async updateMany(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }> {
        store.assertOpen();
        assertSupportedUpdate(update);
        const state = store.state(name);
        const matches = state.allMatches(filter);
        let changed = false;
        try {
          for (const current of matches) changed = applyTo(state, current, update) || changed;
        } finally {
          // The documents updated before a violation stay updated, as in MongoDB; they are persisted.
          if (changed) await store.persist();
        }
        return { matchedCount: matches.length };
      },

      async deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
        store.assertOpen();
        const state = store.state(name);
        const doc = state.firstMatch(filter);
        if (!doc) return { deletedCount: 0 };
        state.remove(doc);
        await store.persist();
        return { deletedCount: 1 };
      },

      async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
        store.assertOpen();
        const state = store.state(name);
        const matches = state.allMatches(filter);
        for (const doc of matches) state.remove(doc);
        if (matches.length > 0) await store.persist();
        return { deletedCount: matches.length };
      },
    };
  }

  async ensureIndexes(specs: readonly IndexSpec[]): Promise<void> {
    this.assertOpen();
    let added = false;
    for (const raw of specs) {
      const spec = jsonCopy(raw);
      // As in MongoDB, index names are per collection.
      const existing = this.indexes.find((i) => i.collection === spec.collection && i.name === spec.name);
      if (existing) {
        if (!sameIndex(existing, spec)) throw new Error(`index ${spec.name} already exists with a different definition`);
        continue;
      }
      this.addIndex(spec);
      added = true;
    }
    if (added) await this.persist();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.writer?.idle();
  }

  private addIndex(spec: IndexSpec): void {
    // Only unique indexes change behaviour; the others are kept so the file records the schema.
    if (spec.unique) this.state(spec.collection).addUniqueIndex(spec);
    this.indexes.push(spec);
  }

  private state(collection: string): CollectionState {
    let state = this.collections.get(collection);
    if (!state) {
      state = new CollectionState();
      this.collections.set(collection, state);
    }
    return state;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('document store is closed');
  }

  /**
   * Resolves once the change just made in memory is on disk. If that write fails the caller sees
   * the error while the change stays in memory (other callers may already have read it), and the
   * next successful write persists it.
   */
  private persist(): Promise<void> {
    return this.writer ? this.writer.flush(() => this.serialise()) : Promise.resolve();
  }

  private serialise(): string {
    const collections: Record<string, Doc[]> = {};
    for (const [name, state] of this.collections) collections[name] = [...state.docs.values()];
    const snapshot: Snapshot = { version: 1, collections, indexes: this.indexes };
    return JSON.stringify(snapshot);
  }
}

const isPlainValue = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/**
 * The value a unique index compares. As in MongoDB a missing field counts as null, so two documents
 * without the field clash unless the index is partial. Arrays would make MongoDB index every
 * element (multikey); the directory has no such index, so it is refused rather than approximated.
 */
function indexKey(spec: IndexSpec, doc: Doc): string {
  const values = Object.keys(spec.keys).map((field) => valueAt(spec, doc, field) ?? null);
  return JSON.stringify(values);
}

function valueAt(spec: IndexSpec, doc: Record<string, unknown>, dottedPath: string): unknown {
  let value: unknown = doc;
  for (const part of dottedPath.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
    if (Array.isArray(value)) {
      throw new Error(`embedded store: unique index ${spec.name} over an array value is not supported`);
    }
  }
  return value;
}

function sameIndex(a: IndexSpec, b: IndexSpec): boolean {
  const shape = (i: IndexSpec) =>
    JSON.stringify([i.collection, i.keys, i.unique ?? false, i.partialFilterExpression ?? null]);
  return shape(a) === shape(b);
}

/**
 * Applies `update` to `current` and stores the result; whether anything changed. Throws
 * `DuplicateKeyError`, leaving `current` as it was, when the result would break a unique index.
 */
function applyTo(state: CollectionState, current: Doc, update: UpdateSpec): boolean {
  const next = jsonCopy(current);
  const changed = applyUpdate(next, jsonCopy(update) as Parameters<typeof applyUpdate<Doc>>[1]);
  if (changed.length === 0) return false;
  const normalised = jsonCopy(next);
  if (normalised._id !== current._id) throw new Error("the field '_id' is immutable");
  const violated = state.violatedIndex(normalised);
  if (violated) throw new DuplicateKeyError(violated);
  state.put(normalised, current);
  return true;
}

/** MongoDB refuses replacement documents and unknown operators in `updateOne`; so does this store. */
function assertSupportedUpdate(update: UpdateSpec): void {
  const operators = Object.keys(update);
  if (operators.length === 0) throw new Error('update document is empty');
  for (const op of operators) {
    if (!SUPPORTED_UPDATE_OPERATORS.has(op)) throw new Error(`unsupported update operator ${op}`);
  }
}

/**
 * Writes snapshots to the file one at a time, each atomically (temporary file, fsync, rename), so a
 * crash leaves either the old or the new file and never a torn one. Changes that arrive while a
 * write is running share the next write instead of queueing one each.
 */
class SnapshotWriter {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private sequence = 0;

  constructor(private readonly file: string) {}

  /** Resolves once a snapshot taken after this call is on disk. */
  flush(serialise: () => string): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start(serialise);
    // The running write may have serialised the state before this change: wait for it, then write
    // again. A failed write is reported to its own callers and does not block the next one.
    const queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start(serialise);
      });
    this.queued = queued;
    return queued;
  }

  async idle(): Promise<void> {
    while (this.running || this.queued) {
      await (this.queued ?? this.running)?.catch(() => undefined);
    }
  }

  private start(serialise: () => string): Promise<void> {
    const json = serialise();
    const run = this.write(json).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async write(json: string): Promise<void> {
    const temp = `${this.file}.${process.pid}.${++this.sequence}.tmp`;
    try {
      const handle = await fs.open(temp, 'w');
      try {
        await handle.writeFile(json, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, this.file);
    } catch (err) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}

async function readSnapshot(file: string): Promise<Snapshot | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // A file that cannot be read is an error, never an empty store: starting empty would overwrite
  // the data on the next write.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new Error(`document store file ${file} is not valid JSON`, { cause });
  }
  if (!isSnapshot(parsed)) throw new Error(`document store file ${file} has an unknown format`);
  return parsed;
}

function isSnapshot(value: unknown): value is Snapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Snapshot>;
  return (
    v.version === 1 &&
    typeof v.collections === 'object' &&
    v.collections !== null &&
    Object.values(v.collections).every((docs) => Array.isArray(docs)) &&
    Array.isArray(v.indexes)
  );
}

/** Temporary files left by a crash mid-write; the real file is intact, so they are garbage. */
async function removeStaleTempFiles(file: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  for (const name of await fs.readdir(dir)) {
    if (name.startsWith(prefix) && name.endsWith('.tmp')) await fs.rm(path.join(dir, name), { force: true });
  }
}
