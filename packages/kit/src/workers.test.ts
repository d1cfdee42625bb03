import { createLogger } from './logger';
import { type Clock, type Worker, createWaker, superviseWorkers, systemClock } from './workers';

const log = createLogger('test', 'silent');

/** A clock whose sleeps return at once, counting them: supervision runs without waiting. */
function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => new Date(), sleep: async (ms) => void sleeps.push(ms) };
}

describe('supervised workers', () => {
  test('a worker that fails is restarted with a growing backoff until it runs', async () => {
    const clock = instantClock();
    let attempts = 0;
    let running!: () => void;
    const steady = new Promise<void>((resolve) => (running = resolve));
    const worker: Worker = {
      name: 'flaky',
      async run(signal) {
        attempts++;
        if (attempts < 4) throw new Error(`attempt ${attempts} failed`);
        running();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    };
    const workers = superviseWorkers([worker], log, clock);
    await steady;
    expect(attempts).toBe(4);
    expect(clock.sleeps).toEqual([250, 500, 1_000]);
    await workers.stop();
  });

  test('stop() aborts every worker and waits until each has returned', async () => {
    const aborted: string[] = [];
    const finished: string[] = [];
    // Each worker, once aborted, still has work to hand back: it returns when the test lets it.
    let handBack!: () => void;
    const handedBack = new Promise<void>((resolve) => (handBack = resolve));
    const worker = (name: string): Worker => ({
      name,
      async run(signal) {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted.push(name);
        await handedBack;
        finished.push(name);
      },
    });
    const workers = superviseWorkers([worker('a'), worker('b')], log, instantClock());
    let stopped = false;
    const stopping = workers.stop().then(() => (stopped = true));
    // Every callback queued by the abort has run (setImmediate comes after them): both workers
    // saw it, and stop() is still waiting for them.
    await new Promise((resolve) => setImmediate(resolve));
    expect([aborted.sort(), stopped]).toEqual([['a', 'b'], false]);
    handBack();
    await stopping;
    expect(finished.sort()).toEqual(['a', 'b']);
  });
});

describe('a waker', () => {
  test('ends an idle wait when woken, and makes the next wait return at once when woken between waits', async () => {
    const waker = createWaker(systemClock);
    const never = new AbortController().signal;
    const started = Date.now();
    const waiting = waker.idle(10_000, never);
    waker.wake();
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);

    waker.wake();
    expect(waker.pending).toBe(true);
    const again = Date.now();
    await waker.idle(10_000, never);
    expect(Date.now() - again).toBeLessThan(5_000);
    expect(waker.pending).toBe(false);
  });

  test('waits its full time when nobody wakes it, and stops at once when the worker is stopped', async () => {
    const slept: number[] = [];
    // A clock on which no time passes until the test says so: a sleep ends when its time is
    // declared over, or when its signal aborts.
    let timeIsUp: (() => void) | undefined;
    const clock: Clock = { now: () => new Date(), sleep: (ms, signal) => new Promise((resolve) => {
      slept.push(ms);
      timeIsUp = resolve;
      signal?.addEventListener('abort', () => resolve());
    }) };
    const waker = createWaker(clock);
    const idle = waker.idle(1_234, new AbortController().signal);
    expect(slept).toEqual([1_234]);
    timeIsUp!();
    await idle;
    const stopping = new AbortController();
    const waiting = waker.idle(60_000, stopping.signal);
    stopping.abort();
    await waiting;
    const stopped = new AbortController();
    stopped.abort();
    await waker.idle(60_000, stopped.signal);
    expect(slept).toEqual([1_234, 60_000]);
  });
});
