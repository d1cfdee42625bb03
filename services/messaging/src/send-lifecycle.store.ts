import { type CrmEvent, type SqlQueryable, newEvent, newId } from '@crm/kit';
import { MessagingEvents } from '@crm/proto';
import { type LedgerEntry, recordLedgerEntries } from './ledger';
import { columnsOf } from './columns';

/**
 * The writes that follow a send through its life, each inside the caller's transaction and
 * returning the events it publishes: recording an engagement, moving the send to sent, bounced or
 * failed, suppressing an address, logging a touchpoint. The delivery worker, the tracking paths
 * and inbound mail all go through these, so a bounce is the same record whichever way it came.
 */

/** A send as these writes need it. */
export interface SendRow {
  workspace_id: string;
  id: string;
  contact_id: string;
  owner_id: string | null;
  to_email: string;
  subject: string;
  status: string;
  sent_at: string | null;
  flow_id: string | null;
  flow_node_id: string | null;
  flow_enrollment_id: string | null;
}

export const SEND_COLUMNS =
  'workspace_id, id, contact_id, owner_id, to_email, subject, status, sent_at, flow_id, flow_node_id, flow_enrollment_id';

const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : (value as string | null));

/**
 * The order in which a group of writes about sends takes their rows: by workspace, owner and send,
 * so two groups take an owner's hourly counters in the same order and cannot deadlock.
 */
export const sendLockOrder = (a: SendRow, b: SendRow): number =>
  a.workspace_id.localeCompare(b.workspace_id) || (a.owner_id ?? '').localeCompare(b.owner_id ?? '') || a.id.localeCompare(b.id);

export function sendRow(row: Record<string, unknown>): SendRow {
  return { ...(row as unknown as SendRow), sent_at: iso(row.sent_at) };
}

/** The FlowStep an event carries, when the send came from a flow step. */
function flowOf(send: SendRow) {
  return send.flow_id && send.flow_node_id && send.flow_enrollment_id
    ? { flow: { flow_id: send.flow_id, node_id: send.flow_node_id, enrollment_id: send.flow_enrollment_id } }
    : {};
}

/** The send `id`, whatever its workspace (a tracking token, a Message-ID or a VERP address names only the send). */
export async function findSend(q: SqlQueryable, id: string, lock = false): Promise<SendRow | undefined> {
  const { rows } = await q.query(
    // -- all workspaces: inbound mail and tracking tokens name a send, not its workspace; the send's
    // own row then scopes everything else.
    `SELECT ${SEND_COLUMNS} FROM sent_emails WHERE id = $1::uuid ${lock ? 'FOR UPDATE' : ''} -- all workspaces: found by its id`,
    [id],
  );
  return rows[0] ? sendRow(rows[0]) : undefined;
}

/** The sends of these ids that exist, whatever their workspaces, in one statement. */
export async function findSends(q: SqlQueryable, ids: readonly string[]): Promise<Map<string, SendRow>> {
  if (!ids.length) return new Map();
  const { rows } = await q.query(
    `SELECT ${SEND_COLUMNS} FROM sent_emails WHERE id = ANY($1::uuid[]) -- all workspaces: found by their ids, as findSend`,
    [[...new Set(ids)]],
  );
  return new Map(rows.map((row) => [row.id as string, sendRow(row)]));
}

export interface EngagementInput {
  type: 'open' | 'click' | 'reply' | 'bounce' | 'unsubscribe';
  occurredAt: Date;
  isBot?: boolean;
  url?: string | null;
  userAgent?: string | null;
  bounceType?: 'hard' | 'soft' | null;
  statusCode?: string | null;
  detail?: string | null;
}

/** One email event of a send, and its `email_event.recorded`. */
export async function recordEmailEvent(tx: SqlQueryable, send: SendRow, input: EngagementInput): Promise<{ id: string; events: CrmEvent[] }> {
  const [recorded] = await recordEmailEvents(tx, [{ send, input }]);
  return recorded!;
}

/**
 * Email events of any sends (a batch of opens), in two statements whatever their number: the
 * events, then their ledger rows. As `recordEmailEvent` for each, in order; the results are too.
 */
