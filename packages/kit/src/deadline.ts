import { AsyncLocalStorage } from 'node:async_hooks';
import { CrmError } from './errors';

/**
 * The caller's deadline, carried through a service's async work. gRPC handlers run inside it (see
 * grpc.ts `implement`), so the SQL layer can refuse to start a statement for an answer nobody
 * waits for any more, and bound the statements it does start.
 */
const storage = new AsyncLocalStorage<number>();

export function withDeadline<T>(deadline: number | undefined, work: () => Promise<T>): Promise<T> {
  return deadline === undefined || !Number.isFinite(deadline) ? work() : storage.run(deadline, work);
}

/** Milliseconds left before the active deadline, or undefined when there is none. */
export function remainingMs(): number | undefined {
  const deadline = storage.getStore();
  return deadline === undefined ? undefined : deadline - Date.now();
}

export function assertTimeLeft(): void {
  const left = remainingMs();
  if (left !== undefined && left <= 0) throw new CrmError('timeout', 'the request deadline passed before the work finished');
}
