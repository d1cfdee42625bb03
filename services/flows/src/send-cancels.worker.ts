import { type Clock, CrmError, type Logger, type ServiceClient, type SqlClient, type Worker, backoffMs, createWaker, untraced } from '@crm/kit';
import type { MessagingServiceDefinition } from '@crm/proto';

/**
 * Cancels the sends of exited enrollments at messaging (gateway/README.md, Flows, "Exits": an exit
 * cancels the pending step, including an email queued and not yet delivered). An exit writes its
 * cancels to `pending_cancels` in its own transaction; this worker calls CancelSend (idempotent)
 * for each and removes the row once messaging answered, so a cancel survives a crash and a
 * messaging outage. A send already handed to SMTP is not recalled: messaging answers
 * `canceled: false`.
 */
export interface SendCancelsWorker extends Worker {
  wake(): void;
  /** One pass over what is pending; how many were settled. */
  drain(): Promise<number>;
}

const BATCH = 100;
const CONCURRENCY = 8;

export function createSendCancelsWorker(options: {
  db: SqlClient;
  messaging: ServiceClient<MessagingServiceDefinition>;
  clock: Clock;
  log: Logger;
  pollMs: number;
}): SendCancelsWorker {
  const { db, messaging, clock, log } = options;
  const waker = createWaker(clock);

  async function drain(): Promise<number> {
    // The poll is untraced (it runs every few seconds); each cancel it finds is traced.
    const { rows } = await untraced(() =>
      db.query<{ workspace_id: string; sent_email_id: string; reason: string }>(
        `SELECT workspace_id, sent_email_id, reason FROM pending_cancels ORDER BY created_at LIMIT $1 -- all workspaces: the worker serves every tenant`,
        [BATCH],
      ),
    );
    let settled = 0;
    let next = 0;
    let failed: unknown;
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, rows.length) }, async () => {
        while (next < rows.length) {
          const row = rows[next++]!;
          try {
            await messaging.call('CancelSend', { workspace_id: row.workspace_id, sent_email_id: row.sent_email_id, reason: row.reason }, { deadlineMs: 10_000 });
          } catch (error) {
            // A send messaging does not know (its queueing never committed) has nothing to cancel.
            if (!(error instanceof CrmError && error.code === 'not_found')) {
              failed = error;
              continue;
            }
          }
          await db.query(`DELETE FROM pending_cancels WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`, [row.workspace_id, row.sent_email_id]);
          settled++;
        }
      }),
    );
    if (failed) throw failed;
    return settled;
  }

  return {
    name: 'flow-send-cancels',
    drain,
    wake: () => waker.wake(),
    async run(signal) {
      let failures = 0;
      while (!signal.aborted) {
        let settled = 0;
        try {
          settled = await drain();
          failures = 0;
        } catch (error) {
          failures++;
          if (failures === 1 || failures % 20 === 0) log.warn({ err: error, failures }, 'send cancels: messaging did not answer; retrying');
        }
        if (signal.aborted) break;
        if (failures) {
          // Backing off from messaging: a new exit does not shorten the wait.
          await clock.sleep(backoffMs(failures, 500, 30_000), signal);
        } else if (settled < BATCH) {
          await waker.idle(options.pollMs, signal);
        }
      }
    },
  };
}
