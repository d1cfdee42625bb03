import { CrmConnectionError, CrmTimeoutError, errorFromResponse, retryAfterSeconds } from './errors';
import { RETRYABLE_STATUSES, type RetryBudget, type RetryPolicy, retryDelayMs, sleep } from './retry';

/** Methods that change something: they carry an `Idempotency-Key` (gateway/README.md, Idempotency). */
const WRITES: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface TransportOptions {
  fetch: typeof globalThis.fetch;
  policy: RetryPolicy;
  budget: RetryBudget;
  /** Per attempt; 0 means none. */
  timeoutMs: number;
  newIdempotencyKey: () => string;
  random: () => number;
}

export interface CallOptions {
  /** Per attempt, in ms (overrides the client's). */
  timeoutMs?: number;
  /** Retries after the first attempt (overrides the client's). */
  maxRetries?: number;
  /**
   * The write's `Idempotency-Key`. By default one is generated for each write and sent on its
   * every attempt. `false` sends none: the write is then never retried after a lost connection.
   */
  idempotencyKey?: string | false;
}

/**
 * Sends one request, and again when that is safe and useful:
 * - 429 and 503 (nothing was done) after `Retry-After`, with jitter, within the retry budget;
 * - a lost connection or a timeout: a read always, a write only when it carries an
 *   `Idempotency-Key`, since the server may have applied it (the key makes the retry replay the
 *   first answer instead of writing twice);
 * - on such a retry, a 409 naming the call's own key: the first attempt is still being processed.
 * Answers other than 2xx become typed errors; an abort rejects with the signal's reason.
 */
export async function send(request: Request, call: CallOptions, options: TransportOptions): Promise<Response> {
  const { policy, budget } = options;
  const maxRetries = call.maxRetries ?? policy.maxRetries;
  const timeoutMs = call.timeoutMs ?? options.timeoutMs;
  const method = request.method.toUpperCase();
  const headers = new Headers(request.headers);
  // Generated once per write, before the first attempt, so every retry carries the same key.
  if (WRITES.has(method) && call.idempotencyKey !== false && !headers.has('idempotency-key')) {
    headers.set('Idempotency-Key', call.idempotencyKey ?? options.newIdempotencyKey());
  }
  const safeToResend = !WRITES.has(method) || headers.has('idempotency-key');
  // Read once: a body stream can be sent only once, and every attempt sends the same bytes.
  const body = request.body === null ? undefined : await request.arrayBuffer();
  const signal = request.signal;

  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    const retriesLeft = attempt <= maxRetries;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    let response: Response;
    try {
      response = await options.fetch(request.url, {
        method,
        headers,
        body,
        redirect: request.redirect,
        signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
      });
    } catch (cause) {
      if (signal.aborted) throw signal.reason;
      const failure = timeout?.aborted
        ? new CrmTimeoutError(`no answer from ${method} ${request.url} within ${timeoutMs} ms`, attempt, { cause })
        : new CrmConnectionError(`${method} ${request.url}: ${(cause as Error)?.message ?? cause}`, attempt, { cause });
      if (!safeToResend || !retriesLeft || !budget.onFailure()) throw failure;
      await sleep(retryDelayMs(policy, attempt - 1, undefined, options.random), signal);
      continue;
    }
    if (response.ok) {
      budget.onSuccess();
      return response;
    }
    if (RETRYABLE_STATUSES.has(response.status) && retriesLeft) {
      const after = retryAfterSeconds(response.headers);
      if ((after === undefined || after * 1000 <= policy.maxRetryAfterMs) && budget.onFailure()) {
        // The body is not needed; release the connection.
        await response.body?.cancel().catch(() => undefined);
        await sleep(retryDelayMs(policy, attempt - 1, after, options.random), signal);
        continue;
      }
    }
    const error = await errorFromResponse(response, attempt);
    // 409 naming this call's own key: an earlier attempt (one that timed out, or whose answer was
    // lost) is still being processed. Asking again later gets its answer replayed.
    const inFlight = error.status === 409 && (error.details as { idempotency_key?: unknown } | undefined)?.idempotency_key === headers.get('idempotency-key');
    if (inFlight && attempt > 1 && retriesLeft && budget.onFailure()) {
      await sleep(retryDelayMs(policy, attempt - 1, undefined, options.random), signal);
      continue;
    }
    throw error;
  }
}
