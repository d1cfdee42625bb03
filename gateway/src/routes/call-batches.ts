/**
 * Gathers requests into batched calls: what arrives while a call is under way goes together in the
 * next one, so a burst costs a few calls rather than one each (the open pixel's requests:
 * gateway/README.md, Messaging, "Tracking and unsubscribe"). With nothing under way an item is sent
 * at once, alone: no added wait. Each item settles with its own answer; a call that fails fails
 * only the items it carried.
 */
export interface CallBatches<I, O> {
  /** Sends `item` in the next call; resolves with its answer from that call. */
  add(item: I): Promise<O>;
}

export interface CallBatchesOptions<I, O> {
  /** One call for `items`; resolves with one answer per item, in order. */
  call: (items: I[]) => Promise<O[]>;
  /** Items per call at most. */
  limit: number;
  /** Calls under way at once at most. Default 1. */
  concurrency?: number;
  /**
   * Items waiting for a call at most; one more is refused at once (`CallBatchesFull`) rather than
   * queued, so a stalled callee holds a bounded number of requests. Default 4 × `limit`.
   */
  maxWaiting?: number;
}

/** Refused at once: `maxWaiting` items already wait for a call. */
export class CallBatchesFull extends Error {
  override readonly name = 'CallBatchesFull';
}

interface Waiting<I, O> {
  item: I;
  resolve: (answer: O) => void;
  reject: (error: unknown) => void;
}

export function createCallBatches<I, O>(options: CallBatchesOptions<I, O>): CallBatches<I, O> {
  const concurrency = options.concurrency ?? 1;
  const maxWaiting = options.maxWaiting ?? 4 * options.limit;
  const waiting: Waiting<I, O>[] = [];
  let underWay = 0;

  async function send(batch: readonly Waiting<I, O>[]): Promise<void> {
    try {
      const answers = await options.call(batch.map((w) => w.item));
      if (answers.length !== batch.length) throw new Error(`a batched call answered ${answers.length} items of ${batch.length}`);
      batch.forEach((w, i) => w.resolve(answers[i]!));
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }

  async function run(): Promise<void> {
    underWay += 1;
    try {
      while (waiting.length) await send(waiting.splice(0, options.limit));
    } finally {
      underWay -= 1;
    }
  }

  return {
    add(item) {
      if (waiting.length >= maxWaiting) return Promise.reject(new CallBatchesFull(`${waiting.length} items already wait for a call`));
      return new Promise<O>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (underWay < concurrency) void run();
      });
    },
  };
}
