import type { EventBus, EventHandler, Subscription } from './event-bus';

/**
 * A context's durable consumer of other contexts' events: its name, the subjects it takes, and how
 * it subscribes. Each deployment (database schema) gets a durable of its own, so deployments that
 * share a NATS server but not a database (test runs, benchmarks) each receive every event; the
 * context's own schema keeps the plain name, which is what production runs.
 */
export interface DurableConsumer {
  readonly name: string;
  readonly subjects: readonly string[];
  /** The durable of the deployment whose tables live in `schema`. */
  durableFor(schema: string): string;
  /** Subscribes `handler` under the durable of `schema`; it acknowledges an event by resolving. */
  subscribe(bus: EventBus, schema: string, handler: (event: Parameters<EventHandler>[0]) => Promise<void>): Promise<Subscription>;
}

export interface DurableConsumerOptions {
  /** The production durable: letters, digits, `-` and `_`, at most 64 characters. */
  name: string;
  /** The schema the context's tables live in by default (its own name). */
  home: string;
  subjects: readonly string[];
  /** Handlers running at once; the bus's default when absent. */
  concurrency?: number;
}

/** NATS limits a durable's name; the bus refuses a longer one. */
const MAX_DURABLE = 64;

export function defineDurableConsumer(options: DurableConsumerOptions): DurableConsumer {
  const durableFor = (schema: string) => (schema === options.home ? options.name : `${options.name}_${schema}`.slice(0, MAX_DURABLE));
  return {
    name: options.name,
    subjects: options.subjects,
    durableFor,
    subscribe: (bus, schema, handler) =>
      bus.subscribe({
        durable: durableFor(schema),
        subjects: [...options.subjects],
        handler: (event) => handler(event),
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      }),
  };
}
