import { type CursorCodec, CrmError, type SqlClient, type SqlQueryable, newId, queryFingerprint } from '@crm/kit';
import { PERFORMANCE_COUNTERS, PERFORMANCE_WINDOWS, type PerformanceWindow, type TimelineKind, type TimelineQuery } from '@crm/messaging-contract';
import { columnsOf } from './columns';

/**
 * The engagement ledger (gateway/README.md, "Timeline and performance"): one row per thing that
 * happened with a contact, written in the transaction of messaging's own record (a send going out, an
 * email event, a touchpoint logged by hand or by an automatic reply) or by the consumer of activities'
 * events (a call, a meeting booked, a task created or completed). A contact's timeline reads it by
 * (contact, time); a user's performance reads the hourly aggregates the same statement keeps, plus the
 * rows of the two partial hours at the window's edges, so its cost does not grow with the rows in the
 * window.
 */

/** The performance counter a row adds one to (talk time rides on `calls_placed`). */
export type LedgerMetric = Exclude<(typeof PERFORMANCE_COUNTERS)[number], 'call_talk_seconds'>;

export interface LedgerEntry {
  kind: TimelineKind;
  /** The record the row is about (the timeline item's `id`). */
  sourceId: string;
  /** What happened to it, where one record has several rows (a task: created, completed). */
  action?: string;
  contactId: string | null;
  /** The user credited: the send's or record's owner, the task's assignee. */
  userId: string | null;
  occurredAt: Date;
  summary: string;
  payload: Record<string, unknown>;
  metric?: LedgerMetric;
  talkSeconds?: number;
  /** Counted only for the first row of this metric for this send (emails opened, clicked, replied). */
  oncePerSend?: string;
}

const METRICS: readonly LedgerMetric[] = PERFORMANCE_COUNTERS.filter((c): c is LedgerMetric => c !== 'call_talk_seconds');
const EPOCH = `TIMESTAMPTZ '2000-01-01 00:00:00+00'`;

