import * as http from 'node:http';
import * as https from 'node:https';
import { randomUUID } from 'node:crypto';
import {
  type Clock,
  type Logger,
  type SqlClient,
  type Worker,
  createWaker,
  observeGauges,
  readBacklog,
  recordHistogram,
  systemClock,
  untraced,
  withStoredTrace,
} from '@crm/kit';
import { type EgressPolicy, egressAgents } from './egress';
import { signatureHeader } from './signing';
import type { SealedSecrets } from './webhooks.service';

/**
 * Retries after a failed attempt (DESIGN.md section 4, "Delivery"): about 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h, each ±10 %; after the last, the delivery is `failed`. Eight attempts in all.
 */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Deliveries in flight to one endpoint, across replicas (WEBHOOKS_ENDPOINT_CONCURRENCY). */
export const DEFAULT_PER_ENDPOINT = 8;
/** Deliveries in flight per replica (WEBHOOKS_CONCURRENCY): room for 16 endpoints that hang, each at its bound, beside the rest. */
export const DEFAULT_MAX_IN_FLIGHT = 256;

export interface DeliveryWorkerOptions {
  db: SqlClient;
  /** The secrets that sign an endpoint's deliveries now, from its sealed columns, which the claim reads (webhooks.service.ts). */
  openSecrets(workspaceId: string, endpointId: string, sealed: SealedSecrets): string[];
  egress: EgressPolicy;
  log: Logger;
  clock?: Clock;
  /**
   * Deliveries in flight to one endpoint at once, across every replica (counted from the leases in
   * the table): a slow receiver holds only its own slots, never another endpoint's.
   */
  perEndpoint?: number;
  /** Deliveries in flight at once, per replica. */
  maxInFlight?: number;
  /**
   * How long a claim holds a delivery; longer than an attempt and its recording can take. A replica
   * that stops mid-attempt keeps its endpoint's slot this long.
   */
  leaseMs?: number;
  /** Idle wait between rounds when nothing wakes the worker. */
  pollMs?: number;
  /**
   * Woken while attempts are in flight, how long the worker lets more of them end before it
   * claims: one claim (a transaction of five statements) then takes the slots of several.
   */
  gatherMs?: number;
  timeoutMs?: number;
  /** In [0, 1): the jitter's draw (tests fix it). */
  random?: () => number;
}

export interface DeliveryWorker extends Worker {
  /** A delivery became due (an event was enqueued, a retry was asked for): claim now. */
  wake(): void;
  /** One round: claims what is due and starts sending it; resolves when those attempts are over. */
  round(): Promise<number>;
}

interface Claimed extends SealedSecrets {
  workspace_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  attempts: number;
  trace_context: Record<string, string> | null;
  url: string;
}

interface Candidate {
  workspace_id: string;
  id: string;
  endpoint_id: string;
}

/** What an attempt came to: the delivery succeeded, is retried later, or failed for good. */
type Outcome = 'succeeded' | 'retried' | 'failed';

interface AttemptOutcome {
  statusCode?: number;
  error?: string;
  durationMs: number;
}