export async function recordEmailEvents(
  tx: SqlQueryable,
  items: readonly { send: SendRow; input: EngagementInput }[],
): Promise<{ id: string; events: CrmEvent[] }[]> {
  if (!items.length) return [];
  const now = new Date().toISOString();
  const table: unknown[][] = [];
  const recorded = items.map(({ send, input }) => {
    const id = newId();
    const occurredAt = input.occurredAt.toISOString();
    const values = [
      send.workspace_id,
      id,
      send.id,
      send.contact_id,
      input.type,
      occurredAt,
      input.isBot ?? false,
      input.url ?? null,
      input.userAgent?.slice(0, 1_000) ?? null,
      input.bounceType ?? null,
      input.statusCode ?? null,
      input.detail?.slice(0, 10_000) ?? null,
      send.flow_id,
      send.flow_node_id,
      send.flow_enrollment_id,
    ];
    table.push(values);
    const event = newEvent(MessagingEvents.EmailEventRecorded, send.workspace_id, {
      email_event_id: id,
      sent_email_id: send.id,
      contact_id: send.contact_id,
      event_type: input.type,
      occurred_at: occurredAt,
      is_bot: input.isBot ?? false,
      ...(send.owner_id ? { owner_id: send.owner_id } : {}),
      ...flowOf(send),
    });
    return { id, events: [event] };
  });
  await tx.query(
    `INSERT INTO email_events (workspace_id, id, sent_email_id, contact_id, event_type, occurred_at, is_bot, url, user_agent,
                               bounce_type, status_code, detail, flow_id, flow_node_id, flow_enrollment_id, created_at, updated_at)
     SELECT workspace_id, id, sent_email_id, contact_id, event_type, occurred_at, is_bot, url, user_agent,
            bounce_type, status_code, detail, flow_id, flow_node_id, flow_enrollment_id, $16::timestamptz, $16::timestamptz
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[], $7::bool[], $8::text[], $9::text[],
                   $10::text[], $11::text[], $12::text[], $13::uuid[], $14::uuid[], $15::uuid[])
            WITH ORDINALITY AS t(workspace_id, id, sent_email_id, contact_id, event_type, occurred_at, is_bot, url, user_agent,
                                 bounce_type, status_code, detail, flow_id, flow_node_id, flow_enrollment_id, ord)
      ORDER BY ord`,
    [...columnsOf(table), now],
  );
  await recordLedgerEntries(
    tx,
    items.map(({ send, input }, i) => ({ workspaceId: send.workspace_id, entry: emailEventEntry(send, recorded[i]!.id, input) })),
  );
  return recorded;
}

const EVENT_SUMMARIES: Record<EngagementInput['type'], (send: SendRow, input: EngagementInput) => string> = {
  open: (send) => `Opened "${send.subject}"`,
  click: (send, input) => `Clicked ${input.url ?? 'a link'} in "${send.subject}"`,
  reply: (send) => `Replied to "${send.subject}"`,
  bounce: (send, input) => `"${send.subject}" bounced${input.bounceType ? ` (${input.bounceType})` : ''}${input.statusCode ? `: ${input.statusCode}` : ''}`,
  unsubscribe: (send) => `Unsubscribed from "${send.subject}"`,
};

/** Counted once per send, and never when flagged as a bot: emails opened, clicked, replied. */
const EVENT_METRICS: Partial<Record<EngagementInput['type'], LedgerEntry['metric']>> = {
  open: 'emails_opened',
  click: 'emails_clicked',
  reply: 'emails_replied',
};

function emailEventEntry(send: SendRow, id: string, input: EngagementInput): LedgerEntry {
  const metric = input.isBot ? undefined : EVENT_METRICS[input.type];
  return {
    kind: 'email_event',
    sourceId: id,
    contactId: send.contact_id,
    userId: send.owner_id,
    occurredAt: input.occurredAt,
    summary: EVENT_SUMMARIES[input.type](send, input),
    payload: {
      event_type: input.type,
      sent_email_id: send.id,
      is_bot: input.isBot ?? false,
      ...(input.url ? { url: input.url } : {}),
      ...(input.bounceType ? { bounce_type: input.bounceType } : {}),
    },
    ...(metric ? { metric, oncePerSend: send.id } : {}),
  };
}

export interface TouchpointInput {
  contactId: string;
  ownerId: string | null;
  channel: 'email' | 'chat_app' | 'call' | 'professional_network';
  direction: 'inbound' | 'outbound';
  status: 'completed' | 'failed';
  subject?: string | null;
  summary?: string | null;
  occurredAt: Date;
  source: 'sent_email' | 'email_event' | 'inbound_email' | 'call_log' | 'meeting';
  sourceId: string;
}