// One statement for any number of facts, each with its workspace: the once-per-send claims, the rows
// (nothing for a fact already recorded) and their hours' counters. Where two facts of one batch claim
// the same send's metric, the first in the batch has it. Claims and counters are taken in key order,
// so two batches that share rows take them in the same order and cannot deadlock.
const RECORD_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::uuid[], $7::uuid[], $8::timestamptz[],
                         $9::text[], $10::text[], $11::text[], $12::uuid[], $13::int[])
      WITH ORDINALITY AS t(workspace_id, id, kind, source_id, action, contact_id, user_id, occurred_at, summary, metric, payload,
                           once_per_send, talk_seconds, ord)
  ), claims AS (
    SELECT DISTINCT ON (workspace_id, once_per_send, metric) workspace_id, once_per_send, metric, ord
      FROM input WHERE once_per_send IS NOT NULL AND metric IS NOT NULL
     ORDER BY workspace_id, once_per_send, metric, ord
  ), first AS (
    INSERT INTO engagement_firsts (workspace_id, sent_email_id, metric)
    SELECT workspace_id, once_per_send, metric FROM claims ORDER BY workspace_id, once_per_send, metric
    ON CONFLICT DO NOTHING RETURNING workspace_id, sent_email_id, metric
  ), won AS (
    SELECT c.ord, c.metric FROM claims c
      JOIN first f ON f.workspace_id = c.workspace_id AND f.sent_email_id = c.once_per_send AND f.metric = c.metric
  ), fact AS (
    INSERT INTO engagement_ledger (workspace_id, id, kind, source_id, action, contact_id, user_id, occurred_at, summary, payload, metric, talk_seconds)
    SELECT i.workspace_id, i.id, i.kind, i.source_id, i.action, i.contact_id, i.user_id, i.occurred_at, i.summary, i.payload::jsonb, m.metric,
           CASE WHEN m.metric = 'calls_placed' THEN i.talk_seconds ELSE 0 END
      FROM input i
      LEFT JOIN won ON won.ord = i.ord
      CROSS JOIN LATERAL (SELECT CASE WHEN i.once_per_send IS NULL THEN i.metric ELSE won.metric END AS metric) m
     ORDER BY i.ord
    ON CONFLICT (workspace_id, kind, source_id, action) DO NOTHING
    RETURNING workspace_id, user_id, occurred_at, metric, talk_seconds
  )
  INSERT INTO engagement_hourly AS h (workspace_id, user_id, hour, ${METRICS.join(', ')}, call_talk_seconds)
  SELECT workspace_id, user_id, date_bin('1 hour', occurred_at, ${EPOCH}) AS hour, ${METRICS.map((m) => `count(*) FILTER (WHERE metric = '${m}')`).join(', ')},
         sum(talk_seconds)
    FROM fact WHERE user_id IS NOT NULL AND metric IS NOT NULL
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (workspace_id, user_id, hour) DO UPDATE SET
    ${[...METRICS, 'call_talk_seconds'].map((c) => `${c} = h.${c} + EXCLUDED.${c}`).join(', ')}`;

/** Records one fact in the caller's transaction; a fact already recorded changes nothing. */
export async function recordLedger(tx: SqlQueryable, workspaceId: string, entry: LedgerEntry): Promise<void> {
  await recordLedgerEntries(tx, [{ workspaceId, entry }]);
}

/** Records facts of any workspaces in the caller's transaction, in one statement; as `recordLedger` for each, in order. */
export async function recordLedgerEntries(tx: SqlQueryable, facts: readonly { workspaceId: string; entry: LedgerEntry }[]): Promise<void> {
  if (!facts.length) return;
  const table = facts.map(({ workspaceId, entry }) => [
    workspaceId,
    newId(),
    entry.kind,
    entry.sourceId,
    entry.action ?? '',
    entry.contactId,
    entry.userId,
    entry.occurredAt.toISOString(),
    entry.summary.slice(0, 1_000),
    entry.metric ?? null,
    JSON.stringify(entry.payload),
    entry.oncePerSend ?? null,
    Math.max(0, Math.min(2_147_483_647, Math.round(entry.talkSeconds ?? 0))),
  ]);
  await tx.query(RECORD_SQL, columnsOf(table));
}

const EMAIL_METRICS = ['emails_opened', 'emails_clicked', 'emails_replied'] as const;
const UNCOUNTED = EMAIL_METRICS.map((m) => `count(*) FILTER (WHERE metric = '${m}') AS ${m}`).join(', ');
const LOWERED = EMAIL_METRICS.map((m) => `${m} = h.${m} - counted.${m}`).join(', ');

/**
 * Email events flagged as automated after they were recorded (a burst of clicks shows the earlier
 * clicks were a link scanner's): their rows say so and count no more, and the email's first counted
 * event is free again, so a person's later click still counts.
 */
export async function uncountBotEvents(tx: SqlQueryable, workspaceId: string, emailEventIds: readonly string[]): Promise<void> {
  if (!emailEventIds.length) return;
  await tx.query(
    `WITH old AS (
       SELECT id, user_id, occurred_at, metric, (payload->>'sent_email_id')::uuid AS sent_email_id FROM engagement_ledger
        WHERE workspace_id = $1::uuid AND kind = 'email_event' AND action = '' AND source_id = ANY($2::uuid[]) FOR UPDATE
     ), flagged AS (
       UPDATE engagement_ledger l SET metric = NULL, payload = l.payload || '{"is_bot": true}'::jsonb
         FROM old WHERE l.workspace_id = $1::uuid AND l.id = old.id RETURNING l.id
     ), freed AS (
       DELETE FROM engagement_firsts f USING old
        WHERE f.workspace_id = $1::uuid AND f.sent_email_id = old.sent_email_id AND f.metric = old.metric RETURNING f.metric
     ), counted AS (
       SELECT user_id, date_bin('1 hour', occurred_at, ${EPOCH}) AS hour, ${UNCOUNTED}
         FROM old WHERE metric IS NOT NULL AND user_id IS NOT NULL GROUP BY 1, 2
     )
     UPDATE engagement_hourly h SET ${LOWERED}
       FROM counted WHERE h.workspace_id = $1::uuid AND h.user_id = counted.user_id AND h.hour = counted.hour`,
    [workspaceId, emailEventIds],
  );
}

export interface TimelineItem {
  kind: string;
  id: string;
  occurred_at: string;
  summary: string;
  payload: Record<string, unknown>;
}

/** A page of the contact's timeline, newest first; the cursor is bound to the contact and filters. */
export async function readTimeline(
  db: SqlClient,
  cursors: CursorCodec,
  workspaceId: string,
  contactId: string,
  query: TimelineQuery,
): Promise<{ data: TimelineItem[]; nextCursor: string | null }> {
  const fingerprint = queryFingerprint(['timeline', workspaceId, contactId, query.kind ?? null, query.since?.toISOString() ?? null, query.until?.toISOString() ?? null]);
  const position = query.cursor ? cursors.decode(fingerprint, query.cursor) : undefined;
  const params: unknown[] = [workspaceId, contactId];
  const where: string[] = [];
  const add = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  if (query.kind) where.push(`kind = ${add(query.kind, 'text')}`);
  if (query.since) where.push(`occurred_at >= ${add(query.since.toISOString(), 'timestamptz')}`);
  if (query.until) where.push(`occurred_at < ${add(query.until.toISOString(), 'timestamptz')}`);
  if (position) {
    if (typeof position.values[0] !== 'string') throw CrmError.invalid('cursor is malformed or has expired; start again without a cursor');
    where.push(`(occurred_at, id) < (${add(position.values[0], 'timestamptz')}, ${add(position.id, 'uuid')})`);
  }
  const { rows } = await db.query<{ id: string; kind: string; source_id: string; occurred_at: Date; summary: string; payload: Record<string, unknown> }>(
    `SELECT id, kind, source_id, occurred_at, summary, payload FROM engagement_ledger
      WHERE workspace_id = $1::uuid AND contact_id = $2::uuid ${where.map((condition) => `AND ${condition}`).join(' ')}
      ORDER BY occurred_at DESC, id DESC LIMIT ${query.limit + 1}`,
    params,
  );
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => ({ kind: r.kind, id: r.source_id, occurred_at: new Date(r.occurred_at).toISOString(), summary: r.summary, payload: r.payload })),
    nextCursor: rows.length > query.limit && last ? cursors.encode(fingerprint, { values: [new Date(last.occurred_at).toISOString()], id: last.id }) : null,
  };
}

export type Performance = { window_start: string; window_end: string } & Record<(typeof PERFORMANCE_COUNTERS)[number], number>;

const HOUR_MS = 3_600_000;

/**
 * The user's counters over [now − window, now], from the hourly aggregates of every hour the window
 * touches, corrected at its two edges from the ledger's counted rows:
 * - the first hour's rows before the window are taken away, or, when the window holds the smaller
 *   part of that hour, the hour's aggregate is left out and the rows inside are added instead, so at
 *   most half an hour of rows is read;
 * - the last hour's rows after now (dated in the future) are taken away: there are normally none.
 * Exact to the millisecond, and the rows read do not grow with the rows in the window.
 */
export async function readPerformance(db: SqlClient, workspaceId: string, userId: string, window: PerformanceWindow, now: Date): Promise<Performance> {
  const end = now.getTime();
  const start = end - PERFORMANCE_WINDOWS[window] * HOUR_MS;
  const startHour = Math.floor(start / HOUR_MS) * HOUR_MS;
  const endHour = Math.floor(end / HOUR_MS) * HOUR_MS;
  // Inside the window from `start` to the next hour, or before it from the hour to `start`: the shorter.
  const addInside = startHour + HOUR_MS - start <= start - startHour;
  const firstBucket = addInside ? startHour + HOUR_MS : startHour;
  const [edgeFrom, edgeTo, edgeSign] = addInside ? [start, startHour + HOUR_MS, 1] : [startHour, start, -1];
  const sums = PERFORMANCE_COUNTERS.map((c) => `coalesce(sum(${c}), 0)::int AS ${c}`).join(', ');
  // Positional, as UNION ALL is: the columns of the aggregates, in the same order, signed.
  const fromRows = PERFORMANCE_COUNTERS.map((c) => `sign * ${c === 'call_talk_seconds' ? 'talk_seconds' : `(metric = '${c}')::int`} AS ${c}`).join(', ');
  const { rows } = await db.query<Record<(typeof PERFORMANCE_COUNTERS)[number], number>>(
    `SELECT ${sums} FROM (
       SELECT ${PERFORMANCE_COUNTERS.join(', ')} FROM engagement_hourly
        WHERE workspace_id = $1::uuid AND user_id = $2::uuid AND hour >= $3::timestamptz AND hour <= $4::timestamptz
       UNION ALL
       SELECT ${fromRows} FROM (
         SELECT metric, talk_seconds, $8::int AS sign FROM engagement_ledger
          WHERE workspace_id = $1::uuid AND user_id = $2::uuid AND metric IS NOT NULL AND occurred_at >= $5::timestamptz AND occurred_at < $6::timestamptz
         UNION ALL
         SELECT metric, talk_seconds, -1 AS sign FROM engagement_ledger
          WHERE workspace_id = $1::uuid AND user_id = $2::uuid AND metric IS NOT NULL AND occurred_at > $7::timestamptz AND occurred_at < $9::timestamptz
       ) edges
     ) counted`,
    [
      workspaceId,
      userId,
      new Date(firstBucket).toISOString(),
      new Date(endHour).toISOString(),
      new Date(edgeFrom).toISOString(),
      new Date(edgeTo).toISOString(),
      new Date(end).toISOString(),
      edgeSign,
      new Date(endHour + HOUR_MS).toISOString(),
    ],
  );
  return { window_start: new Date(start).toISOString(), window_end: new Date(end).toISOString(), ...rows[0]! };
}
