import { addCount, observeGauges, readBacklog } from '../metrics';
import type { SqlClient, SqlQueryable } from '../sql';
import { untraced } from '../tracing';
import { backoffMs } from '../backoff';
import { WAKE_UP, sleep } from './concurrency';
import { assertPublishable, logEventError, type CrmEvent, type EventBus } from './event-bus';
import { captureTraceContext } from './event-tracing';

/*
 * Transactional outbox. A producer writes its events into `outbox` in the same transaction as the
 * change they describe, so a commit never loses its event and a rollback never emits one. A relay
 * then publishes the rows in id order (UUIDv7, so creation order) and deletes them, keeping the
 * table small. Publishing is at least once: a crash between publish and delete publishes again,
 * and the bus drops the repeat by event id.
 */

/**
 * One statement (a DO block), because PGlite runs a single statement per query and migrations are
 * applied with query(). The created_at index answers "how old is the oldest unpublished event",
 * the relay's lag, without a scan when the relay is stuck behind a failing event.
 */
export const OUTBOX_MIGRATION_SQL = `DO $outbox$
BEGIN
  CREATE TABLE IF NOT EXISTS outbox (
    id uuid PRIMARY KEY,
    subject text NOT NULL,
    payload jsonb NOT NULL,
    headers jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz(3) NOT NULL DEFAULT now(),
    attempts int NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS outbox_created_at_idx ON outbox (created_at);
END
$outbox$`;

/** Rows per INSERT, well under Postgres's 65,535 bind parameters. */
const INSERT_CHUNK = 1000;

/**
 * Adds events to the outbox inside the caller's transaction. The active trace context is stored
 * with them, so consumers continue the trace of the request that caused the change even though a
 * relay publishes it later from its own loop.
 */
export async function writeOutbox(
  tx: SqlQueryable,
  events: readonly CrmEvent<object>[],
  /** An event's own trace context, when it is not the active one (a batch writes the events of many traces). */
  traceOf?: (event: CrmEvent<object>) => Record<string, string> | undefined,
): Promise<void> {
  if (events.length === 0) return;
  events.forEach(assertPublishable);
  const headers = JSON.stringify(captureTraceContext());
  for (let start = 0; start < events.length; start += INSERT_CHUNK) {
    const chunk = events.slice(start, start + INSERT_CHUNK);
    const params: unknown[] = [];
    const rows = chunk.map((event) => {
      const own = traceOf?.(event);
      params.push(event.id, event.type, JSON.stringify(event), own ? JSON.stringify(own) : headers);
      const n = params.length;
      return `($${n - 3}::uuid, $${n - 2}, $${n - 1}::jsonb, $${n}::jsonb)`;
    });
    await tx.query(`INSERT INTO outbox (id, subject, payload, headers) VALUES ${rows.join(', ')}`, params);
  }
}

export interface OutboxRelayErrorContext {
  /** The event whose publish failed; absent when the batch itself failed (database unavailable). */
  eventId?: string;
  subject?: string;
  /** Failed publishes of this event so far, this one included. */
  attempts?: number;
}

export interface OutboxRelayOptions {
  db: SqlClient;
  bus: EventBus;
  /** The bounded context whose outbox this is: the `crm.context` of its metrics. Default: the schema. */
  context?: string;
  /** Pause between polls when the outbox is empty. Default 250 ms. */
  pollIntervalMs?: number;
  /** Rows taken per batch. Default 100. */
  batchSize?: number;
  /** Longest pause after repeated failures. Default 10 s. */
  maxBackoffMs?: number;
  onError?: (error: unknown, context: OutboxRelayErrorContext) => void;
}

export interface OutboxRelay {
  /** Starts the loop; a second call while running does nothing. */
  start(): void;
  /** Ends the loop after the publish in progress, and waits for its batch to be recorded. */
  stop(): Promise<void>;
  /** Runs a batch now instead of at the next poll; called after a commit that wrote events. */
  nudge(): void;
}

interface OutboxRow {
  id: string;
  payload: CrmEvent;
  headers: Record<string, string>;
  attempts: number;
}

type BatchOutcome = 'drained' | 'more' | 'failed' | 'busy';

