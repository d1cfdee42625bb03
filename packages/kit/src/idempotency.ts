import { AsyncLocalStorage } from 'node:async_hooks';
import { CrmError } from './errors';
import type { SqlQueryable } from './sql';

/**
 * Service-side idempotency (gateway/README.md, "Idempotency"), one mechanism for the API and for
 * calls between services. A caller sends a key and a fingerprint of its request in gRPC metadata:
 * the gateway forwards a client's Idempotency-Key; a service calling a peer sends its own key (the
 * flow engine's `{enrollment_id}:{node_id}:{visit}`) with its name as the origin, so the two key
 * spaces never meet (a client's key is visible ASCII without spaces; a peer's is stored as
 * `<origin> <key>`).
 *
 * A request claims its key once: the first transaction it runs inserts the key's record with the
 * fingerprint. Every transaction of the request records its answer under the key with its ordinal
 * (step 0, 1, ...), in the same transaction as its change. A retry after any failure, even a 500
 * after the commits, runs the handler again: each transaction whose step is recorded returns the
 * recorded answer without running, the rest run. A handler that runs two transactions therefore
 * never gets the first answer in place of the second, and a crash between them resumes where it
 * stopped. Concurrent duplicates serialise on the record's row lock; the second then replays.
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
/** The calling service, for keys chosen by a service rather than a client. */
export const IDEMPOTENCY_ORIGIN_METADATA = 'crm-idempotency-origin';
export const IDEMPOTENT_REPLAYED_METADATA = 'crm-idempotent-replayed';

/** The most characters of a key, a client's or a service's. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const ORIGIN = /^[a-z][a-z0-9_-]{0,31}$/;

interface IdempotencyScope {
  /** The key as stored: the client's key, or `<origin> <key>`. */
  key: string;
  fingerprint: string;
  nextStep: number;
  replayedSteps: number;
  executedSteps: number;
}

const storage = new AsyncLocalStorage<IdempotencyScope>();

export interface IdempotencyClaim {
  key?: string;
  fingerprint?: string;
  /** The calling service, when a service chose the key. */
  origin?: string;
}

/**
 * Runs a request's handling under the key it carried (if any). `replayed()` tells, afterwards,
 * whether the answer came entirely from records (nothing was applied by this call).
 */
export function withIdempotencyKey<T>(claim: IdempotencyClaim, work: () => Promise<T>): { replayed: () => boolean; result: Promise<T> } {
  if (!claim.key) return { replayed: () => false, result: work() };
  if (claim.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return { replayed: () => false, result: Promise.reject(CrmError.invalid(`an idempotency key is at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`)) };
  }
  if (claim.origin !== undefined && !ORIGIN.test(claim.origin)) {
    return { replayed: () => false, result: Promise.reject(CrmError.invalid('malformed idempotency origin')) };
  }
  const scope: IdempotencyScope = {
    key: claim.origin ? `${claim.origin} ${claim.key}` : claim.key,
    fingerprint: claim.fingerprint ?? '',
    nextStep: 0,
    replayedSteps: 0,
    executedSteps: 0,
  };
  return { replayed: () => scope.replayedSteps > 0 && scope.executedSteps === 0, result: storage.run(scope, work) };
}

/** Refuses a call that must be safe to repeat (a service's side effect) but carries no key. */
export function requireIdempotencyKey(): void {
  if (!storage.getStore()) throw CrmError.invalid('this call needs an idempotency key (crm-idempotency-key metadata)');
}

/**
 * The ordinal of the request's next unit of work, or undefined outside a keyed request. Taken
 * once per unit, outside its retries (a deadlock retry is the same step).
 */
export function nextIdempotencyStep(): number | undefined {
  const scope = storage.getStore();
  return scope ? scope.nextStep++ : undefined;
}

export interface AnswerCodec<T> {
  /** The part of the result that is the answer to store (JSON). */
  store(result: T): unknown;
  /** The result to return for a stored answer. */
  restore(answer: unknown): T;
}

const asIs: AnswerCodec<any> = { store: (result) => result, restore: (answer) => answer };

/** Stored answers: `{steps: [answer0, answer1, ...]}`; records written before steps held `{value}`. */
type StoredResponse = { steps?: unknown[]; value?: unknown } | null;
const stepsOf = (response: StoredResponse): unknown[] =>
  response?.steps ?? (response && 'value' in response ? [response.value] : []);

/**
 * Inside a write transaction: the request's unit of work number `step` (nextIdempotencyStep). Runs
 * `work` and records its answer under the request's key, or returns the answer recorded for this
 * step by an earlier attempt without running `work`. Outside a keyed request it only runs `work`.
 */
