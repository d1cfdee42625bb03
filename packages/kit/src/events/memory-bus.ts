import { observeGauges } from '../metrics';
import {
  assertPublishable,
  assertSubscribeOptions,
  DEFAULT_CONCURRENCY,
  defaultRetryDelayMs,
  DUPLICATE_WINDOW_MS,
  logEventError,
  type BusErrorReporter,
  type CrmEvent,
  type EventBus,
  type EventHandler,
  type SubscribeOptions,
  type Subscription,
} from './event-bus';
import { publishHeaders, withConsumeSpan } from './event-tracing';
import { Semaphore, sleep } from './concurrency';
import { matchesAny } from './subjects';

/*
 * The in-process event bus of all-in-one mode. It keeps JetStream's observable semantics (dedup by
 * event id, durable groups, NATS wildcards, redelivery with backoff, a concurrency cap) but it has
 * no log, so durability comes from the outbox instead:
 *
 * - publish() resolves only once every subscribed group's handler has succeeded for the event. If a
 *   group still fails after a few attempts, publish() rejects, the outbox row stays, and the relay
 *   publishes it again later. The publish is the log.
 * - Deduplication is recorded per group, and only once that group's handler succeeded (or gave up
 *   after maxDeliver). A re-publish after a partial failure therefore reaches only the groups that
 *   failed; the ones that succeeded drop it as a duplicate, as JetStream would have.
 * - Delivery counts persist across re-publishes, so a handler sees 1, 2, 3 … and maxDeliver bounds
 *   the total, not each publish.
 * - A durable whose subscribers have all stopped still exists: events for it make publish() reject
 *   (so the outbox keeps them for the next start) instead of being lost. Events published before a
 *   durable ever subscribed are not replayed to it; all-in-one subscribes before relaying.
 */

export interface MemoryBusOptions {
  /** Delay before redelivering a failed event. Default {@link defaultRetryDelayMs}. */
  retryDelayMs?: (deliveryCount: number) => number;
  /**
   * Deliveries a group gets within one publish() before publish() rejects and leaves the next try
   * to the caller (the outbox relay). Default 3.
   */
  attemptsPerPublish?: number;
  duplicateWindowMs?: number;
  onError?: BusErrorReporter;
  /** Clock for the duplicate window; injectable so tests need not wait two minutes. */
  now?: () => number;
}

interface Delivery {
  event: CrmEvent;
  headers: Record<string, string>;
}

interface Member {
  readonly handler: EventHandler;
  readonly slots: Semaphore;
  readonly running: Set<Promise<void>>;
  stopped: boolean;
}

interface Group {
  readonly durable: string;
  subjects: string[];
  maxDeliver: number | undefined;
  members: Member[];
  nextMember: number;
  /** Event ids this group is done with (handled, or given up), with when; insertion = time order. */
  settled: Map<string, number>;
  /**
   * Deliveries so far of events not yet settled, with when the latest happened; re-inserted on each
   * delivery so the map stays in time order. Forgotten once the publisher stops retrying.
   */
  attempts: Map<string, { count: number; at: number }>;
  /** Deliveries under way, so a concurrent re-publish joins them instead of delivering twice. */
  inFlight: Map<string, Promise<void>>;
}

