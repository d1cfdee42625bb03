import { convert } from 'html-to-text';
import {
  type Clock,
  type CrmEvent,
  type Logger,
  type SqlClient,
  type SqlQueryable,
  type Worker,
  backoffMs,
  createWaker,
  newId,
  observeGauges,
  readBacklog,
  recordHistogram,
  untraced,
  withClientSpan,
  withStoredTrace,
  writeOutbox,
} from '@crm/kit';
import { buildMessage, insertOpenPixel, rewriteLinks, type TrackingTokens, trackingUrl } from '../mail';
import { type SendRow, SEND_COLUMNS, markBounced, markFailed, markSent, sendRow, suppressionColumn } from '../records';
import { type Transports, smtpFailure } from './transports';

/**
 * The delivery worker (DESIGN.md, Messaging: queue): takes due sends from the `deliveries` queue,
 * any number of replicas at once, and hands each to its provider exactly once.
 *
 * 1. Claim: due rows are taken with FOR UPDATE SKIP LOCKED under a lease token; the lease moves
 *    next_attempt_at to its end, so a worker that dies leaves its rows due again when it expires.
 *    Each claimed send starts at once; more are claimed whenever a quarter of the places are free.
 * 2. Prepare, under the send's row lock: a send no longer queued (canceled) is dropped; a send to an
 *    address suppressed since it was queued fails; otherwise the message is built (tracked links
 *    stored with the delivery) and the row moves to `sending`.
 * 3. Hand over: the whole message is written to the SMTP server, and just before its end-of-data
 *    mark the send's status and suppression are read once more under the row lock (exit wins at
 *    send time: a cancel or an unsubscribe that lands meanwhile abandons the transaction, and the
 *    server discards it) and `committed` is written. Only then does the mark go out.
 * 4. Finish: sent on the server's 250; on a refusal, bounced (5xx) or retried with backoff (4xx,
 *    connection failures) until the last attempt fails the send with its reason.
 *
 * A worker that dies before `committed` left nothing the server kept: the send goes again. One
 * that dies after it handed everything over: the send is taken as delivered, never sent twice.
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

interface Claimed {
  workspace_id: string;
  sent_email_id: string;
  /** The trace context of the request that queued the send. */
  trace: Record<string, string>;
}

