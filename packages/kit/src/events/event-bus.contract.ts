import { context, propagation, SpanKind, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { expectEventually } from '../testing/expect-eventually';
import { newRawEvent, type CrmEvent, type DeliveryMeta, type EventBus, type EventHandler } from './event-bus';

/**
 * The behaviour every EventBus implementation must show, run against the in-process bus and against
 * real NATS JetStream, so all-in-one mode and the distributed deployment cannot drift apart.
 */
export interface EventBusContractTarget {
  /** Replaces `crm` in event types: what the target's stream captures, unique per test run. */
  subjectPrefix: string;
  /** A new bus on the target's shared backend; the contract closes it after each test. */
  createBus(): Promise<EventBus>;
  /** Removes what the target created (a test stream). */
  dispose?(): Promise<void>;
}

const WORKSPACE = '0196a7b4-3c2d-7e5f-8a9b-0c1d2e3f4a5b';
const TIMEOUT_MS = 15_000;

/**
 * Installs a real tracer provider, context manager and W3C propagator for the enclosing suite, so
 * a test can check that trace context crosses the bus. Returns the exporter holding finished spans.
 */
export function useTestTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    await provider.shutdown();
  });
  return exporter;
}

interface Received {
  event: CrmEvent;
  meta: DeliveryMeta;
  subscriber: string;
  /** The span active inside the handler. */
  span: SpanContext | undefined;
}

/** Collects deliveries; `handler(tag)` records them under a subscriber tag. */
function recorder() {
  const received: Received[] = [];
  return {
    received,
    ids: () => received.map((r) => r.event.id),
    handler:
      (subscriber = 'main'): EventHandler =>
      async (event, meta) => {
        received.push({ event, meta, subscriber, span: trace.getActiveSpan()?.spanContext() });
      },
  };
}

