/**
 * The ports a process listens on, each with the variable that chose it: a port that cannot be taken
 * is reported as that variable's problem, in one line an operator can act on
 * (`PORT=8080: 127.0.0.1:8080 is already in use (EADDRINUSE)`), before anything starts.
 * Loaded by telemetry.ts before the SDK starts, so it imports nothing that loads `@grpc/grpc-js`.
 */
import { createServer } from 'node:net';

export interface ListenTarget {
  /** The variable that sets it: PORT, GRPC_ADDR, DIRECTORY_ADDR, METRICS_PORT, ... */
  variable: string;
  /** Its value as written, or the default's when `isDefault`. */
  value: string;
  isDefault: boolean;
  host: string;
  port: number;
}

/** `host:port` (a bracketed IPv6 host keeps its brackets) split in two. */
export function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

/** The target of an address variable (`GRPC_ADDR`, `<NAME>_ADDR`, `INBOUND_SMTP_ADDR`). */
export function addressTarget(variable: string, value: string, isDefault = false): ListenTarget {
  return { variable, value, isDefault, ...splitAddress(value) };
}

/** Why `target` cannot be listened on, naming its variable; `code` is the system's (EADDRINUSE, EACCES, ...). */
export function listenProblem(target: ListenTarget, code: string): string {
  const at = `${target.host}:${target.port}`;
  const why = code === 'EADDRINUSE' ? `${at} is already in use (EADDRINUSE)` : `cannot listen on ${at} (${code})`;
  return `${target.isDefault ? `${target.variable} (not set, default ${target.value})` : `${target.variable}=${target.value}`}: ${why}`;
}

/**
 * The system code of a failed listen (EADDRINUSE, EACCES, ...), or undefined for any other error.
 * gRPC reports a failed bind in its message only (`No address added ... [listen EADDRINUSE: ...]`).
 */
export function listenErrorCode(error: unknown): string | undefined {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (syscall === 'listen' && typeof code === 'string') return code;
  const message = error instanceof Error ? error.message : '';
  if (!message.startsWith('No address added')) return undefined;
  return /\b(E[A-Z]+)\b/.exec(message)?.[1] ?? 'no address could be bound';
}

/** Whether `host:port` can be listened on now: undefined if so, else why not (the system's code). */
export function probeListen(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ host: host.replace(/^\[(.*)\]$/, '$1'), port }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * What stands in the way of listening on each target, one line per target that cannot be listened
 * on. Port 0 (any free one) always can. A port taken between this check and the real bind is
 * reported by the bind itself (listenErrorCode).
 */
export async function listenProblems(targets: readonly ListenTarget[]): Promise<string[]> {
  const codes = await Promise.all(targets.map((t) => (t.port === 0 ? undefined : probeListen(t.host, t.port))));
  return targets.flatMap((target, i) => (codes[i] ? [listenProblem(target, codes[i])] : []));
}