interface Prepared {
  send: SendRow;
  raw?: Buffer;
  envelope?: { from: string; to: string[] };
  /** A previous worker handed it over completely before it died: record it as sent. */
  committedAt?: Date;
  committedProvider?: 'smtp' | 'log';
  /** Ended before any hand-over: the address is suppressed now (the send failed). */
  suppressed?: true;
}

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

  /** Commits work and its events together, and wakes the relay. */
  async function commit(work: (tx: SqlQueryable) => Promise<CrmEvent[]>): Promise<void> {
    const events = await db.transaction(async (tx) => {
      const written = await work(tx);
      await writeOutbox(tx, written);
      return written;
    });
    if (events.length) options.afterCommit();
  }

  async function claim(token: string, limit: number): Promise<Claimed[]> {
    const now = clock.now();
    // The poll is untraced (it runs every second); each send it claims is traced (deliver).
    const { rows } = await untraced(() =>
      db.query<Claimed>(
        `UPDATE deliveries d SET lease_token = $1::uuid, next_attempt_at = $3::timestamptz
           FROM (SELECT workspace_id, sent_email_id FROM deliveries
                  WHERE state <> 'done' AND next_attempt_at <= $2::timestamptz
                  ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED) AS due
          WHERE d.workspace_id = due.workspace_id AND d.sent_email_id = due.sent_email_id
          RETURNING d.workspace_id, d.sent_email_id, d.trace -- all workspaces: the worker serves every tenant's queue`,
        [token, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), limit],
      ),
    );
    return rows;
  }

  async function prepare(c: Claimed, token: string): Promise<Prepared | undefined> {
    let prepared: Prepared | undefined;
    await commit(async (tx) => {
      const { rows } = await tx.query(
        `SELECT ${SEND_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')}, s.from_email, s.from_name, s.body, s.body_text, s.message_id,
                d.state, d.thread, d.verp, d.lease_token, d.committed_at, d.provider AS delivery_provider, ${suppressionColumn('lower(s.to_email)')}
           FROM sent_emails s JOIN deliveries d ON d.workspace_id = s.workspace_id AND d.sent_email_id = s.id
          WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid FOR UPDATE OF s, d`,
        [c.workspace_id, c.sent_email_id],
      );
      const row = rows[0];
      if (!row || row.lease_token !== token) return [];
      const send = sendRow(row);
      if (row.state === 'committed') {
        prepared = { send, committedAt: row.committed_at as Date, committedProvider: row.delivery_provider as 'smtp' | 'log' };
        return [];
      }
      if (row.state === 'done' || send.status !== 'queued') {
        await tx.query(`UPDATE deliveries SET state = 'done', lease_token = NULL WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`, [
          c.workspace_id,
          c.sent_email_id,
        ]);
        return [];
      }
      const suppressed = row.suppressed as string | null;
      if (suppressed) {
        prepared = { send, suppressed: true };
        return markFailed(tx, send, `suppressed: ${suppressed === 'unsubscribed' ? 'unsubscribed' : 'hard bounce'}`);
      }

      const tracked = rewriteLinks(row.body as string, { publicUrl: options.publicUrl, sentEmailId: send.id, tokens: options.tokens });
      const html = insertOpenPixel(tracked.html, trackingUrl(options.publicUrl, 'open', options.tokens.sign({ kind: 'open', sentEmailId: send.id })));
      const text = (row.body_text as string | null) ?? convert(row.body as string, { wordwrap: 78 });
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
      await tx.query(
        `UPDATE deliveries SET state = 'sending', attempts = attempts + 1, links = $3::jsonb
          WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`,
        [c.workspace_id, c.sent_email_id, JSON.stringify(tracked.links)],
      );
      prepared = { send, raw: built.raw, envelope: built.envelope };
      return [];
    });
    return prepared;
  }

  /** The last check before the end-of-data mark, and the commit that makes the send delivered. */
  async function handOver(send: SendRow, token: string, provider: 'smtp' | 'log'): Promise<void> {
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

  /** Retries the send later, or fails it after its last attempt; which one it was. */
  async function retryOrFail(send: SendRow, reason: string): Promise<'retried' | 'failed'> {
    let outcome: 'retried' | 'failed' = 'retried';
    await commit(async (tx) => {
      const { rows } = await tx.query<{ attempts: number }>(
        `SELECT attempts FROM deliveries WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid FOR UPDATE`,
        [send.workspace_id, send.id],
      );
      const attempts = rows[0]?.attempts ?? maxAttempts;
      if (attempts >= maxAttempts) {
        outcome = 'failed';
        return markFailed(tx, send, `delivery failed after ${attempts} attempts: ${reason}`);
      }
      const next = new Date(clock.now().getTime() + backoffMs(attempts, retryBaseMs, 60 * 60_000));
      await tx.query(
        `UPDATE deliveries SET state = 'pending', lease_token = NULL, next_attempt_at = $3::timestamptz, last_error = $4
          WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`,
        [send.workspace_id, send.id, next.toISOString(), reason.slice(0, 1_000)],
      );
      return [];
    });
    return outcome;
  }

  /**
   * One attempt, a span of the trace that queued the send, recorded with its provider and outcome
   * once it is settled.
   */
  async function deliver(c: Claimed, token: string): Promise<void> {
    const started = performance.now();
    await withStoredTrace(c.trace, 'deliver email', { 'crm.sent_email.id': c.sent_email_id, 'crm.workspace_id': c.workspace_id }, async (span) => {
      const settled = await attempt(c, token);
      if (!settled) return;
      span.setAttributes({ 'crm.mail.provider': settled.provider, 'crm.mail.outcome': settled.outcome });
      recordHistogram('crm.mail.delivery.duration', (performance.now() - started) / 1000, {
        'crm.mail.provider': settled.provider,
        'crm.mail.outcome': settled.outcome,
      });
    });
  }

  type Settled = { provider: 'smtp' | 'log' | 'none'; outcome: 'sent' | 'retried' | 'bounced' | 'failed' | 'called_off' };

  /** Undefined when there was nothing to deliver (canceled before, or the claim was lost). */
  async function attempt(c: Claimed, token: string): Promise<Settled | undefined> {
    const prepared = await prepare(c, token);
    if (!prepared) return undefined;
    const { send } = prepared;
    if (prepared.suppressed) return { provider: 'none', outcome: 'failed' };
    if (prepared.committedAt) {
      // Its worker stopped after committing the hand-over and before recording the answer. Over
      // SMTP the end-of-data mark followed the commit at once: taken as delivered, never sent
      // twice (gateway/README.md, "Delivery, once"). The log provider's file is finished now.
      const provider = prepared.committedProvider ?? 'smtp';
      if (provider === 'log' && !(await options.transports.finishLogged(send.workspace_id, send.id))) {
        log.warn({ sentEmailId: send.id }, 'a logged send committed by a stopped worker left no file; it is written again');
        await commit(async (tx) => {
          await tx.query(`UPDATE deliveries SET state = 'sending' WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid AND lease_token = $3::uuid`, [
            send.workspace_id,
            send.id,
            token,
          ]);
          return [];
        });
        return attempt(c, token);
      }
      log.warn({ sentEmailId: send.id, provider }, 'handed over by a worker that stopped before the answer; taken as delivered');
      await commit((tx) => markSent(tx, send, provider, prepared.committedAt!));
      return { provider, outcome: 'sent' };
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
      log.warn({ sentEmailId: send.id, code: failure.code, command: failure.command, error: failure.message }, 'delivery attempt failed');
      if (failure.permanent) {
        // Refused at RCPT TO: the address does not take mail (hard). Refused later: the message
        // or the sender was refused, not the address (soft, no suppression).
        const hard = /RCPT/i.test(failure.command ?? '');
        const statusCode = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(failure.message)?.[1] ?? String(failure.code);
        await commit((tx) => markBounced(tx, send, { type: hard ? 'hard' : 'soft', statusCode, detail: failure.message, occurredAt: clock.now() }));
        return { provider: transport.provider, outcome: 'bounced' };
      }
      return { provider: transport.provider, outcome: await retryOrFail(send, failure.message) };
    }
    await commit((tx) => markSent(tx, send, transport.provider, clock.now()));
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
    const start = (c: Claimed, token: string) => {
      const running: Promise<void> = deliver(c, token)
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
        for (const c of claimed) start(c, token);
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