export function createMemoryBus(options: MemoryBusOptions = {}): EventBus {
  const retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
  const attemptsPerPublish = options.attemptsPerPublish ?? 3;
  const windowMs = options.duplicateWindowMs ?? DUPLICATE_WINDOW_MS;
  const now = options.now ?? Date.now;
  const onError: BusErrorReporter = options.onError ?? logEventError('event handler failed');
  const groups = new Map<string, Group>();
  const closing = new AbortController();
  // Delivery here is a call: nothing waits undelivered, and what is under way (retries included) is unacknowledged.
  const unobserve = observeGauges((observe) => {
    for (const group of groups.values()) {
      const labels = { 'messaging.system.name': 'memory', 'messaging.consumer.group.name': group.durable };
      observe('crm.events.consumer.pending', 0, labels);
      observe('crm.events.consumer.unacked', group.inFlight.size, labels);
    }
  });

  function forget(group: Group, at: number): void {
    for (const [id, settledAt] of group.settled) {
      if (at - settledAt < windowMs) break;
      group.settled.delete(id);
    }
    for (const [id, attempt] of group.attempts) {
      if (at - attempt.at < windowMs) break;
      group.attempts.delete(id);
    }
  }

  /**
   * Takes a free handler slot on the next subscriber in round-robin order. A subscriber that stopped
   * while we waited for its slot hands the delivery on to the next one.
   */
  async function claimMember(group: Group): Promise<Member> {
    for (;;) {
      const member = group.members[group.nextMember++ % Math.max(group.members.length, 1)];
      if (!member) throw new Error(`durable ${group.durable} has no active subscriber`);
      await member.slots.acquire();
      if (!member.stopped) return member;
      member.slots.release();
    }
  }

  /** Runs the handler on a member whose slot the caller holds, and frees the slot. */
  async function runHandler(group: Group, member: Member, delivery: Delivery, deliveryCount: number): Promise<void> {
    const run = (async () => {
      // A fresh copy per delivery: a handler that mutates its event cannot affect other groups or
      // a retry, just as with events decoded off the wire.
      const event = structuredClone(delivery.event);
      const headers = { ...delivery.headers };
      const meta = { subject: event.type, headers: { ...headers }, deliveryCount };
      await withConsumeSpan({ system: 'memory', durable: group.durable, subject: event.type, event, headers, deliveryCount }, () =>
        member.handler(event, meta),
      );
    })();
    member.running.add(run);
    try {
      await run;
    } finally {
      member.running.delete(run);
      member.slots.release();
    }
  }

  async function deliverToGroup(group: Group, delivery: Delivery): Promise<void> {
    const { id } = delivery.event;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attemptsPerPublish; attempt++) {
      const previous = group.attempts.get(id);
      if (attempt > 1) {
        await sleep(retryDelayMs(previous?.count ?? 1), closing.signal);
        if (closing.signal.aborted) throw new Error('event bus closed');
      }
      const member = await claimMember(group);
      const deliveryCount = (previous?.count ?? 0) + 1;
      group.attempts.delete(id);
      group.attempts.set(id, { count: deliveryCount, at: now() });
      try {
        await runHandler(group, member, delivery, deliveryCount);
        group.attempts.delete(id);
        group.settled.set(id, now());
        return;
      } catch (error) {
        lastError = error;
        onError(error, { durable: group.durable, subject: delivery.event.type, eventId: id, deliveryCount });
        if (group.maxDeliver !== undefined && deliveryCount >= group.maxDeliver) {
          // Like JetStream after max_deliver: this group will not see the event again.
          group.attempts.delete(id);
          group.settled.set(id, now());
          break;
        }
      }
    }
    throw lastError;
  }

  function deliverOnce(group: Group, delivery: Delivery): Promise<void> {
    const { id } = delivery.event;
    if (group.settled.has(id)) return Promise.resolve();
    const running = group.inFlight.get(id);
    if (running) return running;
    const delivering = deliverToGroup(group, delivery).finally(() => group.inFlight.delete(id));
    group.inFlight.set(id, delivering);
    return delivering;
  }

  return {
    async publish(event, headers) {
      if (closing.signal.aborted) throw new Error('event bus closed');
      assertPublishable(event);
      // Serialised and parsed like a real message, so a handler sees only what JSON carries.
      const delivery: Delivery = { event: JSON.parse(JSON.stringify(event)) as CrmEvent, headers: publishHeaders(headers) };
      const at = now();
      const targets = [...groups.values()].filter((group) => matchesAny(group.subjects, event.type));
      targets.forEach((group) => forget(group, at));
      const outcomes = await Promise.allSettled(targets.map((group) => deliverOnce(group, delivery)));
      const failures = outcomes.flatMap((outcome, index) =>
        outcome.status === 'rejected' ? [{ durable: targets[index]!.durable, reason: outcome.reason as unknown }] : [],
      );
      if (failures.length > 0) {
        throw new AggregateError(
          failures.map((failure) => failure.reason),
          `event ${event.id} (${event.type}) not handled by ${failures
            .map((failure) => `${failure.durable} (${failure.reason instanceof Error ? failure.reason.message : String(failure.reason)})`)
            .join(', ')}`,
        );
      }
    },

    async subscribe(subscribeOptions: SubscribeOptions): Promise<Subscription> {
      if (closing.signal.aborted) throw new Error('event bus closed');
      assertSubscribeOptions(subscribeOptions);
      const { durable } = subscribeOptions;
      let group = groups.get(durable);
      if (!group) {
        group = {
          durable,
          subjects: [],
          maxDeliver: undefined,
          members: [],
          nextMember: 0,
          settled: new Map(),
          attempts: new Map(),
          inFlight: new Map(),
        };
        groups.set(durable, group);
      }
      // The latest subscriber's configuration wins, as a JetStream consumer update would.
      group.subjects = [...subscribeOptions.subjects];
      group.maxDeliver = subscribeOptions.maxDeliver;
      const member: Member = {
        handler: subscribeOptions.handler,
        slots: new Semaphore(subscribeOptions.concurrency ?? DEFAULT_CONCURRENCY),
        running: new Set(),
        stopped: false,
      };
      group.members.push(member);
      const owner = group;
      return {
        durable,
        async stop() {
          if (member.stopped) return;
          member.stopped = true;
          owner.members = owner.members.filter((candidate) => candidate !== member);
          await Promise.allSettled([...member.running]);
        },
      };
    },

    async close() {
      closing.abort();
      unobserve();
      const members = [...groups.values()].flatMap((group) => group.members);
      for (const member of members) member.stopped = true;
      for (const group of groups.values()) group.members = [];
      await Promise.allSettled(members.flatMap((member) => [...member.running]));
      groups.clear();
    },
  };
}