/** Serialises relays sharing one PGlite client within the process (see runUnlockedBatch). */
const pgliteBatches = new WeakMap<SqlClient, Promise<unknown>>();

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const batchSize = options.batchSize ?? 100;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const onError = options.onError ?? logEventError('outbox relay could not publish');
  const labels = { 'crm.context': options.context ?? db.schema };
  let unobserve: (() => void) | undefined;

  let loop: Promise<void> | undefined;
  let stopping = false;
  let idle: AbortController | undefined;
  let idleAcceptsNudge = false;
  let nudgedDuringBatch = false;

  /**
   * Publishes rows in order and stops at the first failure: that row and every later one stay in
   * the outbox. Where the bus can send a batch without waiting for each acknowledgement (NATS), it
   * does, a round trip for the batch rather than one per event; then, if the server refuses one
   * event of the batch and stores later ones, those are seen before its retry (their own repeat is
   * dropped by event id). Returns what was published and which row failed.
   */
  async function publishInOrder(rows: OutboxRow[]): Promise<{ published: string[]; failed?: OutboxRow }> {
    const published: string[] = [];
    if (bus.publishAll && rows.length > 1 && !stopping) {
      const outcomes = await bus.publishAll(rows.map((row) => ({ event: row.payload, headers: row.headers })));
      for (const [i, outcome] of outcomes.entries()) {
        const row = rows[i]!;
        if (outcome.status === 'rejected') {
          onError(outcome.reason, { eventId: row.id, subject: row.payload.type, attempts: row.attempts + 1 });
          return { published, failed: row };
        }
        published.push(row.id);
      }
      return { published };
    }
    for (const row of rows) {
      if (stopping) break;
      try {
        await bus.publish(row.payload, row.headers);
        published.push(row.id);
      } catch (error) {
        onError(error, { eventId: row.id, subject: row.payload.type, attempts: row.attempts + 1 });
        return { published, failed: row };
      }
    }
    return { published };
  }

  async function record(q: SqlQueryable, outcome: { published: string[]; failed?: OutboxRow }): Promise<void> {
    if (outcome.published.length > 0) {
      await q.query(`DELETE FROM outbox WHERE id = ANY($1::uuid[])`, [outcome.published]);
      addCount('crm.outbox.published', outcome.published.length, labels);
    }
    if (outcome.failed) await q.query(`UPDATE outbox SET attempts = attempts + 1 WHERE id = $1`, [outcome.failed.id]);
  }

  const classify = (rows: OutboxRow[], outcome: { published: string[]; failed?: OutboxRow }): BatchOutcome =>
    outcome.failed ? 'failed' : rows.length === batchSize ? 'more' : 'drained';

  /**
   * Postgres: rows are claimed with FOR UPDATE SKIP LOCKED inside a transaction that lasts until
   * they are published and deleted, so any number of replicas can run a relay. The transaction
   * advisory lock makes one relay per schema work at a time: with several claiming different rows
   * at once, a later event could be published before an earlier one.
   */
  async function runLockedBatch(): Promise<BatchOutcome> {
    return db.transaction(async (tx) => {
      // The lock and the claim in one round trip: the rows are read only once the lock is taken
      // (a one-time filter), and an empty outbox still answers one row saying whether it was.
      const { rows: claimed } = await tx.query<Omit<OutboxRow, 'id'> & { acquired: boolean; id: string | null }>(
        `WITH relay_lock AS (SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.outbox')) AS acquired)
         SELECT relay_lock.acquired, o.id, o.payload, o.headers, o.attempts
           FROM relay_lock LEFT JOIN LATERAL (
             SELECT id, payload, headers, attempts FROM outbox WHERE relay_lock.acquired ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
           ) o ON true
          ORDER BY o.id`,
        [batchSize],
      );
      if (!claimed[0]?.acquired) return 'busy';
      const rows = claimed.filter((row): row is OutboxRow & { acquired: boolean } => row.id !== null);
      const outcome = await publishInOrder(rows);
      await record(tx, outcome);
      return classify(rows, outcome);
    });
  }

  /**
   * PGlite: one connection, and an open transaction blocks every other query on it. Holding one
   * while publishing would stall the whole embedded database for the duration, and deadlock with
   * the in-process bus, whose handlers run inside publish() and query this same database. PGlite
   * lives in this process only, so relays on it are serialised here instead of by row locks.
   */
  async function runUnlockedBatch(): Promise<BatchOutcome> {
    const previous = pgliteBatches.get(db) ?? Promise.resolve();
    const batch = previous.catch(() => undefined).then(async () => {
      const { rows } = await db.query<OutboxRow>(`SELECT id, payload, headers, attempts FROM outbox ORDER BY id LIMIT $1`, [
        batchSize,
      ]);
      const outcome = await publishInOrder(rows);
      await record(db, outcome);
      return classify(rows, outcome);
    });
    pgliteBatches.set(db, batch);
    return batch;
  }

  async function runBatch(): Promise<BatchOutcome> {
    // A poll every 250 ms would otherwise start a trace of its own each time. Consumers still join
    // the producer's trace: its context travels in the row's headers.
    return untraced(() => (db.kind === 'pglite' ? runUnlockedBatch() : runLockedBatch()));
  }

  async function pause(ms: number, acceptsNudge: boolean): Promise<void> {
    if (stopping) return;
    idle = new AbortController();
    idleAcceptsNudge = acceptsNudge;
    await sleep(ms, idle.signal, { unref: true });
    idle = undefined;
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      nudgedDuringBatch = false;
      let outcome: BatchOutcome;
      try {
        outcome = await runBatch();
      } catch (error) {
        onError(error, {});
        outcome = 'failed';
      }
      if (stopping) break;
      if (outcome === 'failed') {
        // The bus or the database is failing: back off, and ignore nudges meanwhile, since every
        // committing request nudges and more attempts would not help.
        failures++;
        await pause(backoffMs(failures, pollIntervalMs, maxBackoffMs), false);
        continue;
      }
      failures = 0;
      if (outcome === 'more' || nudgedDuringBatch) continue;
      await pause(pollIntervalMs, true);
    }
  }

  return {
    start() {
      if (loop) return;
      stopping = false;
      loop = run();
      unobserve = observeGauges(async (observe) => {
        // On the created_at index.
        const backlog = await readBacklog(db, `SELECT created_at AS at FROM outbox ORDER BY created_at`);
        observe('crm.outbox.events', backlog.count, labels);
        observe('crm.outbox.oldest_age', backlog.oldestSeconds, labels);
      });
    },
    async stop() {
      stopping = true;
      unobserve?.();
      idle?.abort(WAKE_UP);
      await loop;
      loop = undefined;
    },
    nudge() {
      if (!loop || stopping) return;
      if (idle) {
        if (idleAcceptsNudge) idle.abort(WAKE_UP);
      } else {
        // The batch running now may have read the outbox before the nudger committed.
        nudgedDuringBatch = true;
      }
    },
  };
}
