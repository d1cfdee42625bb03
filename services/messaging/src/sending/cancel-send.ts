import type { CrmEvent, SqlQueryable } from '@crm/kit';
import { SEND_COLUMNS, type SendRow, markFailed, sendRow } from '../send-lifecycle.store';

/** What a cancellation came to: the send's status after it, and the events to publish. */
export interface Cancellation {
  canceled: boolean;
  status: string;
  events: CrmEvent[];
}

/**
 * Cancels a queued send that has not been handed to its SMTP server: it ends `failed` with
 * `failure_reason` `canceled: <reason>` (gateway/README.md, Messaging, "Exit wins at send time").
 * The caller holds the send's row lock; this takes its delivery row's, in the delivery worker's
 * order (send, then delivery). A send already handed over, or finished, is too late to recall.
 */
export async function cancelQueuedSend(tx: SqlQueryable, send: SendRow, reason: string): Promise<Cancellation> {
  const { rows } = await tx.query<{ state: string }>(
    `SELECT state FROM deliveries WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid FOR UPDATE`,
    [send.workspace_id, send.id],
  );
  if (send.status !== 'queued' || rows[0]?.state === 'committed') return { canceled: false, status: send.status, events: [] };
  return { canceled: true, status: 'failed', events: await markFailed(tx, send, `canceled: ${reason}`.slice(0, 255)) };
}

/**
 * Cancels every queued send to a contact (a one-off send and a flow's alike), locked in the
 * delivery worker's order (owner, then send) so the two cannot deadlock on each other.
 */
export async function cancelQueuedSendsOf(tx: SqlQueryable, workspaceId: string, contactId: string, reason: string): Promise<Cancellation[]> {
  const { rows } = await tx.query(
    `SELECT ${SEND_COLUMNS} FROM sent_emails WHERE workspace_id = $1::uuid AND contact_id = $2::uuid AND status = 'queued'
      ORDER BY owner_id NULLS FIRST, id FOR UPDATE`,
    [workspaceId, contactId],
  );
  const cancellations: Cancellation[] = [];
  for (const row of rows) cancellations.push(await cancelQueuedSend(tx, sendRow(row), reason));
  return cancellations;
}
