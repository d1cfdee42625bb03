import { compile } from 'html-to-text';
import {
  type Clock,
  type CrmEvent,
  type Logger,
  type SqlClient,
  type SqlQueryable,
  type Worker,
  backoffMs,
  createGroupCommit,
  createOutboxCommit,
  createWaker,
  newId,
  observeGauges,
  readBacklog,
  recordHistogram,
  untraced,
  withClientSpan,
  withStoredTrace,
} from '@crm/kit';
import { buildMessage, insertOpenPixel, rewriteLinks, smtpRefusal, type TrackingTokens, trackingUrl } from '../mail';
import {
  type SendRow,
  ATTEMPT_ERROR_MAX,
  SEND_COLUMNS,
  markBounced,
  markFailed,
  markSentAll,
  scheduleRetry,
  sendLockOrder,
  sendRow,
  suppressionColumn,
} from '../send-lifecycle.store';
import { type Transports, describeFailure, smtpFailure } from './transports';

/** The text part of a send that has none of its own, from its HTML. Compiled once: html-to-text's
 * `convert` compiles its options (selectors and all) on every call. */
const toText = compile({ wordwrap: 78 });

/**
 * The delivery worker (gateway/README.md, Messaging, "Delivery, at least once"): takes due sends
 * from the `deliveries` queue, any number of replicas at once, and hands each to its provider until
 * the provider has answered that it took it.
 *
 * 1. Claim and prepare, one statement for a batch: due rows are taken with FOR UPDATE SKIP LOCKED
 *    under a lease token; the lease moves next_attempt_at to its end, so a worker that dies leaves
 *    its rows due again when it expires. A send no longer queued (canceled) is dropped; the others
 *    move to `sending` and come back with their rows and suppression. A send to an address
 *    suppressed since it was queued fails; the others' messages are built, their tracked links
 *    stored (one statement), and each starts at once. More are claimed whenever a quarter of the
 *    places are free.
 * 2. Hand over: the whole message is written to the SMTP server, and just before its end-of-data
 *    mark the send's status and suppression are read once more under the row lock (exit wins at
 *    send time: a cancel or an unsubscribe that lands meanwhile abandons the transaction, and the
 *    server discards it) and `committed` is written, in one statement. Only then does the mark go
 *    out.
 * 3. Finish: sent on the server's 250; on a refusal, bounced (5xx at MAIL, RCPT or DATA) or
 *    retried with backoff (4xx, connection failures, a refusal before the mail transaction) until
 *    the last attempt fails the send with its reason. Each outcome records the send's attempts, its
 *    last error and when it goes again.
 *
 * A worker that dies before the server's answer is recorded, whether before `committed` or after
 * it, leaves the send to go again once its lease runs out, with the same Message-ID: the server
 * may or may not have kept the message, and a message that may be lost is never taken as delivered
 * (receivers deduplicate on the Message-ID). Once `sent` is committed, nothing sends it again.
 */
export interface DeliveryWorkerOptions {
  db: SqlClient;
  transports: Transports;
  tokens: TrackingTokens;
  publicUrl: string;
  mailDomain: string;
  clock: Clock;
  log: Logger;
  /** Wakes the outbox relay after a commit that wrote events. */
  afterCommit: () => void;
  /** Sends in flight at once. Default 16. */
  concurrency?: number;
  /** How long a claim holds a send before another worker may take it. Default 2 minutes. */
  leaseMs?: number;
  /** Attempts before a send fails. Default 6. */
  maxAttempts?: number;
  /** First retry delay, doubling per attempt up to an hour. Default 60 s. */
  retryBaseMs?: number;
  /** Longest idle wait between polls. Default 1 s. */
  pollMs?: number;
}

export interface DeliveryWorker extends Worker {
  /** A send was queued: look for work now rather than at the next poll. */
  wake(): void;
}

/** A claimed send as the claim read it, with its delivery's state before the claim. */
interface Claimed {
  workspace_id: string;
  sent_email_id: string;
  /** The trace context of the request that queued the send. */
  trace: Record<string, string>;
  row: Record<string, unknown>;
}

