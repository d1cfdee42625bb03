import {
  type ApiRecord,
  type BatchIdempotencyKey,
  type CrmEvent,
  type WriteContext,
  claimIdempotencyKeys,
  createOutboxCommit,
  existingIdempotencyKeys,
  idempotencyPair,
  mapLimit,
  recordIdempotentAnswers,
  storedIdempotencyKey,
  translateDbError,
  withIdempotencyKey,
  withStoredTrace,
} from '@crm/kit';
import { sentEmails } from '@crm/messaging-contract';
import { type Prepared, type QueueOptions, type SendPreparation, type SendsDeps, insertDeliveries, lookupsFor } from './prepare-send';

/**
 * The batch path: the flow engine's QueueSends (services/messaging/README.md, "Send → deliver →
 * track", step 1). Each send is checked, rendered and reserved as one send is (`prepare-send.ts`),
 * with the reads shared: one lookup of contacts, threads and suppressions for all, each template
 * read once. The new keys' sends then commit in one transaction (keys, rows, delivery rows,
 * idempotent answers and `sent_email.queued` events); a key an earlier attempt used goes one by one
 * through `queue-send.ts`, and replays or is refused as that call would be.
 */

/** One send of a batch, with the idempotency key and fingerprint its own QueueSend call would carry. */
export interface KeyedSend {
  ctx: WriteContext;
  body: unknown;
  options: QueueOptions;
  key: string;
  fingerprint: string;
  /** The calling service: the key is stored as `<origin> <key>`. */
  origin?: string;
}

/** What one send of a batch came to: the send (queued now or by an earlier attempt), or its own failure. */
export type QueueOutcome = { ok: true; record: ApiRecord } | { ok: false; error: unknown };

/** Sends of a batch that an earlier attempt keyed, queued one by one at once at most. */
const ONE_BY_ONE_CONCURRENCY = 8;

/**
 * Queues many sends, each under its own idempotency key, with the answers `queue` gives each under
 * that key. One send's failure is its own.
 */
export function createQueueBatch(
  deps: SendsDeps,
  preparation: SendPreparation,
  /** One send, the way a key an earlier attempt used goes. */
  queue: (ctx: WriteContext, body: unknown, options: QueueOptions) => Promise<ApiRecord>,
): (sends: readonly KeyedSend[]) => Promise<QueueOutcome[]> {
  const { store } = deps;
  const commit = createOutboxCommit(deps.db, deps.afterCommit);
  const { prepare, reserve, release } = preparation;

  /**
   * The batch's new sends in one transaction: their keys claimed, rows, delivery rows, answers and
   * events. A key another request claimed meanwhile is `lost`: that send goes the one-by-one way.
   */
  async function writeBatch(sends: readonly { send: Prepared; key: BatchIdempotencyKey }[]): Promise<{ written: Map<string, ApiRecord>; lost: Prepared[] }> {
    const traceBySend = new Map(sends.map(({ send }) => [send.id, send.trace]));
    try {
      const { value } = await commit.outcome(
        async (tx) => {
          const claimed = await claimIdempotencyKeys(tx, sends.map((s) => s.key));
          const mine = sends.filter((s) => claimed.has(idempotencyPair(s.key)));
          const { records, events } = await store.insertMany(
            tx,
            mine.map(({ send }) => ({ ctx: send.ctx, body: send.body, id: send.id, systemFields: send.system })),
          );
          await insertDeliveries(tx, mine.map((s) => s.send));
          await recordIdempotentAnswers(tx, mine.map((s, n) => ({ key: s.key, answer: records[n] })));
          const written = new Map(mine.map((s, n) => [s.send.id, records[n]!]));
          const lost = sends.filter((s) => !claimed.has(idempotencyPair(s.key))).map((s) => s.send);
          return { value: { written, lost }, events };
        },
        { traceOf: (event: CrmEvent<object>) => traceBySend.get(String((event.data as { sent_email_id?: unknown }).sent_email_id)) },
      );
      if (value.written.size) deps.wake();
      return value;
    } catch (error) {
      translateDbError(sentEmails, error);
    }
  }


  return async function queueMany(sends: readonly KeyedSend[]): Promise<QueueOutcome[]> {
    const outcomes = new Array<QueueOutcome>(sends.length);
    const keys = sends.map((send, i): BatchIdempotencyKey | undefined => {
      try {
        return { workspaceId: send.ctx.workspaceId, key: storedIdempotencyKey(send), fingerprint: send.fingerprint };
      } catch (error) {
        outcomes[i] = { ok: false, error };
        return undefined;
      }
    });
    const existing = await existingIdempotencyKeys(
      deps.db,
      keys.filter((key): key is BatchIdempotencyKey => key !== undefined),
    );
    // A key an earlier attempt holds, or one the batch holds twice (its second send waits for the
    // first's answer), goes one by one after the batch.
    const oneByOne: number[] = [];
    const fresh: number[] = [];
    const seen = new Set<string>();
    keys.forEach((key, i) => {
      if (!key) return;
      const pair = idempotencyPair(key);
      if (existing.has(pair) || seen.has(pair)) oneByOne.push(i);
      else fresh.push(i);
      seen.add(pair);
    });

    const ready: { index: number; send: Prepared; key: BatchIdempotencyKey }[] = [];
    if (fresh.length) {
      const lookups = await lookupsFor(deps, fresh.map((i) => sends[i]!));
      const templates = new Map<string, Promise<ApiRecord>>();
      await Promise.all(
        fresh.map(async (i) => {
          const { ctx, body, options } = sends[i]!;
          // A span of the step's trace: the batch serves many traces, each item belongs to one.
          // Its delivery and event continue from this span.
          const attributes = { 'crm.workspace_id': ctx.workspaceId, ...(options.flow ? { 'crm.enrollment.id': options.flow.flow_enrollment_id } : {}) };
          try {
            const send = await withStoredTrace(options.trace, 'queue email', attributes, async () => {
              const prepared = await prepare(ctx, body, { ...options, trace: undefined }, lookups, templates);
              await reserve(prepared);
              return prepared;
            });
            ready.push({ index: i, send, key: keys[i]! });
          } catch (error) {
            outcomes[i] = { ok: false, error };
          }
        }),
      );
    }
    if (ready.length) {
      try {
        const { written, lost } = await writeBatch(ready);
        const lostIds = new Set(lost.map((send) => send.id));
        for (const { index, send } of ready) {
          if (lostIds.has(send.id)) oneByOne.push(index);
          else outcomes[index] = { ok: true, record: written.get(send.id)! };
        }
        await Promise.all(lost.map(release));
      } catch (error) {
        await Promise.all(ready.map(({ send }) => release(send)));
        for (const { index } of ready) outcomes[index] = { ok: false, error };
      }
    }

    await mapLimit(oneByOne, ONE_BY_ONE_CONCURRENCY, async (i) => {
      const send = sends[i]!;
      try {
        const claim = { key: send.key, fingerprint: send.fingerprint, ...(send.origin ? { origin: send.origin } : {}) };
        outcomes[i] = { ok: true, record: await withIdempotencyKey(claim, () => queue(send.ctx, send.body, send.options)).result };
      } catch (error) {
        outcomes[i] = { ok: false, error };
      }
    });
    return outcomes;
  };
}
