import { createHash } from 'node:crypto';
import { type Clock, type CrmEvent, type Logger, type SqlClient, type SqlQueryable, addCount, createOutboxCommit, newEvent } from '@crm/kit';
import { MessagingError, MessagingErrorCode } from '@crm/messaging-contract';
import { MessagingEvents } from '@crm/proto';
import { InboundError, type InboundMail, createMailClassifier, stripQuoted } from './mail-classifier';
import { dateHeaderOf, readReturnDate, utcOffsetOfDate } from './out-of-office';
import { type SendRow, findSend, markBounced, recordEmailEvent, recordTouchpoint } from '../send-lifecycle.store';

/**
 * Inbound mail (gateway/README.md, Messaging, "Inbound mail"), one handler behind the SMTP listener
 * on INBOUND_SMTP_ADDR and the IngestMail RPC:
 * - a reply (In-Reply-To / References name one of our Message-IDs): a `reply` event of that send
 *   and an inbound email touchpoint;
 * - an auto-reply (RFC 3834 and the usual markers): an inbound touchpoint, not a reply, and an
 *   `auto_reply.received` with the day the person is back when the reply names one
 *   (`out-of-office.ts`), for flows to pause the contact's enrollments until then;
 * - a delivery status notification (RFC 3464) of a failed delivery: the send becomes bounced with a
 *   `bounce` event; 5.x.x is hard and suppresses the address, 4.x.x soft; `delayed` is no bounce;
 * - anything else is unmatched: kept nowhere, logged once.
 * A message handled already (the same Message-ID, delivered again after a lost 250) changes nothing.
 */
export interface IngestResult {
  kind: InboundMail['kind'];
  sentEmailId?: string;
}

export interface Inbound {
  ingest(raw: Buffer, envelopeRecipients?: readonly string[]): Promise<IngestResult>;
}

export function createInbound(deps: { db: SqlClient; mailDomain: string; clock: Clock; log: Logger; afterCommit: () => void; maxBytes?: number }): Inbound {
  const { db, log } = deps;
  const parser = createMailClassifier({ mailDomain: deps.mailDomain, ...(deps.maxBytes ? { maxBytes: deps.maxBytes } : {}) });

  /** The first of the candidate ids that names a send. */
  async function sendOf(ids: readonly string[]): Promise<SendRow | undefined> {
    for (const id of ids) {
      const send = await findSend(db, id);
      if (send) return send;
    }
    return undefined;
  }

  /** Marks the message handled for the workspace; false when it was handled before. */
  async function firstTime(tx: SqlQueryable, workspaceId: string, mail: InboundMail, raw: Buffer): Promise<boolean> {
    const key = mail.messageId ? `mid:${mail.messageId}` : `sha256:${createHash('sha256').update(raw).digest('base64url')}`;
    const { rows } = await tx.query(
      `INSERT INTO inbound_messages (workspace_id, message_key, received_at) VALUES ($1::uuid, $2, now())
       ON CONFLICT (workspace_id, message_key) DO NOTHING RETURNING message_key`,
      [workspaceId, key.slice(0, 998)],
    );
    return rows.length > 0;
  }

  const commitWithEvents = createOutboxCommit(db, deps.afterCommit);
  /** Commits the message's effects, once: a message handled before changes nothing. */
  async function commit(workspaceId: string, mail: InboundMail, raw: Buffer, work: (tx: SqlQueryable) => Promise<CrmEvent[]>): Promise<void> {
    await commitWithEvents(async (tx) => ((await firstTime(tx, workspaceId, mail, raw)) ? work(tx) : []));
  }

  const counted = (kind: IngestResult['kind'] | 'malformed') => addCount('crm.mail.inbound', 1, { 'crm.mail.inbound.kind': kind });

  /** One message: what it was, and the records it changed. */
  async function ingest(raw: Buffer, envelopeRecipients: readonly string[] | undefined): Promise<IngestResult> {
    let mail: InboundMail;
    try {
      mail = await parser.parse(raw, { envelopeRecipients });
    } catch (error) {
      if (error instanceof InboundError) throw new MessagingError(MessagingErrorCode.MalformedMail, `not a mail message: ${error.message}`);
      throw error;
    }
    if (mail.kind === 'unmatched') {
      log.info({ reason: mail.reason, messageId: mail.messageId }, 'inbound mail matched no send; not kept');
      return { kind: 'unmatched' };
    }
    const send = await sendOf(mail.sentEmailIds);
    if (!send) {
      log.info({ kind: mail.kind, messageId: mail.messageId }, 'inbound mail names no known send; not kept');
      return { kind: 'unmatched' };
    }
    const at = deps.clock.now();
    switch (mail.kind) {
      case 'reply':
        await commit(send.workspace_id, mail, raw, async (tx) => {
          const recorded = await recordEmailEvent(tx, send, { type: 'reply', occurredAt: at, detail: mail.replyText.slice(0, 2_000) || null, url: null });
          const touch = await recordTouchpoint(tx, send.workspace_id, {
            contactId: send.contact_id,
            ownerId: send.owner_id,
            channel: 'email',
            direction: 'inbound',
            status: 'completed',
            subject: mail.subject || null,
            summary: mail.replyText.slice(0, 500) || 'Reply received',
            occurredAt: at,
            source: 'email_event',
            sourceId: recorded.id,
          });
          return [...recorded.events, ...touch];
        });
        break;
      case 'auto_reply':
        await commit(send.workspace_id, mail, raw, async (tx) => [
          ...(await recordTouchpoint(tx, send.workspace_id, {
            contactId: send.contact_id,
            ownerId: send.owner_id,
            channel: 'email',
            direction: 'inbound',
            status: 'completed',
            subject: mail.subject || null,
            // An auto-reply may have no body at all: its Subject then says what it is.
            summary: `Automatic reply: ${squash(mail.text) || mail.subject || '(no text)'}`.slice(0, 400),
            occurredAt: at,
            source: 'inbound_email',
            sourceId: send.id,
          })),
          autoReplyReceived(send, mail, raw, at),
        ]);
        break;
      case 'bounce':
        await commit(send.workspace_id, mail, raw, async (tx) => {
          // Re-read under the row lock: a bounce can race the delivery worker's own success.
          const current = (await findSend(tx, send.id, true)) ?? send;
          return markBounced(tx, current, {
            type: mail.severity,
            statusCode: mail.recipient.status ?? null,
            detail: mail.recipient.diagnosticCode ?? null,
            occurredAt: at,
          });
        });
        break;
      case 'delayed':
        log.info({ sentEmailId: send.id }, 'delivery delayed notice: not a bounce');
        break;
    }
    return { kind: mail.kind, sentEmailId: send.id };
  }

  return {
    async ingest(raw, envelopeRecipients) {
      const result = await ingest(raw, envelopeRecipients).catch((error: unknown) => {
        if (error instanceof MessagingError && error.reason === MessagingErrorCode.MalformedMail) counted('malformed');
        throw error;
      });
      counted(result.kind);
      return result;
    },
  };
}

