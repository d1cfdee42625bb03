import { runEventBusContract } from './event-bus.contract';
import { newRawEvent, type EventHandler } from './event-bus';
import { createMemoryBus } from './memory-bus';

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';
const quiet = () => undefined;

runEventBusContract('memory', async () => ({
  subjectPrefix: 'crm',
  createBus: async () => createMemoryBus({ retryDelayMs: () => 10, onError: quiet }),
}));

describe('memory bus without a log', () => {
  test('publish resolves only after every subscribed group handled the event', async () => {
    const bus = createMemoryBus({ onError: quiet });
    const handled: string[] = [];
    const slow: EventHandler = async (event) => {
      await new Promise((resolve) => setImmediate(resolve));
      handled.push(`slow:${event.id}`);
    };
    await bus.subscribe({ durable: 'slow', subjects: ['crm.>'], handler: slow });
    await bus.subscribe({ durable: 'fast', subjects: ['crm.sales.>'], handler: async (e) => void handled.push(`fast:${e.id}`) });
    const event = newRawEvent('crm.sales.contact.deleted', WORKSPACE, {});

    await bus.publish(event);

    expect(handled.sort()).toEqual([`fast:${event.id}`, `slow:${event.id}`]);
    await bus.close();
  });

  test('a failing group makes publish reject, and a re-publish reaches only that group', async () => {
    const bus = createMemoryBus({ retryDelayMs: () => 1, attemptsPerPublish: 2, onError: quiet });
    const healthy: number[] = [];
    const flaky: number[] = [];
    let flakyRecovers = false;
    await bus.subscribe({ durable: 'healthy', subjects: ['crm.>'], handler: async (_e, meta) => void healthy.push(meta.deliveryCount) });
    await bus.subscribe({
      durable: 'flaky',
      subjects: ['crm.>'],
      handler: async (_e, meta) => {
        flaky.push(meta.deliveryCount);
        if (!flakyRecovers) throw new Error('database unavailable');
      },
    });
    const event = newRawEvent('crm.sales.contact.deleted', WORKSPACE, {});

    await expect(bus.publish(event)).rejects.toThrow(/not handled by flaky/);
    expect(healthy).toEqual([1]);
    expect(flaky).toEqual([1, 2]);

    flakyRecovers = true;
    await bus.publish(event);
    expect(healthy).toEqual([1]);
    // Delivery counts carry on across publishes.
    expect(flaky).toEqual([1, 2, 3]);
    await bus.close();
  });

  test('after maxDeliver failed deliveries the group gives the event up', async () => {
    const bus = createMemoryBus({ retryDelayMs: () => 1, attemptsPerPublish: 5, onError: quiet });
    const deliveries: number[] = [];
    await bus.subscribe({
      durable: 'doomed',
      subjects: ['crm.>'],
      maxDeliver: 2,
      handler: async (_e, meta) => {
        deliveries.push(meta.deliveryCount);
        throw new Error('always fails');
      },
    });
    const event = newRawEvent('crm.sales.contact.deleted', WORKSPACE, {});

    await expect(bus.publish(event)).rejects.toThrow();
    await bus.publish(event);
    expect(deliveries).toEqual([1, 2]);
    await bus.close();
  });

  test('an event id is forgotten after the duplicate window', async () => {
    let clock = 1_000_000;
    const bus = createMemoryBus({ duplicateWindowMs: 120_000, now: () => clock, onError: quiet });
    const seen: string[] = [];
    await bus.subscribe({ durable: 'audit', subjects: ['crm.>'], handler: async (e) => void seen.push(e.id) });
    const event = newRawEvent('crm.sales.contact.deleted', WORKSPACE, {});

    await bus.publish(event);
    clock += 119_000;
    await bus.publish(event);
    expect(seen).toHaveLength(1);
    clock += 2_000;
    await bus.publish(event);
    expect(seen).toHaveLength(2);
    await bus.close();
  });

  test('events for a durable whose subscribers all stopped are refused, not lost', async () => {
    const bus = createMemoryBus({ retryDelayMs: () => 1, onError: quiet });
    const seen: string[] = [];
    const subscription = await bus.subscribe({ durable: 'people', subjects: ['crm.>'], handler: async (e) => void seen.push(e.id) });
    await subscription.stop();
    const event = newRawEvent('crm.sales.contact.deleted', WORKSPACE, {});

    await expect(bus.publish(event)).rejects.toThrow(/no active subscriber/);

    await bus.subscribe({ durable: 'people', subjects: ['crm.>'], handler: async (e) => void seen.push(e.id) });
    await bus.publish(event);
    expect(seen).toEqual([event.id]);
    await bus.close();
  });

  test('a subscription runs at most `concurrency` handlers at once', async () => {
    const bus = createMemoryBus({ onError: quiet });
    let running = 0;
    let peak = 0;
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    await bus.subscribe({
      durable: 'capped',
      subjects: ['crm.>'],
      concurrency: 2,
      handler: async () => {
        running++;
        peak = Math.max(peak, running);
        await gate;
        running--;
      },
    });
    const publishing = Promise.all(
      Array.from({ length: 6 }, (_, n) => bus.publish(newRawEvent('crm.sales.contact.updated', WORKSPACE, { n }))),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(2);
    release();
    await publishing;
    expect(peak).toBe(2);
    await bus.close();
  });

  test('subscribers sharing a durable take turns', async () => {
    const bus = createMemoryBus({ onError: quiet });
    const by: string[] = [];
    await bus.subscribe({ durable: 'shared', subjects: ['crm.>'], handler: async () => void by.push('a') });
    await bus.subscribe({ durable: 'shared', subjects: ['crm.>'], handler: async () => void by.push('b') });
    for (let n = 0; n < 4; n++) await bus.publish(newRawEvent('crm.sales.contact.updated', WORKSPACE, { n }));
    expect(by).toEqual(['a', 'b', 'a', 'b']);
    await bus.close();
  });

  test('a handler cannot change the event other groups receive', async () => {
    const bus = createMemoryBus({ onError: quiet });
    const seen: unknown[] = [];
    await bus.subscribe({
      durable: 'mutator',
      subjects: ['crm.>'],
      handler: async (e) => {
        (e.data as { n: number }).n = 99;
      },
    });
    await bus.subscribe({ durable: 'reader', subjects: ['crm.>'], handler: async (e) => void seen.push(e.data) });
    await bus.publish(newRawEvent('crm.sales.contact.updated', WORKSPACE, { n: 1 }));
    expect(seen).toEqual([{ n: 1 }]);
    await bus.close();
  });

  test('a closed bus refuses to publish', async () => {
    const bus = createMemoryBus();
    await bus.close();
    await expect(bus.publish(newRawEvent('crm.sales.contact.updated', WORKSPACE, {}))).rejects.toThrow(/closed/);
  });
});