export function runEventBusContract(name: string, factory: () => Promise<EventBusContractTarget>): void {
  describe(`EventBus contract: ${name}`, () => {
    const spans = useTestTracing();
    let target: EventBusContractTarget;
    let bus: EventBus;
    let run = 0;
    /** Subject prefix of the current test, so no test sees another's events. */
    let p: string;
    const durable = (label: string) => `${label}_${run}`;

    beforeAll(async () => {
      target = await factory();
    });
    afterAll(async () => {
      await target?.dispose?.();
    });
    beforeEach(async () => {
      run++;
      p = `${target.subjectPrefix}.t${run}`;
      bus = await target.createBus();
    });
    afterEach(async () => {
      await bus?.close();
    });

    test(
      'a subscriber receives a published event with its payload and headers',
      async () => {
        const rec = recorder();
        await bus.subscribe({ durable: durable('basic'), subjects: [`${p}.people.>`], handler: rec.handler() });
        const event = newRawEvent(`${p}.people.contact.created`, WORKSPACE, {
          contact_id: '0196a7b4-0000-7000-8000-000000000001',
          email: 'ada@example.com',
          tags: ['a', 'b'],
          nested: { score: 3, active: true, note: null },
        });
        await bus.publish(event, { 'x-request-id': 'req-42' });

        const [delivery] = await expectEventually(() => {
          expect(rec.received).toHaveLength(1);
          return rec.received;
        });
        expect(delivery!.event).toEqual(event);
        expect(delivery!.meta.subject).toBe(event.type);
        expect(delivery!.meta.deliveryCount).toBe(1);
        expect(delivery!.meta.headers['x-request-id']).toBe('req-42');
        // Transport headers (the dedup id) are the bus's business, not the handler's.
        expect(Object.keys(delivery!.meta.headers).filter((key) => key.toLowerCase().startsWith('nats-'))).toEqual([]);
      },
      TIMEOUT_MS,
    );

    test(
      'the same event id published twice is delivered once',
      async () => {
        const rec = recorder();
        await bus.subscribe({ durable: durable('dedup'), subjects: [`${p}.>`], handler: rec.handler(), concurrency: 1 });
        const event = newRawEvent(`${p}.people.contact.created`, WORKSPACE, { n: 1 });
        await bus.publish(event);
        await bus.publish(event);
        // A later event, delivered in order after the duplicate would have been.
        const sentinel = newRawEvent(`${p}.people.contact.updated`, WORKSPACE, { n: 2 });
        await bus.publish(sentinel);

        await expectEventually(() => expect(rec.ids()).toContain(sentinel.id));
        expect(rec.ids()).toEqual([event.id, sentinel.id]);
      },
      TIMEOUT_MS,
    );

    test(
      'a handler that throws gets the event again with the next delivery count',
      async () => {
        const deliveries: number[] = [];
        await bus.subscribe({
          durable: durable('retry'),
          subjects: [`${p}.>`],
          handler: async (_event, meta) => {
            deliveries.push(meta.deliveryCount);
            if (deliveries.length === 1) throw new Error('transient failure');
          },
        });
        await bus.publish(newRawEvent(`${p}.people.contact.deleted`, WORKSPACE, {}));

        await expectEventually(() => expect(deliveries).toEqual([1, 2]));
      },
      TIMEOUT_MS,
    );

    test(
      'two different durables each receive every event',
      async () => {
        const rec = recorder();
        await bus.subscribe({ durable: durable('people'), subjects: [`${p}.>`], handler: rec.handler('people') });
        await bus.subscribe({ durable: durable('flows'), subjects: [`${p}.>`], handler: rec.handler('flows') });
        const events = [1, 2, 3].map((n) => newRawEvent(`${p}.people.contact.deleted`, WORKSPACE, { n }));
        for (const event of events) await bus.publish(event);

        const ids = events.map((e) => e.id).sort();
        const of = (subscriber: string) => rec.received.filter((r) => r.subscriber === subscriber).map((r) => r.event.id).sort();
        await expectEventually(() => {
          expect(of('people')).toEqual(ids);
          expect(of('flows')).toEqual(ids);
        });
      },
      TIMEOUT_MS,
    );

    test(
      'two subscribers on one durable together receive each event exactly once',
      async () => {
        const rec = recorder();
        await bus.subscribe({ durable: durable('shared'), subjects: [`${p}.>`], handler: rec.handler('a'), concurrency: 2 });
        await bus.subscribe({ durable: durable('shared'), subjects: [`${p}.>`], handler: rec.handler('b'), concurrency: 2 });
        const events = Array.from({ length: 20 }, (_, n) => newRawEvent(`${p}.people.contact.updated`, WORKSPACE, { n }));
        await Promise.all(events.map((event) => bus.publish(event)));

        await expectEventually(() => expect(new Set(rec.ids()).size).toBe(events.length));
        expect(rec.ids().sort()).toEqual(events.map((e) => e.id).sort());
      },
      TIMEOUT_MS,
    );

    test(
      'stop() hands a durable’s events to its remaining subscribers',
      async () => {
        const rec = recorder();
        const first = await bus.subscribe({ durable: durable('handover'), subjects: [`${p}.>`], handler: rec.handler('first') });
        await bus.subscribe({ durable: durable('handover'), subjects: [`${p}.>`], handler: rec.handler('second') });
        await first.stop();
        const events = Array.from({ length: 5 }, (_, n) => newRawEvent(`${p}.people.contact.updated`, WORKSPACE, { n }));
        for (const event of events) await bus.publish(event);

        await expectEventually(() => expect(rec.ids().sort()).toEqual(events.map((e) => e.id).sort()));
        expect(rec.received.every((r) => r.subscriber === 'second')).toBe(true);
      },
      TIMEOUT_MS,
    );

    test(
      'subject filters follow NATS wildcards: * is one token, > is one or more',
      async () => {
        const rec = recorder();
        await bus.subscribe({
          durable: durable('wild'),
          subjects: [`${p}.people.*.deleted`, `${p}.messaging.>`],
          handler: rec.handler('wild'),
          concurrency: 1,
        });
        await bus.subscribe({ durable: durable('people'), subjects: [`${p}.people.>`], handler: rec.handler('people'), concurrency: 1 });
        const publish = async (type: string) => {
          const event = newRawEvent(`${p}.${type}`, WORKSPACE, {});
          await bus.publish(event);
          return event.id;
        };
        const contactDeleted = await publish('people.contact.deleted');
        const contactCreated = await publish('people.contact.created');
        const noteDeleted = await publish('people.contact.note.deleted');
        await publish('messaging');
        const emailRecorded = await publish('messaging.email_event.recorded');
        await publish('flows.enrollment.deleted');
        const organizationDeleted = await publish('people.organization.deleted');

        const of = (subscriber: string) => rec.received.filter((r) => r.subscriber === subscriber).map((r) => r.event.id);
        await expectEventually(() => {
          expect(of('wild')).toContain(organizationDeleted);
          expect(of('people')).toContain(organizationDeleted);
        });
        expect(of('wild')).toEqual([contactDeleted, emailRecorded, organizationDeleted]);
        expect(of('people')).toEqual([contactDeleted, contactCreated, noteDeleted, organizationDeleted]);
      },
      TIMEOUT_MS,
    );

    test(
      'the handler runs in a consumer span of the trace that was active when publishing',
      async () => {
        const rec = recorder();
        await bus.subscribe({ durable: durable('traced'), subjects: [`${p}.>`], handler: rec.handler() });
        const event = newRawEvent(`${p}.people.contact.deleted`, WORKSPACE, {});
        const producer = await trace.getTracer('contract').startActiveSpan('POST /v1/contacts', async (span) => {
          await bus.publish(event);
          span.end();
          return span.spanContext();
        });

        const [delivery] = await expectEventually(() => {
          expect(rec.received).toHaveLength(1);
          return rec.received;
        });
        expect(delivery!.span?.traceId).toBe(producer.traceId);
        const consumerSpan = await expectEventually(() => {
          const span = spans.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER);
          expect(span).toBeDefined();
          return span!;
        });
        expect(consumerSpan.instrumentationScope.name).toBe('crm.events');
        expect(consumerSpan.spanContext().spanId).toBe(delivery!.span?.spanId);
        expect(consumerSpan.parentSpanContext?.spanId).toBe(producer.spanId);
      },
      TIMEOUT_MS,
    );

    test('publishing an event whose type is not a concrete subject is refused', async () => {
      const event = newRawEvent(`${p}.people.contact.created`, WORKSPACE, {});
      await expect(bus.publish({ ...event, type: `${p}.people.*.created` })).rejects.toThrow(/subject/);
      await expect(bus.publish({ ...event, type: `${p}..created` })).rejects.toThrow(/subject/);
    });
  });
}
