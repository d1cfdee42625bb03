import type { ApiRecord, WriteContext } from '@crm/kit';
import { type QueueOptions, type SendsDeps, createSendPreparation, insertDeliveries, lookupsFor } from './prepare-send';
import { type KeyedSend, type QueueOutcome, createQueueBatch } from './queue-batch';

/**
 * Queueing one send (services/messaging/README.md, "Send → deliver → track", steps 1 to 4):
 * `POST /v1/sent_emails`, QueueSend, and a batch's send whose key an earlier attempt used. It is
 * checked, rendered and reserved (`prepare-send.ts`); then the send and its delivery row commit
 * together with the `sent_email.queued` event, and the delivery worker is woken. QueueSends takes
 * the batch path (`queue-batch.ts`).
 */
export interface Sends {
  /** Queues a send from a create body (the API's shape). */
  queue(ctx: WriteContext, body: unknown, options?: QueueOptions): Promise<ApiRecord>;
  /**
   * Queues many sends, each under its own idempotency key, with the answers `queue` gives each
   * under that key: the new ones in one transaction (the checks read in a few statements for all
   * of them), the ones an earlier attempt keyed one by one (they replay, or are refused as a reused
   * key). One send's failure is its own.
   */
  queueMany(sends: readonly KeyedSend[]): Promise<QueueOutcome[]>;
}

export function createSends(deps: SendsDeps): Sends {
  const { store } = deps;
  const preparation = createSendPreparation(deps);
  const { prepare, reserve, release } = preparation;

  async function queue(ctx: WriteContext, body: unknown, options: QueueOptions = {}): Promise<ApiRecord> {
    const send = await prepare(ctx, body, options, await lookupsFor(deps, [{ ctx, body, options }]));
    await reserve(send);
    let created: ApiRecord;
    try {
      created = await store.create(ctx, body, { id: send.id, systemFields: send.system, inTransaction: (tx) => insertDeliveries(tx, [send]) });
    } catch (error) {
      await release(send);
      throw error;
    }
    // A repeat of an earlier request (its Idempotency-Key) answers the send it queued: the place
    // reserved for this attempt's id goes back.
    if (created.id !== send.id) await release(send);
    else deps.wake();
    return created;
  }

  return { queue, queueMany: createQueueBatch(deps, preparation, queue) };
}