/** Text on one line, as a summary shows it. */
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * How far a reply's own Date may stray from its arrival and still be its reference: a reply can
 * wait in a queue for days, but a Date weeks old or in the future is a wrong clock.
 */
const DATE_TRUSTED_BEFORE_MS = 30 * 86_400_000;
const DATE_TRUSTED_AFTER_MS = 86_400_000;

/**
 * The `auto_reply.received` of an automatic reply: when it was written and in which offset (its
 * Date), and the day it says the person is back, read from its own words: the quoted message
 * left out, and its subject without the subject it answers, which may hold dates of its own.
 */
function autoReplyReceived(send: SendRow, mail: Extract<InboundMail, { kind: 'auto_reply' }>, raw: Buffer, arrived: Date): CrmEvent {
  const written = mail.date?.getTime();
  const dated = written !== undefined && written >= arrived.getTime() - DATE_TRUSTED_BEFORE_MS && written <= arrived.getTime() + DATE_TRUSTED_AFTER_MS;
  const reference = dated ? mail.date! : arrived;
  const header = dated ? dateHeaderOf(raw) : undefined;
  const utcOffsetMinutes = header ? utcOffsetOfDate(header) : 0;
  const subject = send.subject && mail.subject.includes(send.subject) ? mail.subject.replace(send.subject, ' ') : mail.subject;
  const returns = readReturnDate(`${subject}\n${stripQuoted(mail.text)}`, { reference, utcOffsetMinutes });
  return newEvent(MessagingEvents.AutoReplyReceived, send.workspace_id, {
    sent_email_id: send.id,
    contact_id: send.contact_id,
    received_at: reference.toISOString(),
    utc_offset_minutes: utcOffsetMinutes,
    ...(send.owner_id ? { owner_id: send.owner_id } : {}),
    ...(returns ? { returns_on: returns.returnsOn, returns_on_text: returns.phrase } : {}),
    ...(send.flow_id && send.flow_node_id && send.flow_enrollment_id
      ? { flow: { flow_id: send.flow_id, node_id: send.flow_node_id, enrollment_id: send.flow_enrollment_id } }
      : {}),
  });
}