/**
 * The touchpoint of something that happened, once: a second one for the same source (a
 * redelivered event, a repeated bounce) is not written and publishes nothing.
 */
export async function recordTouchpoint(tx: SqlQueryable, workspaceId: string, input: TouchpointInput): Promise<CrmEvent[]> {
  const [events] = await recordTouchpoints(tx, [{ workspaceId, input }]);
  return events!;
}

/** Touchpoints of any workspaces in one statement (and their ledger rows in one more): as `recordTouchpoint` for each, in order. */
export async function recordTouchpoints(tx: SqlQueryable, items: readonly { workspaceId: string; input: TouchpointInput }[]): Promise<CrmEvent[][]> {
  if (!items.length) return [];
  const now = new Date().toISOString();
  const table: unknown[][] = [];
  const ids = items.map(({ workspaceId, input }) => {
    const id = newId();
    const values = [
      workspaceId,
      id,
      input.contactId,
      input.ownerId,
      input.channel,
      input.direction,
      input.status,
      input.subject?.slice(0, 255) ?? null,
      input.summary?.slice(0, 10_000) ?? null,
      input.occurredAt.toISOString(),
      input.source,
      input.sourceId,
    ];
    table.push(values);
    return id;
  });
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO touchpoints (workspace_id, id, contact_id, owner_id, channel, direction, status, subject, summary, occurred_at,
                              source, source_id, created_at, updated_at)
     SELECT workspace_id, id, contact_id, owner_id, channel, direction, status, subject, summary, occurred_at, source, source_id,
            $13::timestamptz, $13::timestamptz
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::timestamptz[], $11::text[], $12::uuid[])
            WITH ORDINALITY AS t(workspace_id, id, contact_id, owner_id, channel, direction, status, subject, summary, occurred_at, source, source_id, ord)
      ORDER BY ord
     ON CONFLICT (workspace_id, source, source_id) WHERE source_id IS NOT NULL DO NOTHING
     RETURNING id`,
    [...columnsOf(table), now],
  );
  const written = new Set(rows.map((row) => row.id));
  // A touchpoint that mirrors another row of the timeline (a send, a reply, a call, a meeting) is
  // not a second row there; an automatic reply is a fact of its own.
  await recordLedgerEntries(
    tx,
    items.flatMap(({ workspaceId, input }, i) =>
      written.has(ids[i]!) && input.source === 'inbound_email' ? [{ workspaceId, entry: touchpointEntry(ids[i]!, input) }] : [],
    ),
  );
  return items.map(({ workspaceId, input }, i) =>
    written.has(ids[i]!)
      ? [
          newEvent(MessagingEvents.TouchpointRecorded, workspaceId, {
            touchpoint_id: ids[i]!,
            contact_id: input.contactId,
            channel: input.channel,
            direction: input.direction,
            status: input.status,
            occurred_at: input.occurredAt.toISOString(),
            ...(input.ownerId ? { owner_id: input.ownerId } : {}),
          }),
        ]
      : [],
  );
}

/** The ledger row of a touchpoint (logged by hand, or an automatic reply). */
export function touchpointEntry(
  id: string,
  touch: Pick<TouchpointInput, 'contactId' | 'ownerId' | 'channel' | 'direction' | 'status' | 'subject' | 'summary' | 'occurredAt'>,
): LedgerEntry {
  return {
    kind: 'touchpoint',
    sourceId: id,
    contactId: touch.contactId,
    userId: touch.ownerId,
    occurredAt: touch.occurredAt,
    summary: touch.summary || touch.subject || `${touch.direction === 'inbound' ? 'Inbound' : 'Outbound'} ${touch.channel.replace('_', ' ')} touchpoint`,
    payload: { channel: touch.channel, direction: touch.direction, status: touch.status, ...(touch.subject ? { subject: touch.subject } : {}) },
  };
}

/** Adds the address to the workspace's suppression list; true when it was not on it yet. */
export async function suppress(tx: SqlQueryable, send: SendRow, reason: 'unsubscribed' | 'hard_bounce'): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO suppressions (workspace_id, email_lower, reason, sent_email_id, created_at) VALUES ($1::uuid, $2, $3, $4::uuid, now())
     ON CONFLICT (workspace_id, email_lower) DO NOTHING RETURNING email_lower`,
    [send.workspace_id, send.to_email.toLowerCase(), reason, send.id],
  );
  return rows.length > 0;
}

