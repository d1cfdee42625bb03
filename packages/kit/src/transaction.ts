import { setTimeout } from 'node:timers/promises';
import { CrmError } from './errors';
import { type CrmEvent, writeOutbox } from './events';
import { idempotent, nextIdempotencyStep } from './idempotency';
import type { ResourceSpec } from './resource';
import { type SqlClient, type SqlQueryable, pgErrorOf } from './sql';

/** Translates constraint violations into the domain's errors (the store layer owns SQL). */
export function translateDbError(spec: ResourceSpec, error: unknown): never {
  const pg = pgErrorOf(error);
  if (pg?.code === '23505') {
    const field = (pg.constraint && spec.uniqueConstraints?.[pg.constraint]) ?? undefined;
    throw new CrmError(
      'conflict',
      field ? `a ${spec.singular} with this ${field} already exists` : `${spec.singular} conflicts with an existing one`,
      field ? { field } : undefined,
    );
  }
  if (pg?.code === '40001' || pg?.code === '40P01') {
    throw new CrmError('conflict', 'the record was changed concurrently; retry the request');
  }
  throw error;
}

/** What a unit of work returns: its value, and the events its change publishes. */
export interface Outcome<T> {
  value: T;
  events: CrmEvent[];
}

export interface TransactionRunner {
  /**
   * Runs `work` in one transaction with its events written to the outbox before the commit, wakes
   * the relay after it, and translates constraint violations for `spec`. Under the request's
   * Idempotency-Key (kit/idempotency) it is one step of the request: a repeat of the request gets
   * this step's first answer and writes nothing. A transaction that lost a race is run again
   * (`retryLostRaces`) before it is reported as a conflict, so clients rarely see a 409 for a race
   * they could not cause.
   */
  run<T>(spec: ResourceSpec, workspaceId: string, work: (tx: SqlQueryable) => Promise<Outcome<T>>): Promise<T>;
}

/** A serialisation failure or a deadlock: the transaction lost a race, and running it again is safe. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 3;

/** The most a retry waits, times its number: long enough for the winner to commit on a busy machine. */
const RETRY_JITTER_MS = 50;

/**
 * Runs `attempt` (one whole transaction) again when it lost a race to another (serialisation
 * failure, deadlock), a few times, before the error escapes: two membership changes crossing a
 * contact deletion, say, should not become an error the client could not have caused. Each retry
 * first waits a random few milliseconds: at once, it would often take the first lock again before
 * the winner, which waits for that lock, could finish, and deadlock anew.
 */
export async function retryLostRaces<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const code = pgErrorOf(error)?.code;
      if (!(code && RETRYABLE.has(code) && n < ATTEMPTS)) throw error;
      await setTimeout(Math.random() * RETRY_JITTER_MS * n);
    }
  }
}

export interface OutboxCommitOptions {
  /** An event's own trace context, when it is not the active one (one transaction for many traces). */
  traceOf?: (event: CrmEvent<object>) => Record<string, string> | undefined;
}

/**
 * Commits a change and the events it publishes together: the work runs in one transaction, its
 * events go to the outbox before the commit, and the relay is woken after it (`afterCommit`), so an
 * event is published if and only if its change committed. A transaction that lost a race is run
 * again (`retryLostRaces`), so the work may run more than once: what it does outside its
 * transaction (a call to another service) must be safe to repeat.
 */
export interface OutboxCommit {
  /** Commits what `work` writes with the events it returns; resolves to those events. */
  (work: (tx: SqlQueryable) => Promise<CrmEvent[]>, options?: OutboxCommitOptions): Promise<CrmEvent[]>;
  /** The same, for work that also answers a value. */
  outcome<T>(work: (tx: SqlQueryable) => Promise<Outcome<T>>, options?: OutboxCommitOptions): Promise<Outcome<T>>;
}

export function createOutboxCommit(db: SqlClient, afterCommit?: () => void): OutboxCommit {
  async function outcome<T>(work: (tx: SqlQueryable) => Promise<Outcome<T>>, options?: OutboxCommitOptions): Promise<Outcome<T>> {
    const done = await retryLostRaces(() =>
      db.transaction(async (tx) => {
        const result = await work(tx);
        await writeOutbox(tx, result.events, options?.traceOf);
        return result;
      }),
    );
    if (done.events.length) afterCommit?.();
    return done;
  }
  const commit = async (work: (tx: SqlQueryable) => Promise<CrmEvent[]>, options?: OutboxCommitOptions) =>
    (await outcome(async (tx) => ({ value: undefined, events: await work(tx) }), options)).events;
  return Object.assign(commit, { outcome });
}

export function createTransactionRunner(db: SqlClient, afterCommit?: () => void): TransactionRunner {
  const commit = createOutboxCommit(db, afterCommit);
  return {
    async run<T>(spec: ResourceSpec, workspaceId: string, work: (tx: SqlQueryable) => Promise<Outcome<T>>): Promise<T> {
      // One step of the request's Idempotency-Key, whatever the number of attempts.
      const step = nextIdempotencyStep();
      try {
        const outcome = await commit.outcome((tx) =>
          idempotent<Outcome<T>>(tx, workspaceId, () => work(tx), {
            step,
            codec: { store: (done) => done.value, restore: (value) => ({ value: value as T, events: [] }) },
          }),
        );
        return outcome.value;
      } catch (error) {
        translateDbError(spec, error);
      }
    },
  };
}
