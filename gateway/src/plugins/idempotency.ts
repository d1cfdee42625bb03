import { createHash } from 'node:crypto';
import { CrmError, type Logger, type RedisClient, canonicalJson } from '@crm/kit';

/**
 * The gateway's half of idempotency (gateway/README.md, "Idempotency"): a short record per
 * (workspace, Idempotency-Key) that answers a repeat at the edge (replay), refuses a concurrent
 * duplicate (409) and a different request under the same key (422). The owning service's record,
 * written in the transaction of the change, is what guarantees a change is never applied twice;
 * this one makes repeats cheap and concurrent duplicates visible.
 */
export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status?: number;
  /** The serialised response body, replayed as it was sent. */
  body?: string;
}

export interface IdempotencyStore {
  /** Claims the key for an in-flight request; returns the existing record when already claimed. */
  claim(scope: string, fingerprint: string): Promise<IdempotencyRecord | undefined>;
  complete(scope: string, record: IdempotencyRecord): Promise<void>;
  release(scope: string): Promise<void>;
}

export const REPLAY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim outlives any request (deadline 5 s) but frees a key whose gateway died. */
export const IN_FLIGHT_TTL_MS = 60 * 1000;
/** 1 to 255 visible ASCII characters (the OpenAPI description publishes this pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || !IDEMPOTENCY_KEY.test(header)) {
    throw CrmError.invalid('Idempotency-Key must be 1 to 255 visible ASCII characters, sent once', { header: 'Idempotency-Key' });
  }
  return header;
}

/** The request as the key promises it: method, path (either prefix) and body, key order aside. */
export function fingerprintRequest(method: string, path: string, body: unknown): string {
  const normalised = path.split('?')[0]!.replace(/^\/api(?=\/v1\/)/, '');
  return createHash('sha256').update(JSON.stringify([method, normalised, canonicalJson(body ?? null)])).digest('base64url');
}

export function createMemoryIdempotencyStore(now: () => number = Date.now): IdempotencyStore {
  const records = new Map<string, { record: IdempotencyRecord; expires: number }>();
  const live = (scope: string) => {
    const entry = records.get(scope);
    if (entry && entry.expires <= now()) records.delete(scope);
    return records.get(scope);
  };
  return {
    async claim(scope, fingerprint) {
      const existing = live(scope);
      if (existing) return existing.record;
      records.set(scope, { record: { fingerprint, state: 'in_flight' }, expires: now() + IN_FLIGHT_TTL_MS });
      if (records.size > 100_000) {
        for (const [key, entry] of records) if (entry.expires <= now()) records.delete(key);
      }
      return undefined;
    },
    async complete(scope, record) {
      records.set(scope, { record, expires: now() + REPLAY_TTL_MS });
    },
    async release(scope) {
      records.delete(scope);
    },
  };
}

/**
 * The Redis key of a scope, `<workspace id>:<Idempotency-Key>` (app.ts): the workspace is its hash
 * tag, so on a Redis Cluster a workspace's records live in the slot that holds its rate-limit
 * windows and send quota.
 */
export function idempotencyKeyOf(scope: string, prefix = 'crm:idem'): string {
  const colon = scope.indexOf(':');
  return colon < 0 ? `${prefix}:{${scope}}` : `${prefix}:{${scope.slice(0, colon)}}:${scope.slice(colon + 1)}`;
}

export function createRedisIdempotencyStore(redis: RedisClient, prefix = 'crm:idem'): IdempotencyStore {
  const keyOf = (scope: string) => idempotencyKeyOf(scope, prefix);
  return {
    async claim(scope, fingerprint) {
      const claim = JSON.stringify({ fingerprint, state: 'in_flight' } satisfies IdempotencyRecord);
      for (let attempt = 0; attempt < 3; attempt++) {
        if ((await redis.set(keyOf(scope), claim, 'PX', IN_FLIGHT_TTL_MS, 'NX')) === 'OK') return undefined;
        const existing = await redis.get(keyOf(scope));
        // Gone between the two calls (expired or released): try to claim again.
        if (existing) return JSON.parse(existing) as IdempotencyRecord;
      }
      throw new Error('idempotency key kept changing hands');
    },
    async complete(scope, record) {
      await redis.set(keyOf(scope), JSON.stringify(record), 'PX', REPLAY_TTL_MS);
    },
    async release(scope) {
      await redis.del(keyOf(scope));
    },
  };
}

/**
 * Redis first, this gateway's memory while Redis is down. The service-side record still prevents a
 * double application; without Redis, concurrent duplicates on different gateways serialise in the
 * service's database instead of being refused with 409.
 */
export function createResilientIdempotencyStore(primary: IdempotencyStore, fallback: IdempotencyStore, log: Logger): IdempotencyStore {
  let lastWarning = 0;
  const attempt = async <T>(operation: (store: IdempotencyStore) => Promise<T>): Promise<T> => {
    try {
      return await operation(primary);
    } catch (error) {
      if (Date.now() - lastWarning > 30_000) {
        lastWarning = Date.now();
        log.warn({ err: error }, 'idempotency: Redis unavailable, using this gateway instance only');
      }
      return operation(fallback);
    }
  };
  return {
    claim: (scope, fingerprint) => attempt((s) => s.claim(scope, fingerprint)),
    complete: (scope, record) => attempt((s) => s.complete(scope, record)),
    release: (scope) => attempt((s) => s.release(scope)),
  };
}
