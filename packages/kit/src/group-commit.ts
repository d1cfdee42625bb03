import { type CrmEvent, captureTraceContext } from './events';
import type { SqlClient, SqlQueryable } from './sql';
import { createOutboxCommit } from './transaction';
import { untraced } from './tracing';

/**
 * Group commit: writes that arrive while another group is being committed wait and go together in
 * the next transaction, so a burst costs a few commits rather than one each, and writes that touch
 * one hot row (an owner's hourly counters) stop queueing behind each other's locks. A write is
 * acknowledged (its promise resolves) only once its group has committed: nothing acknowledged is
 * lost. With nothing else under way a write commits at once, alone: no added wait.
 */
export interface GroupCommit<T> {
  /** Writes `item` in the next group; resolves once that group has committed. */
  add(item: T): Promise<void>;
  /**
   * Writes `items` in the next group (the next groups, past `limit`), each settled as `add` settles
   * it: one that fails alone does not fail the others.
   */
  addAll(items: readonly T[]): Promise<PromiseSettledResult<void>[]>;
}

export type GroupCommitOptions<T> = GroupCommitShared<T> &
  (
    | {
        /** One item's writes in the group's transaction; the events they publish. */
        write: (tx: SqlQueryable, item: T) => Promise<CrmEvent[]>;
      }
    | {
        /**
         * The whole group's writes in its transaction, in few statements whatever its size; the
         * events each item publishes, in the items' order.
         */
        writeAll: (tx: SqlQueryable, items: readonly T[]) => Promise<CrmEvent[][]>;
      }
  );

interface GroupCommitShared<T> {
  db: SqlClient;
  /**
   * The order a group is written in, so two groups (two replicas) take shared rows in the same
   * order and cannot deadlock on each other.
   */
  order?: (a: T, b: T) => number;
  /** Items per transaction at most. Default 64. */
  limit?: number;
  /** Wakes the outbox relay after a commit that wrote events. */
  afterCommit?: () => void;
}

interface Waiting<T> {
  item: T;
  trace: Record<string, string>;
  settle: (error?: unknown) => void;
}

export function createGroupCommit<T>(options: GroupCommitOptions<T>): GroupCommit<T> {
  const limit = options.limit ?? 64;
  const waiting: Waiting<T>[] = [];
  let draining = false;
  const commitWithEvents = createOutboxCommit(options.db, options.afterCommit);

  /**
   * One group's transaction. It is untraced (it serves many traces); each item's events carry the
   * trace that was active where it was added.
   */
  async function commit(group: readonly Waiting<T>[]): Promise<void> {
    const traceOf = new Map<string, Record<string, string>>();
    await untraced(() =>
      commitWithEvents(async (tx) => {
        const written: CrmEvent[] = [];
        const items = group.map((w) => w.item);
        const eventsOf = 'writeAll' in options ? await options.writeAll(tx, items) : await sequentially(items, (item) => options.write(tx, item));
        // Events the outbox would not get are lost: a writer that does not answer for every item fails its group.
        if (eventsOf.length !== group.length) throw new Error(`a group writer returned the events of ${eventsOf.length} items of ${group.length}`);
        group.forEach(({ trace }, i) => {
          for (const event of eventsOf[i]!) {
            traceOf.set(event.id, trace);
            written.push(event);
          }
        });
        return written;
      }, { traceOf: (event) => traceOf.get(event.id) }),
    );
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (waiting.length) {
        const group = waiting.splice(0, limit);
        if (options.order) group.sort((a, b) => options.order!(a.item, b.item));
        try {
          await commit(group);
          for (const w of group) w.settle();
        } catch (error) {
          if (group.length === 1) {
            group[0]!.settle(error ?? new Error('the write failed'));
            continue;
          }
          // One item's failure must stay its own: each is written alone.
          for (const w of group) {
            await commit([w]).then(
              () => w.settle(),
              (failure: unknown) => w.settle(failure ?? new Error('the write failed')),
            );
          }
        }
      }
    } finally {
      draining = false;
    }
  }

  const enqueue = (item: T, trace: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, trace, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });

  return {
    add(item) {
      const written = enqueue(item, captureTraceContext());
      if (!draining) void drain();
      return written;
    },
    addAll(items) {
      const trace = captureTraceContext();
      // Every item waits before the drain starts, so they go in one group rather than the first alone.
      const written = items.map((item) => enqueue(item, trace));
      if (!draining) void drain();
      return Promise.allSettled(written);
    },
  };
}

async function sequentially<W, R>(items: readonly W[], run: (item: W) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await run(item));
  return results;
}