interface Prepared {
  send: SendRow;
  raw?: Buffer;
  envelope?: { from: string; to: string[] };
  /** Tracked links by index, to store before the hand-over. */
  links?: string[];
  /** The address is suppressed now: the send fails without a hand-over. */
  suppressed?: string;
}

/**
 * Why a claim takes a send whose last attempt never ended (its worker stopped, or lost the
 * database, and the lease ran out): the send's `last_error` until an outcome replaces it.
 */
const INTERRUPTED = {
  sending: 'the previous attempt ended before its end of data without an outcome (its worker stopped or lost the database); tried again',
  committed:
    "the previous attempt's end of data went out but no answer was recorded (its worker stopped or lost the database); sent again with the same Message-ID",
} as const;

/** The hand-over was called off at the last moment (canceled, suppressed, lease lost). */
class CalledOff extends Error {
  constructor(readonly reason: string) {
    super(`send called off: ${reason}`);
  }
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, clock, log } = options;
  const concurrency = options.concurrency ?? 16;
  const leaseMs = options.leaseMs ?? 120_000;
  const maxAttempts = options.maxAttempts ?? 6;
  const retryBaseMs = options.retryBaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const waker = createWaker(clock);

  const commit = createOutboxCommit(db, options.afterCommit);

  /**
   * Sends accepted by their server are recorded `sent` in groups (kit's group commit): a burst of
   * deliveries costs a few commits rather than one each, and sends of one owner stop queueing one
   * behind another on their hour's counters. A group is written in (workspace, owner, send) order,
   * in three statements whatever its size.
   */
  type SentRecord = { send: SendRow; provider: 'smtp' | 'log'; at: Date };
  const sentRecords = createGroupCommit<SentRecord>({
    db,
    writeAll: (tx, sent) => markSentAll(tx, sent),
    order: (a, b) => sendLockOrder(a.send, b.send),
    afterCommit: options.afterCommit,
  });

  /**
   * Claims due sends and prepares them in one statement: each claimed delivery moves to `sending`
   * (one more attempt) when its send is still queued, to `done` when it is not (canceled
   * meanwhile); the send's row and its address's suppression come back with it. A delivery left
   * `sending` or `committed` by a stopped worker is taken like any other, and its `last_error`
   * says so. What the claim read is not the last word: the hand-over reads the status and the
   * suppression again under the send's row lock.
   */
  async function claim(token: string, limit: number): Promise<Claimed[]> {
    const now = clock.now();
    // The poll is untraced (it runs every second); each send it claims is traced (deliver).
    const { rows } = await untraced(() =>
      db.query<Record<string, unknown>>(
        `WITH due AS (
           SELECT workspace_id, sent_email_id, state AS was FROM deliveries
            WHERE state <> 'done' AND next_attempt_at <= $2::timestamptz
            ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         UPDATE deliveries d
            SET next_attempt_at = $3::timestamptz,
                state = CASE WHEN s.status = 'queued' THEN 'sending' ELSE 'done' END,
                lease_token = CASE WHEN s.status = 'queued' THEN $1::uuid END,
                attempts = d.attempts + CASE WHEN s.status = 'queued' THEN 1 ELSE 0 END,
                last_error = CASE WHEN s.status <> 'queued' THEN d.last_error
                                  WHEN due.was = 'committed' THEN $5 WHEN due.was = 'sending' THEN $6 ELSE d.last_error END
           FROM due JOIN sent_emails s ON s.workspace_id = due.workspace_id AND s.id = due.sent_email_id
          WHERE d.workspace_id = due.workspace_id AND d.sent_email_id = due.sent_email_id
          RETURNING d.workspace_id, d.sent_email_id, d.trace, due.was, d.thread, d.verp,
                    ${SEND_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')}, s.from_email, s.from_name, s.body, s.body_text, s.message_id,
                    ${suppressionColumn('lower(s.to_email)')} -- all workspaces: the worker serves every tenant's queue`,
        [token, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), limit, INTERRUPTED.committed, INTERRUPTED.sending],
      ),
    );
    return rows.map((row) => ({ workspace_id: row.workspace_id as string, sent_email_id: row.sent_email_id as string, trace: row.trace as Record<string, string>, row }));
  }

  /** What a claimed send needs: nothing (canceled), its failure (suppressed), or its message. */
  async function prepare(c: Claimed): Promise<Prepared | undefined> {
    const row = c.row;
    const send = sendRow(row);
    if (send.status !== 'queued') return undefined;
    if (row.suppressed) return { send, suppressed: row.suppressed as string };
    const tracked = rewriteLinks(row.body as string, { publicUrl: options.publicUrl, sentEmailId: send.id, tokens: options.tokens });
    const html = insertOpenPixel(tracked.html, trackingUrl(options.publicUrl, 'open', options.tokens.sign({ kind: 'open', sentEmailId: send.id })));
    const text = (row.body_text as string | null) ?? toText(row.body as string);
    const built = await buildMessage({
      sentEmailId: send.id,
      mailDomain: options.mailDomain,
      publicUrl: options.publicUrl,
      from: { address: row.from_email as string, ...(row.from_name ? { name: row.from_name as string } : {}) },
      to: { address: send.to_email },
      subject: send.subject,
      html,
      text,
      unsubscribeToken: options.tokens.sign({ kind: 'unsubscribe', sentEmailId: send.id }),
      thread: (row.thread as string[]).length ? { messageIds: row.thread as string[] } : undefined,
      verp: row.verp as boolean,
    });
    return { send, raw: built.raw, envelope: built.envelope, links: tracked.links };
  }

  /** The claimed sends' tracked links, in one statement, before any of them is handed over (a click may come at once). */
  async function storeLinks(token: string, prepared: readonly Prepared[]): Promise<void> {
    const withLinks = prepared.filter((p) => p.links?.length);
    if (!withLinks.length) return;
    await untraced(() =>
      db.query(
        `UPDATE deliveries d SET links = given.links
           FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[]) AS given (workspace_id, sent_email_id, links)
          WHERE d.workspace_id = given.workspace_id AND d.sent_email_id = given.sent_email_id AND d.lease_token = $4::uuid`,
        [withLinks.map((p) => p.send.workspace_id), withLinks.map((p) => p.send.id), withLinks.map((p) => JSON.stringify(p.links)), token],
      ),
    );
  }

  /**
   * The last check before the end-of-data mark, and the commit that marks the message handed over:
   * from then on the server may have it, so a cancel is too late (the send is recorded `sent` only
   * on the server's answer).
   */
  async function handOver(send: SendRow, token: string, provider: 'smtp' | 'log'): Promise<void> {
    // The common case in one statement: under the send's row lock, still queued and its address
    // not suppressed, and `committed` written with that reading.
    const { rowCount: committed } = await db.query(
      `WITH s AS (SELECT s.status, ${suppressionColumn('$5')} FROM sent_emails s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid FOR UPDATE OF s)
       UPDATE deliveries SET state = 'committed', committed_at = now(), provider = $4
        WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid AND lease_token = $3::uuid AND state = 'sending'
          AND EXISTS (SELECT 1 FROM s WHERE s.status = 'queued' AND s.suppressed IS NULL)`,
      [send.workspace_id, send.id, token, provider, send.to_email.toLowerCase()],
    );
    if (committed === 1) return;
    // Something stands in the way: find out what, under the same lock, and act on it.
    let calledOff: string | undefined;
    await commit(async (tx) => {
      const { rows } = await tx.query<{ status: string; suppressed: string | null }>(
        `SELECT s.status, ${suppressionColumn('$3')} FROM sent_emails s WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid FOR UPDATE OF s`,
        [send.workspace_id, send.id, send.to_email.toLowerCase()],
      );
      if (rows[0]?.status !== 'queued') {
        calledOff = `status ${rows[0]?.status ?? 'gone'}`;
        return [];
      }
      const suppressed = rows[0].suppressed;
      if (suppressed) {
        calledOff = 'suppressed';
        return markFailed(tx, send, `suppressed: ${suppressed === 'unsubscribed' ? 'unsubscribed' : 'hard bounce'}`);
      }
      const { rowCount } = await tx.query(
        `UPDATE deliveries SET state = 'committed', committed_at = now(), provider = $4
          WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid AND lease_token = $3::uuid AND state = 'sending'`,
        [send.workspace_id, send.id, token, provider],
      );
      if (rowCount === 0) calledOff = 'lease lost';
      return [];
    });
    if (calledOff) throw new CalledOff(calledOff);
  }

  /**
   * Retries the send later, or fails it after its last attempt; which one it was. Either way the
   * send shows the attempt's error (`last_error`) and its attempts so far, and a retry when it goes.
   */
  async function retryOrFail(send: SendRow, reason: string): Promise<'retried' | 'failed' | 'called_off'> {
    let outcome: 'retried' | 'failed' | 'called_off' = 'retried';
    await commit(async (tx) => {
      // The send's row first, then its delivery's, as the hand-over and a cancel take them.
      const { rows: current } = await tx.query<{ status: string }>(
        `SELECT status FROM sent_emails WHERE workspace_id = $1::uuid AND id = $2::uuid FOR UPDATE`,
        [send.workspace_id, send.id],
      );
      if (current[0]?.status !== 'queued') {
        // Canceled while the attempt was under way: finished already, nothing to retry.
        outcome = 'called_off';
        return [];
      }
      const { rows } = await tx.query<{ attempts: number }>(
        `UPDATE deliveries SET last_error = $3 WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid RETURNING attempts`,
        [send.workspace_id, send.id, reason.slice(0, ATTEMPT_ERROR_MAX)],
      );
      const attempts = rows[0]?.attempts ?? maxAttempts;
      if (attempts >= maxAttempts) {
        outcome = 'failed';
        return markFailed(tx, send, `delivery failed after ${attempts} attempts: ${reason}`);
      }
      await scheduleRetry(tx, send, reason, new Date(clock.now().getTime() + backoffMs(attempts, retryBaseMs, 60 * 60_000)));
      return [];
    });
    return outcome;
  }

  /**
   * One attempt, a span of the trace that queued the send, recorded with its provider and outcome
   * once it is settled.
   */
  async function deliver(c: Claimed, prepared: Prepared, token: string): Promise<void> {
    const started = performance.now();
    await withStoredTrace(c.trace, 'deliver email', { 'crm.sent_email.id': c.sent_email_id, 'crm.workspace_id': c.workspace_id }, async (span) => {
      const settled = await attempt(c, prepared, token);
      span.setAttributes({ 'crm.mail.provider': settled.provider, 'crm.mail.outcome': settled.outcome });
      recordHistogram('crm.mail.delivery.duration', (performance.now() - started) / 1000, {
        'crm.mail.provider': settled.provider,
        'crm.mail.outcome': settled.outcome,
      });
    });
  }

  type Settled = { provider: 'smtp' | 'log' | 'none'; outcome: 'sent' | 'retried' | 'bounced' | 'failed' | 'called_off' };

  async function attempt(c: Claimed, prepared: Prepared, token: string): Promise<Settled> {
    const { send } = prepared;
    if (prepared.suppressed) {
      await commit((tx) => markFailed(tx, send, `suppressed: ${prepared.suppressed === 'unsubscribed' ? 'unsubscribed' : 'hard bounce'}`));
      return { provider: 'none', outcome: 'failed' };
    }
    if (c.row.was === 'committed') {
      // Its worker stopped after the end of data and before the answer was recorded: the server
      // may or may not have kept it, so it goes again under the same Message-ID.
      log.warn({ sentEmailId: send.id }, 'handed over by a worker that stopped before the answer; delivering it again');
    }
    const transport = await options.transports.forWorkspace(send.workspace_id);
    try {
      await withClientSpan(transport.provider === 'smtp' ? 'smtp send' : 'write .eml', { 'crm.mail.provider': transport.provider }, () =>
        transport.send(
          { workspaceId: send.workspace_id, sentEmailId: send.id, raw: prepared.raw!, envelope: prepared.envelope! },
          () => handOver(send, token, transport.provider),
        ),
      );
    } catch (error) {
      if (error instanceof CalledOff || (error as { cause?: unknown })?.cause instanceof CalledOff) {
        log.info({ sentEmailId: send.id, reason: (error as Error).message }, 'send called off before it left');
        return { provider: transport.provider, outcome: 'called_off' };
      }
      const failure = smtpFailure(error);
      const described = describeFailure(failure, transport.via);
      log.warn({ sentEmailId: send.id, code: failure.code, command: failure.command, error: described }, 'delivery attempt failed');
      // Hard at RCPT TO, soft at MAIL FROM or DATA, a retry on 4xx or before the transaction: the
      // one rule in mail/bounce-severity.ts.
      const { verdict, statusCode } = smtpRefusal({ code: failure.code, command: failure.command, text: failure.message });
      if (verdict !== 'retry') {
        await commit((tx) => markBounced(tx, send, { type: verdict, statusCode, detail: described, attemptError: described, occurredAt: clock.now() }));
        return { provider: transport.provider, outcome: 'bounced' };
      }
      return { provider: transport.provider, outcome: await retryOrFail(send, described) };
    }
    await sentRecords.add({ send, provider: transport.provider, at: clock.now() });
    return { provider: transport.provider, outcome: 'sent' };
  }

  /** Claims and delivers until stopped; what has started finishes. */
  async function work(signal: AbortSignal): Promise<void> {
    // Sends in flight, each started as soon as it is claimed. The next batch is claimed once a
    // quarter of the places are free (or none is in flight), not when the whole batch is done,
    // so one slow server does not hold back the sends behind it.
    const inFlight = new Set<Promise<void>>();
    const refill = Math.max(1, Math.floor(concurrency / 4));
    let idling: Promise<void> | undefined;
    const idle = () => (idling ??= waker.idle(pollMs, signal).finally(() => (idling = undefined)));
    const start = (c: Claimed, prepared: Prepared, token: string) => {
      const running: Promise<void> = deliver(c, prepared, token)
        .catch((error: unknown) => {
          // The database or the directory failed: the lease expires and the send is taken again.
          log.error({ err: error, sentEmailId: c.sent_email_id }, 'delivery failed unexpectedly; it will be retried');
        })
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    };
    while (!signal.aborted) {
      const room = concurrency - inFlight.size;
      if (room >= refill || inFlight.size === 0) {
        const token = newId();
        const claimed = await claim(token, room);
        const ready: { c: Claimed; prepared: Prepared }[] = [];
        for (const c of claimed) {
          try {
            const prepared = await prepare(c);
            if (prepared) ready.push({ c, prepared });
          } catch (error) {
            // A message that cannot be built: its lease expires and it is tried again.
            log.error({ err: error, sentEmailId: c.sent_email_id }, 'building a message failed; it will be retried');
          }
        }
        await storeLinks(token, ready.map((r) => r.prepared));
        for (const { c, prepared } of ready) start(c, prepared, token);
        if (claimed.length === room) continue; // a full batch: more may be due
        // Nothing more is due now: wait for new work (a wake, the poll) or a place to free up.
        await Promise.race(inFlight.size ? [...inFlight, idle()] : [idle()]);
        continue;
      }
      await Promise.race([...inFlight]);
    }
    // Stopping: what has started finishes (a hand-over is never cut between its commit and its end).
    await Promise.all(inFlight);
  }

  return {
    name: 'delivery',
    wake: () => waker.wake(),
    async run(signal) {
      const unobserve = observeGauges(async (observe) => {
        const { count, oldestSeconds } = await readBacklog(
          db,
          `SELECT next_attempt_at AS at FROM deliveries WHERE state <> 'done' AND next_attempt_at <= now()
            ORDER BY next_attempt_at -- all workspaces: the delivery queue's backlog`,
        );
        observe('crm.mail.queue.due', count, {});
        observe('crm.mail.queue.oldest_due_age', oldestSeconds, {});
      });
      try {
        await work(signal);
      } finally {
        unobserve();
      }
    },
  };
}