/** POST with no redirect followed, a deadline on the whole exchange, and at most 64 KiB of the answer read. */
function post(url: URL, headers: Record<string, string>, body: string, agents: { http: http.Agent; https: https.Agent }, timeoutMs: number): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const module = url.protocol === 'https:' ? https : http;
    const request = module.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs / 1000} s` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish({ error: error.message.slice(0, 500) }));
    request.on('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // The answer's body is not used; past 64 KiB it is not read at all.
        if (read >= MAX_ANSWER_BYTES) {
          finish({ statusCode });
          response.destroy();
        }
      });
      response.on('end', () => finish({ statusCode }));
      response.on('close', () => finish({ statusCode }));
      response.on('error', () => finish({ statusCode }));
    });
    request.end(body);
  });
}

/** Why an answer is not a success, or undefined for a 2xx. A redirect is not followed. */
function failure(outcome: AttemptOutcome): string | undefined {
  if (outcome.error) return outcome.error;
  const code = outcome.statusCode ?? 0;
  if (code >= 200 && code < 300) return undefined;
  if (code >= 300 && code < 400) return `answered ${code}; redirects are not followed`;
  return `answered ${code}`;
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, log, egress } = options;
  const clock = options.clock ?? systemClock;
  const perEndpoint = options.perEndpoint ?? DEFAULT_PER_ENDPOINT;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const gatherMs = options.gatherMs ?? 10;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  const owner = randomUUID();
  const agents = egressAgents(egress);
  const waker = createWaker(clock);
  const running = new Set<Promise<void>>();
  let total = 0;

  /**
   * Leases due deliveries for this replica: at most `maxInFlight` of its own in flight, and never
   * more than `perEndpoint` unexpired leases on one endpoint, whichever replicas hold them.
   *
   * The per-endpoint bound holds under concurrent claims because every lease is taken while its
   * endpoint's row is locked (FOR NO KEY UPDATE, which a delivery's insert, taking FOR KEY SHARE for
   * its foreign key, does not wait for), and the leases already held are counted after that lock,
   * in a statement of their own: under READ COMMITTED each statement sees what committed before it
   * began, so a count taken once the lock is held sees every lease another claim committed before
   * releasing it. Counting in the statement that takes the lock would not: its snapshot predates
   * the lock. An endpoint another replica is claiming for is skipped (SKIP LOCKED), not waited for;
   * that claim serves it, and the next round comes back to it.
   */
  async function claim(): Promise<Claimed[]> {
    const room = maxInFlight - total;
    if (room <= 0) return [];
    const now = clock.now().toISOString();
    return untraced(() =>
      db.transaction(async (tx) => {
        // Due, unleased deliveries of enabled endpoints, across workspaces (a system loop), oldest
        // first, at most what each endpoint's bound leaves room for: found endpoint by endpoint, so
        // a receiver at its bound with thousands waiting costs a claim nothing. Rows another
        // replica is claiming are skipped (SKIP LOCKED).
        const { rows: candidates } = await tx.query<Candidate>(
          `-- all workspaces: the delivery worker claims the due deliveries of every tenant.
           WITH RECURSIVE waiting AS (
             -- The endpoints with pending deliveries, one index probe each (a loose index scan of
             -- webhook_deliveries_pending_idx), however many deliveries wait behind them.
             (SELECT workspace_id, endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY workspace_id, endpoint_id LIMIT 1)
             UNION ALL
             SELECT next.workspace_id, next.endpoint_id FROM waiting w CROSS JOIN LATERAL (
               SELECT d.workspace_id, d.endpoint_id FROM webhook_deliveries d
               WHERE d.status = 'pending' AND (d.workspace_id, d.endpoint_id) > (w.workspace_id, w.endpoint_id)
               ORDER BY d.workspace_id, d.endpoint_id LIMIT 1
             ) next
           )
           SELECT c.workspace_id, c.id, c.endpoint_id FROM waiting w
           JOIN webhook_endpoints e ON e.workspace_id = w.workspace_id AND e.id = w.endpoint_id AND e.enabled
           CROSS JOIN LATERAL (
             SELECT count(*)::int AS n FROM webhook_deliveries l
             WHERE l.workspace_id = w.workspace_id AND l.endpoint_id = w.endpoint_id AND l.lease_expires_at > $1::timestamptz
           ) held
           CROSS JOIN LATERAL (
             -- Each endpoint's oldest due, unleased deliveries, as many as its bound leaves room for.
             SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
             WHERE d.workspace_id = w.workspace_id AND d.endpoint_id = w.endpoint_id AND d.status = 'pending'
               AND d.next_attempt_at <= $1::timestamptz AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1::timestamptz)
             ORDER BY d.next_attempt_at LIMIT greatest($2::int - held.n, 0)
             FOR UPDATE SKIP LOCKED
           ) c
           ORDER BY c.next_attempt_at LIMIT $3`,
          [now, perEndpoint, Math.min(room * 4, 400)],
        );
        if (!candidates.length) return [];
        const endpoints = [...new Map(candidates.map((c) => [`${c.workspace_id}:${c.endpoint_id}`, c])).values()];
        // The endpoints this claim leases for, locked until it commits (see above).
        const { rows: locked } = await tx.query<{ workspace_id: string; id: string }>(
          `SELECT e.workspace_id, e.id FROM webhook_endpoints e
           JOIN unnest($1::uuid[], $2::uuid[]) AS c(workspace_id, id) ON e.workspace_id = c.workspace_id AND e.id = c.id
           WHERE e.enabled
           FOR NO KEY UPDATE OF e SKIP LOCKED`,
          [endpoints.map((c) => c.workspace_id), endpoints.map((c) => c.endpoint_id)],
        );
        if (!locked.length) return [];
        // Now, under the locks: the leases each holds, whichever replica took them.
        const { rows: held } = await tx.query<{ workspace_id: string; endpoint_id: string; n: number }>(
          `SELECT d.workspace_id, d.endpoint_id, count(*)::int AS n FROM webhook_deliveries d
           JOIN unnest($1::uuid[], $2::uuid[]) AS c(workspace_id, id) ON d.workspace_id = c.workspace_id AND d.endpoint_id = c.id
           WHERE d.status = 'pending' AND d.lease_expires_at > $3::timestamptz
           GROUP BY d.workspace_id, d.endpoint_id`,
          [locked.map((e) => e.workspace_id), locked.map((e) => e.id), now],
        );
        const free = new Map(locked.map((e) => [`${e.workspace_id}:${e.id}`, perEndpoint]));
        for (const h of held) free.set(`${h.workspace_id}:${h.endpoint_id}`, perEndpoint - h.n);
        const chosen: Candidate[] = [];
        for (const candidate of candidates) {
          const key = `${candidate.workspace_id}:${candidate.endpoint_id}`;
          const left = free.get(key) ?? 0;
          if (left <= 0 || chosen.length >= room) continue;
          free.set(key, left - 1);
          chosen.push(candidate);
        }
        if (!chosen.length) return [];
        const { rows: leased } = await tx.query<Claimed>(
          `UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = $2::timestamptz
           FROM webhook_endpoints e, unnest($3::uuid[], $4::uuid[]) AS c(workspace_id, id)
           WHERE d.workspace_id = c.workspace_id AND d.id = c.id AND e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
           RETURNING d.workspace_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts, d.trace_context, e.url,
             e.signing_secret, e.previous_signing_secret, e.previous_signing_secret_expires_at`,
          [owner, new Date(Date.parse(now) + leaseMs).toISOString(), chosen.map((c) => c.workspace_id), chosen.map((c) => c.id)],
        );
        return leased;
      }),
    );
  }

  /**
   * Successes waiting to be recorded, and the write under way. Successes are recorded together, in
   * one statement, the way a database commits a group: each one joins the next write, which starts
   * as soon as the previous one is over. Under load a write records many attempts for the cost of
   * one; alone, an attempt waits for nothing.
   */
  let successes: { delivery: Claimed; outcome: AttemptOutcome; at: Date; done: () => void; failed: (error: unknown) => void }[] = [];
  let writing: Promise<void> | undefined;

  async function writeSuccesses(): Promise<void> {
    // No await between the last look at `successes` and clearing `writing`: a success pushed after
    // it starts a write of its own.
    while (successes.length) {
      const batch = successes;
      successes = [];
      try {
        // Each delivery succeeded and its lease is released; each endpoint's run of failures ends.
        // The attempt joins the delivery's attempt_log, which keeps the most recent 20 (the
        // declaration's ATTEMPT_LOG_SIZE), `at` written the way the API writes timestamps.
        await db.query(
          `WITH s AS (
             SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[], $6::int[])
               AS s(workspace_id, id, attempts, at, status_code, duration_ms)
           ), d AS (
             UPDATE webhook_deliveries d SET status = 'succeeded', attempts = s.attempts, next_attempt_at = NULL, last_attempt_at = s.at,
               last_status_code = s.status_code, last_error = NULL, last_duration_ms = s.duration_ms, lease_owner = NULL, lease_expires_at = NULL,
               attempt_log = jsonb_path_query_array(d.attempt_log || jsonb_build_array(jsonb_build_object(
                 'attempt', s.attempts, 'at', to_char(s.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                 'status_code', s.status_code, 'duration_ms', s.duration_ms, 'error', NULL::text)), '$[last - 19 to last]'),
               updated_at = s.at
             FROM s WHERE d.workspace_id = s.workspace_id AND d.id = s.id AND d.lease_owner = $7
             RETURNING d.workspace_id, d.endpoint_id
           )
           UPDATE webhook_endpoints e SET failing_since = NULL
           FROM (SELECT DISTINCT workspace_id, endpoint_id FROM d) AS ok
           WHERE e.workspace_id = ok.workspace_id AND e.id = ok.endpoint_id AND e.failing_since IS NOT NULL`,
          [
            batch.map((b) => b.delivery.workspace_id),
            batch.map((b) => b.delivery.id),
            batch.map((b) => b.delivery.attempts + 1),
            batch.map((b) => b.at.toISOString()),
            batch.map((b) => b.outcome.statusCode ?? null),
            batch.map((b) => b.outcome.durationMs),
            owner,
          ],
        );
        for (const b of batch) b.done();
      } catch (error) {
        for (const b of batch) b.failed(error);
      }
    }
    writing = undefined;
  }

  function recordSuccess(delivery: Claimed, outcome: AttemptOutcome, at: Date): Promise<void> {
    return new Promise((done, failed) => {
      successes.push({ delivery, outcome, at, done, failed });
      writing ??= writeSuccesses();
    });
  }

  /** Records an attempt and releases the delivery's lease, so its endpoint's slot is free at once. */
  async function record(delivery: Claimed, outcome: AttemptOutcome, at: Date): Promise<Outcome> {
    const problem = failure(outcome);
    const attempts = delivery.attempts + 1;
    const common = [delivery.workspace_id, delivery.id, owner, attempts, at.toISOString(), outcome.statusCode ?? null, outcome.durationMs];
    if (!problem) {
      await recordSuccess(delivery, outcome, at);
      return 'succeeded';
    }
    const wait = RETRY_SCHEDULE_MS[attempts - 1];
    const next = wait === undefined ? null : new Date(at.getTime() + Math.round(wait * (0.9 + 0.2 * random()))).toISOString();
    // The attempt joins attempt_log as a success's does (writeSuccesses), trimmed to the most recent 20.
    await db.query(
      `UPDATE webhook_deliveries SET status = $8, attempts = $4, next_attempt_at = $9::timestamptz, last_attempt_at = $5::timestamptz,
         last_status_code = $6, last_error = $10, last_duration_ms = $7, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5::timestamptz,
         attempt_log = jsonb_path_query_array(attempt_log || jsonb_build_array(jsonb_build_object(
           'attempt', $4::int, 'at', to_char($5::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'status_code', $6::int, 'duration_ms', $7::int, 'error', $10::text)), '$[last - 19 to last]')
       WHERE workspace_id = $1::uuid AND id = $2::uuid AND lease_owner = $3`,
      [...common, next === null ? 'failed' : 'pending', next, problem],
    );
    // The endpoint's run of failures starts at its first failed attempt since a success; five days
    // of nothing but failures disables it.
    const { rows } = await db.query<{ disabled: boolean }>(
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $3::timestamptz),
         enabled = CASE WHEN coalesce(failing_since, $3::timestamptz) <= $4::timestamptz THEN false ELSE enabled END,
         disabled_reason = CASE WHEN enabled AND coalesce(failing_since, $3::timestamptz) <= $4::timestamptz
           THEN 'every delivery failed for 5 days' ELSE disabled_reason END,
         updated_at = CASE WHEN enabled AND coalesce(failing_since, $3::timestamptz) <= $4::timestamptz THEN $3::timestamptz ELSE updated_at END
       WHERE workspace_id = $1::uuid AND id = $2::uuid
       RETURNING enabled = false AND disabled_reason IS NOT NULL AS disabled`,
      [delivery.workspace_id, delivery.endpoint_id, at.toISOString(), new Date(at.getTime() - DISABLE_AFTER_MS).toISOString()],
    );
    if (rows[0]?.disabled) log.warn({ workspace_id: delivery.workspace_id, endpoint_id: delivery.endpoint_id }, 'webhook endpoint disabled: every delivery failed for 5 days');
    return next === null ? 'failed' : 'retried';
  }

  async function attempt(delivery: Claimed): Promise<void> {
    await withStoredTrace(
      delivery.trace_context,
      'webhook deliver',
      { 'crm.webhook.endpoint_id': delivery.endpoint_id, 'crm.webhook.event_type': delivery.event_type, 'crm.webhook.attempt': delivery.attempts + 1 },
      async (span) => {
        const at = clock.now();
        let outcome: AttemptOutcome;
        try {
          const url = new URL(delivery.url);
          if (url.protocol !== 'https:' && !(egress.allowHttp && url.protocol === 'http:')) {
            outcome = { error: 'the URL is not https', durationMs: 0 };
          } else {
            const secrets = options.openSecrets(delivery.workspace_id, delivery.endpoint_id, delivery);
            const body = JSON.stringify(delivery.payload);
            const timestamp = Math.floor(at.getTime() / 1000);
            outcome = await post(
              url,
              {
                'content-type': 'application/json',
                'user-agent': 'crm-webhooks/1',
                'webhook-id': delivery.event_id,
                'webhook-timestamp': String(timestamp),
                'webhook-signature': signatureHeader(secrets, delivery.event_id, timestamp, body),
              },
              body,
              agents,
              timeoutMs,
            );
          }
        } catch (error) {
          outcome = { error: error instanceof Error ? error.message.slice(0, 500) : 'failed', durationMs: 0 };
        }
        if (outcome.statusCode !== undefined) span.setAttribute('http.response.status_code', outcome.statusCode);
        if (failure(outcome)) span.setAttribute('error.type', outcome.statusCode ? String(outcome.statusCode) : 'connection');
        const settled = await record(delivery, outcome, at);
        span.setAttribute('crm.webhook.outcome', settled);
        recordHistogram('crm.webhook.delivery.duration', outcome.durationMs / 1000, { 'crm.webhook.outcome': settled });
        if (settled === 'succeeded') {
          // From the event (the body's timestamp, when the change happened) to the receiver's 2xx.
          const happened = Date.parse((delivery.payload as { timestamp?: string } | null)?.timestamp ?? '');
          if (Number.isFinite(happened)) {
            recordHistogram('crm.webhook.delivery.latency', Math.max(0, at.getTime() + outcome.durationMs - happened) / 1000, {
              'crm.webhook.first_attempt': delivery.attempts === 0 ? 'true' : 'false',
            });
          }
        }
      },
    );
  }

  function start(delivery: Claimed): Promise<void> {
    total++;
    const done = attempt(delivery)
      .catch((error) => log.error({ err: error, delivery_id: delivery.id }, 'webhook delivery: recording the attempt failed; the lease expires and it is retried'))
      .finally(() => {
        total--;
        running.delete(done);
        // A slot is free: what waited for it may go now.
        waker.wake();
      });
    running.add(done);
    return done;
  }

  return {
    name: 'webhook-delivery',
    wake: () => waker.wake(),
    async round() {
      const claimed = await claim();
      await Promise.all(claimed.map(start));
      return claimed.length;
    },
    async run(signal) {
      const unobserve = observeGauges(async (observe) => {
        const { count, oldestSeconds } = await readBacklog(
          db,
          `SELECT d.next_attempt_at AS at FROM webhook_deliveries d
            JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id AND e.enabled
            WHERE d.status = 'pending' AND d.next_attempt_at <= now()
            ORDER BY d.next_attempt_at -- all workspaces: the delivery queue's backlog`,
        );
        observe('crm.webhook.queue.due', count, {});
        observe('crm.webhook.queue.oldest_due_age', oldestSeconds, {});
      });
      try {
        while (!signal.aborted) {
          const claimed = await claim();
          for (const delivery of claimed) void start(delivery);
          await waker.idle(pollMs, signal);
          if (total > 0 && gatherMs > 0 && !signal.aborted) await clock.sleep(gatherMs, signal).catch(() => undefined);
        }
        // Let attempts in flight record their outcome (each is bounded by its timeout).
        await Promise.all([...running]);
      } finally {
        unobserve();
      }
    },
  };
}
