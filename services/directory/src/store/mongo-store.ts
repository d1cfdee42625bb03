import { MongoClient, MongoServerError, type Collection, type Document, type MongoClientOptions } from 'mongodb';
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

export interface MongoStoreOptions {
  url: string;
  dbName: string;
  /** Passed to the driver (timeouts, pool size, TLS); `ignoreUndefined` is always on. */
  clientOptions?: MongoClientOptions;
}

const DUPLICATE_KEY = 11000;

type StringIdDocument = Document & { _id: string };

/** Connects to MongoDB and returns the directory's document store over one database. */
export async function createMongoStore(options: MongoStoreOptions): Promise<DocumentStore> {
  // Undefined fields are dropped, as in the embedded store's JSON, rather than stored as null.
  const client = new MongoClient(options.url, { ...options.clientOptions, ignoreUndefined: true });
  await client.connect();
  const db = client.db(options.dbName);

  return {
    collection<T extends { _id: string }>(name: string): DocumentCollection<T> {
      // Documents are typed by the caller's `T`; the driver only needs to know `_id` is a string.
      const coll = db.collection<StringIdDocument>(name);
      return {
        async insertOne(doc: T): Promise<void> {
          await translateDuplicateKey(() => coll.insertOne(doc));
        },
        async findOne(filter: Filter): Promise<T | null> {
          return (await coll.findOne(filter)) as T | null;
        },
        async find(filter: Filter, findOptions: FindOptions = {}): Promise<T[]> {
          let cursor = coll.find(filter);
          if (findOptions.sort) cursor = cursor.sort({ ...findOptions.sort });
          if (findOptions.limit) cursor = cursor.limit(findOptions.limit);
          return (await cursor.toArray()) as T[];
        },
        async updateOne(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }> {
          const result = await translateDuplicateKey(() => coll.updateOne(filter, update as Document));
          return { matchedCount: result.matchedCount };
        },
        async updateMany(filter: Filter, update: UpdateSpec): Promise<{ matchedCount: number }> {
          const result = await translateDuplicateKey(() => coll.updateMany(filter, update as Document));
          return { matchedCount: result.matchedCount };
        },
        async deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
          const result = await coll.deleteOne(filter);
          return { deletedCount: result.deletedCount };
        },
        async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
          const result = await coll.deleteMany(filter);
          return { deletedCount: result.deletedCount };
        },
      };
    },

    async ensureIndexes(specs: readonly IndexSpec[]): Promise<void> {
      for (const spec of specs) {
        const coll: Collection<Document> = db.collection(spec.collection);
        await translateDuplicateKey(() =>
          coll.createIndex(
            { ...spec.keys },
            {
              name: spec.name,
              unique: spec.unique ?? false,
              ...(spec.partialFilterExpression ? { partialFilterExpression: spec.partialFilterExpression } : {}),
            },
          ),
        );
      }
    },

    async close(): Promise<void> {
      await client.close();
    },
  };
}

async function translateDuplicateKey<R>(operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) throw new DuplicateKeyError(indexName(err));
    throw err;
  }
}

/**
 * The violated index's name. Servers report it only inside the message
 * ("E11000 duplicate key error collection: db.users index: users_email_unique dup key: {...}");
 * `keyPattern` is the fallback for servers that phrase it differently.
 */
function indexName(err: MongoServerError): string {
  const match = /index: (\S+) dup key/.exec(err.message);
  if (match?.[1]) return match[1];
  const keyPattern = err.keyPattern as Record<string, unknown> | undefined;
  if (keyPattern && Object.keys(keyPattern).length === 1 && '_id' in keyPattern) return ID_INDEX;
  return keyPattern ? Object.entries(keyPattern).map(([k, v]) => `${k}_${String(v)}`).join('_') : 'unknown';
}
