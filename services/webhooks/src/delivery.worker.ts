import * as http from 'node:http';
import * as https from 'node:https';
import { randomUUID } from 'node:crypto';
import { type Clock, type Logger, type SqlClient, type Worker, createWaker, systemClock, untraced, withStoredTrace } from '@crm/kit';
import { type EgressPolicy, egressAgents } from './egress';
import { signatureHeader } from './signing';

/**
 * Retries after a failed attempt (DESIGN.md section 4, "Delivery"): about 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h, each ±10 %; after the last, the delivery is `failed`. Eight attempts in all.
 */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryWorkerOptions {
  db: SqlClient;
  /** The secrets that sign an endpoint's deliveries now (webhooks.service.ts). */
  signingSecrets(workspaceId: string, endpointId: string): Promise<string[]>;
  egress: EgressPolicy;
  log: Logger;
  clock?: Clock;
  /** Deliveries in flight to one endpoint at once, per replica: a slow receiver holds only its own. */
  perEndpoint?: number;
  /** Deliveries in flight at once, per replica. */
  maxInFlight?: number;
  /** How long a claim holds a delivery; longer than an attempt can take. */
  leaseMs?: number;
  /** Idle wait between rounds when nothing wakes the worker. */
  pollMs?: number;
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

interface Claimed {
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
  const perEndpoint = options.perEndpoint ?? 4;
  const maxInFlight = options.maxInFlight ?? 64;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  const owner = randomUUID();
  const agents = egressAgents(egress);
  const waker = createWaker(clock);
  /** Attempts in flight by endpoint (`workspace:endpoint`). */
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;

  async function claim(): Promise<Claimed[]> {
    const room = maxInFlight - total;
    if (room <= 0) return [];
    const full = [...inFlight].filter(([, n]) => n >= perEndpoint).map(([key]) => key.split(':')[1]!);
    const now = clock.now();
    return untraced(() =>
      db.transaction(async (tx) => {
        // Due, unleased deliveries of enabled endpoints, across workspaces (a system loop): each
        // replica takes rows no other holds (SKIP LOCKED), then leases those it will send.
        const { rows } = await tx.query<{ workspace_id: string; id: string; endpoint_id: string }>(
          `-- all workspaces: the delivery worker claims the due deliveries of every tenant.
           SELECT d.workspace_id, d.id, d.endpoint_id FROM webhook_deliveries d
           JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id AND e.enabled
           WHERE d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz
             AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1::timestamptz)
             AND NOT (d.endpoint_id = ANY($2::uuid[]))
           ORDER BY d.next_attempt_at LIMIT $3
           FOR UPDATE OF d SKIP LOCKED`,
          [now.toISOString(), full, Math.min(room * 4, 200)],
        );
        const taken = new Map<string, number>();
        const chosen: { workspace_id: string; id: string }[] = [];
        for (const row of rows) {
          const key = `${row.workspace_id}:${row.endpoint_id}`;
          const count = (inFlight.get(key) ?? 0) + (taken.get(key) ?? 0);
          if (count >= perEndpoint || chosen.length >= room) continue;
          taken.set(key, (taken.get(key) ?? 0) + 1);
          chosen.push(row);
        }
        if (!chosen.length) return [];
        const { rows: leased } = await tx.query<Claimed>(
          `UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = $2::timestamptz
           FROM webhook_endpoints e, unnest($3::uuid[], $4::uuid[]) AS c(workspace_id, id)
           WHERE d.workspace_id = c.workspace_id AND d.id = c.id AND e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
           RETURNING d.workspace_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts, d.trace_context, e.url`,
          [owner, new Date(now.getTime() + leaseMs).toISOString(), chosen.map((c) => c.workspace_id), chosen.map((c) => c.id)],
        );
        return leased;
      }),
    );
  }

  async function record(delivery: Claimed, outcome: AttemptOutcome, at: Date): Promise<void> {
    const problem = failure(outcome);
    const attempts = delivery.attempts + 1;
    const common = [delivery.workspace_id, delivery.id, owner, attempts, at.toISOString(), outcome.statusCode ?? null, outcome.durationMs];
    if (!problem) {
      await db.query(
        `UPDATE webhook_deliveries SET status = 'succeeded', attempts = $4, next_attempt_at = NULL, last_attempt_at = $5::timestamptz,
           last_status_code = $6, last_error = NULL, last_duration_ms = $7, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5::timestamptz
         WHERE workspace_id = $1::uuid AND id = $2::uuid AND lease_owner = $3`,
        common,
      );
      await db.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE workspace_id = $1::uuid AND id = $2::uuid AND failing_since IS NOT NULL`, [
        delivery.workspace_id,
        delivery.endpoint_id,
      ]);
      return;
    }
    const wait = RETRY_SCHEDULE_MS[attempts - 1];
    const next = wait === undefined ? null : new Date(at.getTime() + Math.round(wait * (0.9 + 0.2 * random()))).toISOString();
    await db.query(
      `UPDATE webhook_deliveries SET status = $8, attempts = $4, next_attempt_at = $9::timestamptz, last_attempt_at = $5::timestamptz,
         last_status_code = $6, last_error = $10, last_duration_ms = $7, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5::timestamptz
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
            const secrets = await options.signingSecrets(delivery.workspace_id, delivery.endpoint_id);
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
        await record(delivery, outcome, at);
      },
    );
  }

  function start(delivery: Claimed): Promise<void> {
    const key = `${delivery.workspace_id}:${delivery.endpoint_id}`;
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    total++;
    const done = attempt(delivery)
      .catch((error) => log.error({ err: error, delivery_id: delivery.id }, 'webhook delivery: recording the attempt failed; the lease expires and it is retried'))
      .finally(() => {
        const left = (inFlight.get(key) ?? 1) - 1;
        if (left > 0) inFlight.set(key, left);
        else inFlight.delete(key);
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
      while (!signal.aborted) {
        const claimed = await claim();
        for (const delivery of claimed) void start(delivery);
        await waker.idle(pollMs, signal);
      }
      // Let attempts in flight record their outcome (each is bounded by its timeout).
      await Promise.all([...running]);
    },
  };
}
