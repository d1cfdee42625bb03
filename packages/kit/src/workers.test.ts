import { createLogger } from './logger';
import { type Clock, type Worker, superviseWorkers } from './workers';

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
    const finished: string[] = [];
    const worker = (name: string): Worker => ({
      name,
      async run(signal) {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished.push(name);
      },
    });
    const workers = superviseWorkers([worker('a'), worker('b')], log, instantClock());
    await workers.stop();
    expect(finished.sort()).toEqual(['a', 'b']);
  });
});
