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
   * this step's first answer and writes nothing. A deadlock
   * or serialisation failure (two membership changes crossing a contact deletion, say) is retried a
   * few times before it is reported as a conflict, so clients rarely see a 409 for a race they
   * could not cause.
   */
  run<T>(spec: ResourceSpec, workspaceId: string, work: (tx: SqlQueryable) => Promise<Outcome<T>>): Promise<T>;
}

const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 3;

export function createTransactionRunner(db: SqlClient, afterCommit?: () => void): TransactionRunner {
  return {
    async run<T>(spec: ResourceSpec, workspaceId: string, work: (tx: SqlQueryable) => Promise<Outcome<T>>): Promise<T> {
      // One step of the request's Idempotency-Key, whatever the number of attempts below.
      const step = nextIdempotencyStep();
      for (let attempt = 1; ; attempt++) {
        try {
          const outcome = await db.transaction((tx) =>
            idempotent<Outcome<T>>(
              tx,
              workspaceId,
              async () => {
                const done = await work(tx);
                if (done.events.length) await writeOutbox(tx, done.events);
                return done;
              },
              { step, codec: { store: (done) => done.value, restore: (value) => ({ value: value as T, events: [] }) } },
            ),
          );
          if (outcome.events.length) afterCommit?.();
          return outcome.value;
        } catch (error) {
          const code = pgErrorOf(error)?.code;
          if (code && RETRYABLE.has(code) && attempt < ATTEMPTS) continue;
          translateDbError(spec, error);
        }
      }
    },
  };
}