/**
 * The send's delivery row is finished (a CTE of the statement that records the send's outcome:
 * one round trip for both). `$1` is the workspace, `$2` the send.
 */
const DELIVERY_DONE_SQL = `UPDATE deliveries SET state = 'done', lease_token = NULL WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`;

/** The longest `last_error` kept: a server's answer runs to a few lines at most. */
export const ATTEMPT_ERROR_MAX = 1_000;

/**
 * A finished send's `attempts`, `last_error` and `next_attempt_at` (none: nothing is due), as
 * assignments of an UPDATE of `sent_emails s`, read from its delivery row (which the same statement
 * may finish, but leaves these two as they were). `lastError`, when given, is the error that
 * finished it.
 */
const finishedAttemptsSql = (lastError = 'NULL') =>
  `attempts = coalesce((SELECT d.attempts FROM deliveries d WHERE d.workspace_id = s.workspace_id AND d.sent_email_id = s.id), s.attempts),
   last_error = coalesce(${lastError}, (SELECT d.last_error FROM deliveries d WHERE d.workspace_id = s.workspace_id AND d.sent_email_id = s.id), s.last_error),
   next_attempt_at = NULL`;

/**
 * The address's suppression reason as a column `suppressed` of a query on `sent_emails s` (NULL
 * when none). `lowered` is the lower-cased address: a parameter holding JavaScript's
 * `toLowerCase()`, as suppressions are written, where the caller has it; `lower(s.to_email)` is
 * the same for every ASCII address and serves only as an early look.
 */
export const suppressionColumn = (lowered: string) =>
  `(SELECT x.reason FROM suppressions x WHERE x.workspace_id = s.workspace_id AND x.email_lower = ${lowered}) AS suppressed`;

/**
 * Sends accepted by their server (or written by the log provider), together (a group of the
 * delivery worker's), in three statements whatever their number: their status, attempts and
 * delivery rows, their touchpoints, their ledger rows and counters. The events each publishes
 * (`email.sent`, its touchpoint's), in order.
 */
