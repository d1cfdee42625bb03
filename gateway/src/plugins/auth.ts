import { createHash } from 'node:crypto';
import { CrmError } from '@crm/kit';
import type { FastifyRequest } from 'fastify';

/** Who is calling, as the directory resolved the API key. */
export interface Principal {
  workspaceId: string;
  keyId: string;
  scopes: readonly string[];
  userId?: string;
}

/** Resolves an API key to its principal; rejects with CrmError (unauthorized, unavailable...). */
export type ResolveKey = (key: string) => Promise<Principal>;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Shape only; the checksum and everything else is the directory's to judge. */
const KEY_SHAPE = /^svc_[a-z][a-z0-9]{0,15}_[A-Za-z0-9_-]{32}$/;

export interface AuthCacheOptions {
  /** How long a resolved key is trusted: a revoked key stops working within this time. */
  ttlMs: number;
  /** How long a refusal is remembered, so a flood of bad keys does not reach the directory. */
  negativeTtlMs: number;
  maxEntries: number;
}

export const DEFAULT_AUTH_CACHE: AuthCacheOptions = { ttlMs: 4_000, negativeTtlMs: 2_000, maxEntries: 10_000 };

type Entry = { expires: number; outcome: Promise<Principal>; resolved?: boolean };

/** The cache is also the gateway's fallback for readiness while the directory does not answer. */
export interface KeyCache extends ResolveKey {
  /** Whether a key resolved by the directory is still trusted: requests with it can be served. */
  warm(): boolean;
}

/**
 * A short-lived cache in front of the directory, keyed by a hash of the key (the key itself is never
 * held as a map key or logged). Concurrent requests with one key share a single lookup. Only
 * definite answers are cached: a directory outage is retried on the next request.
 */
export function createKeyCache(resolve: ResolveKey, options: AuthCacheOptions = DEFAULT_AUTH_CACHE, clock: () => number = Date.now): KeyCache {
  const entries = new Map<string, Entry>();
  const lookup: ResolveKey = (key) => {
    const id = createHash('sha256').update(key).digest('base64url');
    const now = clock();
    const hit = entries.get(id);
    if (hit && hit.expires > now) return hit.outcome;
    entries.delete(id);
    const outcome = resolve(key);
    const entry: Entry = { expires: now + options.ttlMs, outcome };
    entries.set(id, entry);
    outcome.then(
      () => {
        entry.resolved = true;
      },
      () => undefined,
    );
    outcome.catch((error: unknown) => {
      if (error instanceof CrmError && error.code === 'unauthorized') entry.expires = clock() + options.negativeTtlMs;
      else entries.delete(id);
    });
    if (entries.size > options.maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    return outcome;
  };
  const warm = () => {
    const now = clock();
    for (const entry of entries.values()) if (entry.resolved && entry.expires > now) return true;
    return false;
  };
  return Object.assign(lookup, { warm });
}

export async function authenticate(request: FastifyRequest, resolve: ResolveKey): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) throw new CrmError('unauthorized', 'missing API key: send Authorization: Bearer <API_KEY>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new CrmError('unauthorized', 'Authorization header must be "Bearer <API_KEY>"');
  const key = match[1]!;
  if (!KEY_SHAPE.test(key)) throw new CrmError('unauthorized', 'invalid API key');
  const principal = await resolve(key);
  request.principal = principal;
  return principal;
}