export async function idempotent<T>(
  tx: SqlQueryable,
  workspaceId: string,
  work: () => Promise<T>,
  options: { step?: number; codec?: AnswerCodec<T> } = {},
): Promise<T> {
  const scope = storage.getStore();
  if (!scope) return work();
  const step = options.step ?? scope.nextStep++;
  const codec = options.codec ?? asIs;
  // Claims the key on the request's first unit of work: a row this statement inserts is this
  // transaction's until it ends (a concurrent duplicate waits on it in the unique index). A key
  // already there is read under its row lock, after the transaction holding it has finished.
  const { rows: claimed } = await tx.query<{ fingerprint: string; response: StoredResponse }>(
    `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response) VALUES ($1, $2, $3, '{"steps": []}'::jsonb)
     ON CONFLICT (workspace_id, key) DO NOTHING
     RETURNING fingerprint, response`,
    [workspaceId, scope.key, scope.fingerprint],
  );
  const record =
    claimed[0] ??
    (
      await tx.query<{ fingerprint: string; response: StoredResponse }>(
        `SELECT fingerprint, response FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 FOR UPDATE`,
        [workspaceId, scope.key],
      )
    ).rows[0]!;
  if (record.fingerprint !== scope.fingerprint) {
    throw new CrmError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', {
      idempotency_key: scope.key.slice(scope.key.indexOf(' ') + 1),
    });
  }
  const steps = stepsOf(record.response);
  if (step < steps.length) {
    scope.replayedSteps++;
    return codec.restore(steps[step] ?? undefined);
  }
  const value = await work();
  const recorded = [...steps];
  recorded[step] = codec.store(value) ?? null;
  await tx.query(`UPDATE idempotency_keys SET response = $3::jsonb WHERE workspace_id = $1 AND key = $2`, [
    workspaceId,
    scope.key,
    JSON.stringify({ steps: Array.from(recorded, (answer) => answer ?? null) }),
  ]);
  scope.executedSteps++;
  return value;
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

/**
 * Many requests' keys at once, for a batch call that carries one key per item (messaging's
 * QueueSends): each item is handled as the one call with its key would be. A batch handles the
 * items whose key is new in one transaction (`claimIdempotencyKeys`, then its writes, then
 * `recordIdempotentAnswers`), and each of the others through the one-call path under
 * `withIdempotencyKey`, which replays its answer or refuses a reused key.
 */
export interface BatchIdempotencyKey {
  workspaceId: string;
  /** The key as stored (`storedIdempotencyKey`). */
  key: string;
  fingerprint: string;
}

/** The key as stored for a caller's key and origin, or the invalid_request one call would get. */
export function storedIdempotencyKey(claim: { key: string; origin?: string }): string {
  if (!claim.key) throw CrmError.invalid('this call needs an idempotency key');
  if (claim.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw CrmError.invalid(`an idempotency key is at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  if (claim.origin !== undefined && !ORIGIN.test(claim.origin)) throw CrmError.invalid('malformed idempotency origin');
  return claim.origin ? `${claim.origin} ${claim.key}` : claim.key;
}

const keyPairs = (keys: readonly BatchIdempotencyKey[]) => [keys.map((k) => k.workspaceId), keys.map((k) => k.key)];
const pairOf = (workspaceId: string, key: string) => `${workspaceId} ${key}`;

/** Which of the keys have a record already (answered, or held by a transaction under way): `workspace key` pairs. */
export async function existingIdempotencyKeys(db: SqlQueryable, keys: readonly BatchIdempotencyKey[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const { rows } = await db.query<{ workspace_id: string; key: string }>(
    `SELECT k.workspace_id, k.key FROM idempotency_keys k
       JOIN unnest($1::uuid[], $2::text[]) AS given (workspace_id, key) ON k.workspace_id = given.workspace_id AND k.key = given.key`,
    keyPairs(keys),
  );
  return new Set(rows.map((row) => pairOf(row.workspace_id, row.key)));
}

/** The pair `existingIdempotencyKeys` and `claimIdempotencyKeys` name a key by. */
export const idempotencyPair = (key: BatchIdempotencyKey): string => pairOf(key.workspaceId, key.key);

/**
 * Inside the batch's transaction: claims the keys no record holds yet (in key order, so two
 * batches cannot deadlock on each other's) and returns the claimed pairs. A key another
 * transaction claimed meanwhile is left out: its item goes the one-call way after this commits.
 */
export async function claimIdempotencyKeys(tx: SqlQueryable, keys: readonly BatchIdempotencyKey[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const sorted = [...keys].sort((a, b) => (a.workspaceId + a.key < b.workspaceId + b.key ? -1 : 1));
  const { rows } = await tx.query<{ workspace_id: string; key: string }>(
    `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response)
     SELECT workspace_id, key, fingerprint, '{"steps": []}'::jsonb FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS given (workspace_id, key, fingerprint, n)
      ORDER BY n
     ON CONFLICT (workspace_id, key) DO NOTHING
     RETURNING workspace_id, key`,
    [...keyPairs(sorted), sorted.map((k) => k.fingerprint)],
  );
  return new Set(rows.map((row) => pairOf(row.workspace_id, row.key)));
}

/** Inside the same transaction: each claimed key's answer, as its request's only unit of work (step 0). */
export async function recordIdempotentAnswers(tx: SqlQueryable, answers: readonly { key: BatchIdempotencyKey; answer: unknown }[]): Promise<void> {
  if (!answers.length) return;
  await tx.query(
    `UPDATE idempotency_keys k SET response = jsonb_build_object('steps', jsonb_build_array(given.answer))
       FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) AS given (workspace_id, key, answer)
      WHERE k.workspace_id = given.workspace_id AND k.key = given.key`,
    [...keyPairs(answers.map((a) => a.key)), answers.map((a) => JSON.stringify(a.answer ?? null))],
  );
}
