import {
  type CrmEvent,
  type ResourceSpec,
  type SqlClient,
  type SqlQueryable,
  idempotent,
  pgErrorOf,
  translateDbError,
  writeOutbox,
} from '@crm/kit';

/** What a unit of work returns: its value, and the events its change publishes. */
export interface Outcome<T> {
  value: T;
  events: CrmEvent[];
}

export interface TransactionRunner {
  /**
   * Runs `work` in one transaction with its events written to the outbox before the commit, wakes
   * the relay after it, and translates constraint violations for `spec`. Under the request's
   * Idempotency-Key (kit/idempotency) a repeat gets the first answer and writes nothing. A deadlock
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
              { store: (done) => done.value, restore: (value) => ({ value: value as T, events: [] }) },
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
