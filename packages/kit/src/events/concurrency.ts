/** Small async primitives shared by the bus implementations and the outbox relay. */

/** Caps how many handlers run at once; waiters are served first come, first served. */
export class Semaphore {
  private available: number;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.available = capacity;
  }

  acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter, so a late acquire() cannot jump the queue.
    if (next) next();
    else this.available = Math.min(this.available + 1, this.capacity);
  }
}

/**
 * The reason given when an AbortController only wakes a sleeper: `abort()` without one builds a
 * DOMException and its stack each time, which a wake-up after every commit makes a measurable cost.
 */
export const WAKE_UP = Symbol('wake up');

/**
 * Waits `ms`, or less when `signal` aborts. Resolves either way: callers re-check their own state.
 * `unref` lets a process exit while only this timer is pending (background loops, not awaited work).
 */
export function sleep(ms: number, signal?: AbortSignal, options: { unref?: boolean } = {}): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (options.unref) timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}