export async function markSentAll(tx: SqlQueryable, sent: readonly { send: SendRow; provider: 'smtp' | 'log'; at: Date }[]): Promise<CrmEvent[][]> {
  if (!sent.length) return [];
  await tx.query(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[]) AS t(workspace_id, id, provider, sent_at)
     ), done AS (
       UPDATE deliveries d SET state = 'done', lease_token = NULL FROM input WHERE d.workspace_id = input.workspace_id AND d.sent_email_id = input.id
     )
     UPDATE sent_emails s SET status = 'sent', provider = input.provider, sent_at = input.sent_at, failure_reason = NULL, updated_at = now(),
                              attempts = coalesce(d.attempts, s.attempts), last_error = coalesce(d.last_error, s.last_error), next_attempt_at = NULL
       FROM input LEFT JOIN deliveries d ON d.workspace_id = input.workspace_id AND d.sent_email_id = input.id
      WHERE s.workspace_id = input.workspace_id AND s.id = input.id`,
    [sent.map((r) => r.send.workspace_id), sent.map((r) => r.send.id), sent.map((r) => r.provider), sent.map((r) => r.at.toISOString())],
  );
  const touches = await recordTouchpoints(
    tx,
    sent.map(({ send, at }) => ({
      workspaceId: send.workspace_id,
      input: {
        contactId: send.contact_id,
        ownerId: send.owner_id,
        channel: 'email' as const,
        direction: 'outbound' as const,
        status: 'completed' as const,
        subject: send.subject,
        summary: `Email sent to ${send.to_email}`,
        occurredAt: at,
        source: 'sent_email' as const,
        sourceId: send.id,
      },
    })),
  );
  await recordLedgerEntries(
    tx,
    sent.map(({ send, provider, at }) => ({
      workspaceId: send.workspace_id,
      entry: {
        kind: 'sent_email' as const,
        sourceId: send.id,
        contactId: send.contact_id,
        userId: send.owner_id,
        occurredAt: at,
        summary: `Sent "${send.subject}" to ${send.to_email}`,
        payload: {
          subject: send.subject,
          to_email: send.to_email,
          provider,
          ...(send.flow_id ? { flow_id: send.flow_id, flow_enrollment_id: send.flow_enrollment_id } : {}),
        },
        metric: 'emails_sent' as const,
      },
    })),
  );
  return sent.map(({ send, at }, i) => [
    newEvent(MessagingEvents.EmailSent, send.workspace_id, {
      sent_email_id: send.id,
      contact_id: send.contact_id,
      sent_at: at.toISOString(),
      ...(send.owner_id ? { owner_id: send.owner_id } : {}),
      ...flowOf(send),
    }),
    ...touches[i]!,
  ]);
}

/** The send will not go out: status failed with the reason, `sent_email.failed`. */
export async function markFailed(tx: SqlQueryable, send: SendRow, reason: string): Promise<CrmEvent[]> {
  await tx.query(
    `WITH done AS (${DELIVERY_DONE_SQL})
     UPDATE sent_emails s SET status = 'failed', failure_reason = $3, updated_at = now(), ${finishedAttemptsSql()}
      WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid`,
    [send.workspace_id, send.id, reason.slice(0, 255)],
  );
  return [
    newEvent(MessagingEvents.SentEmailFailed, send.workspace_id, {
      sent_email_id: send.id,
      contact_id: send.contact_id,
      failure_reason: reason.slice(0, 255),
      occurred_at: new Date().toISOString(),
      ...flowOf(send),
    }),
  ];
}

export interface BounceInput {
  type: 'hard' | 'soft';
  statusCode?: string | null;
  /** What the refusing server said: its SMTP answer, or a report's Diagnostic-Code. */
  detail?: string | null;
  occurredAt: Date;
  /** The delivery attempt this refusal ended, when it was ours: recorded as the send's `last_error`. */
  attemptError?: string;
}

/**
 * The send bounced: status bounced with the server's answer in `failure_reason`, its `bounce`
 * event, and for a hard bounce the address joins the workspace's suppression list. A send that
 * bounced already records the later bounce as an event only.
 */
export async function markBounced(tx: SqlQueryable, send: SendRow, bounce: BounceInput): Promise<CrmEvent[]> {
  const events: CrmEvent[] = [];
  if (send.status !== 'bounced') {
    const reason = `${bounce.type} bounce${bounce.statusCode ? ` ${bounce.statusCode}` : ''}${bounce.detail ? `: ${bounce.detail}` : ''}`;
    await tx.query(
      `UPDATE sent_emails s SET status = 'bounced', failure_reason = $3, updated_at = now(), ${finishedAttemptsSql('$4::text')}
        WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid`,
      [send.workspace_id, send.id, reason.slice(0, 255), bounce.attemptError?.slice(0, ATTEMPT_ERROR_MAX) ?? null],
    );
    await tx.query(
      `UPDATE deliveries SET state = 'done', lease_token = NULL, last_error = coalesce($3, last_error) WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`,
      [send.workspace_id, send.id, bounce.attemptError?.slice(0, ATTEMPT_ERROR_MAX) ?? null],
    );
    events.push(
      newEvent(MessagingEvents.SentEmailBounced, send.workspace_id, {
        sent_email_id: send.id,
        contact_id: send.contact_id,
        bounce_type: bounce.type,
        occurred_at: bounce.occurredAt.toISOString(),
        ...(bounce.statusCode ? { status_code: bounce.statusCode } : {}),
        ...flowOf(send),
      }),
    );
  }
  const recorded = await recordEmailEvent(tx, send, {
    type: 'bounce',
    occurredAt: bounce.occurredAt,
    bounceType: bounce.type,
    statusCode: bounce.statusCode,
    detail: bounce.detail,
  });
  if (bounce.type === 'hard') await suppress(tx, send, 'hard_bounce');
  return [...events, ...recorded.events];
}

/**
 * A delivery attempt failed and the send goes again at `nextAttemptAt`: its delivery row waits for
 * then, and the send shows its attempts so far, the error and the time. The caller holds the send's
 * row lock, taken before the delivery's as the hand-over and a cancel take them.
 */
export async function scheduleRetry(tx: SqlQueryable, send: SendRow, error: string, nextAttemptAt: Date): Promise<void> {
  await tx.query(
    `WITH d AS (
       UPDATE deliveries SET state = 'pending', lease_token = NULL, next_attempt_at = $3::timestamptz, last_error = $4
        WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid RETURNING attempts
     )
     UPDATE sent_emails s SET attempts = d.attempts, last_error = $4, next_attempt_at = $3::timestamptz, updated_at = now()
       FROM d WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid`,
    [send.workspace_id, send.id, nextAttemptAt.toISOString(), error.slice(0, ATTEMPT_ERROR_MAX)],
  );
}
