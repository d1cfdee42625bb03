/**
 * Whether an error says that a backing service (Postgres, MongoDB, Redis) cannot serve right now,
 * rather than that our code is wrong: a lost or refused connection, a server shutting down or
 * starting, a failover, a pool with no connection to give within its wait. The caller then hears
 * `unavailable` (gRPC UNAVAILABLE, HTTP 503 with Retry-After), which clients and the SDK retry,
 * not `internal` (500, "our bug"). A request answered so committed fully or not at all: a write's
 * transaction either committed before the connection went (then its Idempotency-Key replays it) or
 * did not.
 */

/**
 * Postgres SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01 to
 * 57P03 (shutdown by an administrator, after a crash, or not yet accepting connections), 53300
 * (too many connections). Not 40001 or 40P01 (a conflict between transactions, which the code
 * handles where it can arise) nor 53100 (disk full: an operator's problem, not a transient one).
 */
const POSTGRES_UNAVAILABLE = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '53300']);

/** Socket and resolver errors of a connection that could not be made or was lost. */
const NETWORK_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);

/**
 * What pg and pg-pool say when a connection ends or none can be had (they set no code): the
 * server closed it (a restart), the pool's wait for a connection ran out, a client in a failed
 * state, a pool already ended (the process is stopping).
 */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^Query read timeout$/,
];

/** MongoDB driver errors of a server or replica set that cannot be reached, or a primary being elected. */
const MONGO_UNAVAILABLE = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError']);

/** ioredis: the connection is down and the command was not sent, or it gave up retrying it. */
const REDIS_MESSAGES = [/^Connection is closed\.?$/, /^Reached the max retries per request limit/, /^Stream isn't writeable/];

function unavailableItself(error: object): boolean {
  const e = error as { code?: unknown; name?: unknown; message?: unknown; errorLabels?: unknown; errorLabelSet?: unknown };
  if (typeof e.code === 'string' && (POSTGRES_UNAVAILABLE.has(e.code) || NETWORK_UNAVAILABLE.has(e.code))) return true;
  if (typeof e.name === 'string' && (MONGO_UNAVAILABLE.has(e.name) || e.name === 'MaxRetriesPerRequestError')) return true;
  const labels = e.errorLabelSet instanceof Set ? [...e.errorLabelSet] : Array.isArray(e.errorLabels) ? e.errorLabels : [];
  if (labels.includes('RetryableWriteError') || labels.includes('TransientTransactionError')) return true;
  if (typeof e.message === 'string') {
    const message = e.message;
    if (PG_MESSAGES.some((pattern) => pattern.test(message)) || REDIS_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/**
 * True when `error`, or an error it wraps (`cause`, or one of an AggregateError's, as when a
 * connection to every address of a host name was refused), says a backing service is unavailable.
 */
export function isBackingServiceUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (unavailableItself(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (cause !== undefined && isBackingServiceUnavailable(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isBackingServiceUnavailable(inner, depth + 1));
}
