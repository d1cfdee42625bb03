import { AsyncLocalStorage } from 'node:async_hooks';
import { CrmError } from './errors';
import type { SqlQueryable } from './sql';

/**
 * Service-side idempotency (DESIGN.md, Idempotency). The gateway forwards `Idempotency-Key` and its
 * fingerprint of the request in gRPC metadata; the owning service records the key in the same
 * transaction as the change, with the answer it gave. A retry after any failure (even a 500 after
 * the commit) finds the record and gets the first answer back instead of applying the change again.
 * Concurrent duplicates serialise on the record's primary key: the second waits for the first
 * transaction and then replays its answer.
 */
export const IDEMPOTENCY_MIGRATION_SQL = `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    workspace_id uuid NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    response jsonb,
    created_at timestamptz(3) NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_created_at_idx ON idempotency_keys (created_at);
`;

/** How long a key is honoured; older records are removed by `pruneIdempotencyKeys`. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_KEY_METADATA = 'crm-idempotency-key';
export const IDEMPOTENCY_FINGERPRINT_METADATA = 'crm-idempotency-fingerprint';
export const IDEMPOTENT_REPLAYED_METADATA = 'crm-idempotent-replayed';

interface IdempotencyScope {
  key: string;
  fingerprint: string;
  replayed: boolean;
}

const storage = new AsyncLocalStorage<IdempotencyScope>();

/** Runs a request's handling with the idempotency key it carried (if any). */
export function withIdempotencyKey<T>(key: string | undefined, fingerprint: string | undefined, work: () => Promise<T>) {
  if (!key) return { replayed: () => false, result: work() };
  const scope: IdempotencyScope = { key, fingerprint: fingerprint ?? '', replayed: false };
  return { replayed: () => scope.replayed, result: storage.run(scope, work) };
}

export interface AnswerCodec<T> {
  /** The part of the result that is the answer to store (JSON). */
  store(result: T): unknown;
  /** The result to return for a stored answer. */
  restore(answer: unknown): T;
}

const asIs: AnswerCodec<any> = { store: (result) => result, restore: (answer) => answer };

/**
 * Inside a write transaction: claims the request's key and runs `work`, storing its answer, or,
 * when the key was already used, returns the stored answer without running `work`.
 */
export async function idempotent<T>(
  tx: SqlQueryable,
  workspaceId: string,
  work: () => Promise<T>,
  codec: AnswerCodec<T> = asIs,
): Promise<T> {
  const scope = storage.getStore();
  if (!scope) return work();
  const claimed = await tx.query(
    `INSERT INTO idempotency_keys (workspace_id, key, fingerprint) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, key) DO NOTHING RETURNING key`,
    [workspaceId, scope.key, scope.fingerprint],
  );
  if (claimed.rows.length) {
    const value = await work();
    await tx.query(`UPDATE idempotency_keys SET response = $3::jsonb WHERE workspace_id = $1 AND key = $2`, [
      workspaceId,
      scope.key,
      JSON.stringify({ value: codec.store(value) ?? null }),
    ]);
    return value;
  }
  const { rows } = await tx.query<{ fingerprint: string; response: { value: unknown } | null }>(
    `SELECT fingerprint, response FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
    [workspaceId, scope.key],
  );
  const previous = rows[0]!;
  if (previous.fingerprint !== scope.fingerprint) {
    throw new CrmError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', {
      idempotency_key: scope.key,
    });
  }
  scope.replayed = true;
  return codec.restore(previous.response?.value ?? undefined);
}

/** Removes records older than the TTL; services call it periodically. */
export async function pruneIdempotencyKeys(db: SqlQueryable, ttlMs = IDEMPOTENCY_TTL_MS): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < $1`, [new Date(Date.now() - ttlMs).toISOString()]);
  return rowCount;
}

/** Prunes expired Idempotency-Key records every `intervalMs` (hourly by default) until stopped. */
export function startIdempotencyPruner(db: SqlQueryable, onError: (error: unknown) => void, intervalMs = 60 * 60 * 1000): () => void {
  const timer = setInterval(() => {
    pruneIdempotencyKeys(db).catch(onError);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
