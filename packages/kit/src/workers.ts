import { backoffMs } from './backoff';
import { WAKE_UP, sleep } from './events/concurrency';
import type { Logger } from './logger';

/** Time as a worker sees it: injected, so a test drives a day of schedules in milliseconds. */
export interface Clock {
  now(): Date;
  /** Waits `ms` or until `signal` aborts, whichever comes first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) => sleep(ms, signal, { unref: true }),
};

/**
 * A long-running loop of a service (a delivery worker, the flow engine): it runs until `signal`
 * aborts, and must then finish or hand back what it holds and return.
 */
export interface Worker {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
}

export interface RunningWorkers {
  /** Aborts every worker and waits for each to return. */
  stop(): Promise<void>;
}

/**
 * Runs workers under supervision: a worker that throws, or returns before it was asked to stop,
 * is logged and restarted after a backoff (250 ms doubling to 15 s, reset after a minute of
 * running), so one bad batch cannot end the loop for the life of the process.
 */
export function superviseWorkers(workers: readonly Worker[], log: Logger, clock: Clock = systemClock): RunningWorkers {
  const stopping = new AbortController();
  const loops = workers.map(async (worker) => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      const started = clock.now().getTime();
      try {
        await worker.run(stopping.signal);
        if (stopping.signal.aborted) break;
        log.warn({ worker: worker.name }, 'worker returned while the service runs; restarting it');
      } catch (error) {
        if (stopping.signal.aborted) break;
        log.error({ err: error, worker: worker.name }, 'worker failed; restarting it');
      }
      failures = clock.now().getTime() - started > 60_000 ? 1 : failures + 1;
      await clock.sleep(backoffMs(failures, 250, 15_000), stopping.signal);
    }
  });
  return {
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}

/**
 * How a worker sleeps between rounds yet starts at once when told there is new work: `wake()`
 * ends the current `idle()`, or makes the next one return at once when none is running.
 */
export interface Waker {
  wake(): void;
  /** Waits up to `ms` on `clock`, or until woken or `signal` aborts. */
  idle(ms: number, signal: AbortSignal): Promise<void>;
  /** Whether a wake came since the last `idle()` began (the round may have missed its work). */
  readonly pending: boolean;
}

export function createWaker(clock: Clock = systemClock): Waker {
  let wakeUp: (() => void) | undefined;
  let pending = false;
  return {
    get pending() {
      return pending;
    },
    wake() {
      if (wakeUp) wakeUp();
      else pending = true;
    },
    async idle(ms, signal) {
      if (pending || signal.aborted) {
        pending = false;
        return;
      }
      const waking = new AbortController();
      const stop = () => waking.abort(WAKE_UP);
      signal.addEventListener('abort', stop, { once: true });
      wakeUp = stop;
      try {
        await clock.sleep(ms, waking.signal);
      } finally {
        signal.removeEventListener('abort', stop);
        wakeUp = undefined;
        pending = false;
      }
    },
  };
}
