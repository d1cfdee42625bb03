import {
  type ApiRecord,
  type BatchIdempotencyKey,
  CrmError,
  type CrmEvent,
  type FieldValue,
  type Logger,
  type ResourceStore,
  type SendQuota,
  type ServiceClient,
  type SqlClient,
  type SqlQueryable,
  type SqlResourceStore,
  type WriteContext,
  captureTraceContext,
  checkReferences,
  claimIdempotencyKeys,
  countRefusal,
  existingIdempotencyKeys,
  idempotencyPair,
  isUuid,
  mapLimit,
  messageToRecord,
  newId,
  pgErrorOf,
  recordIdempotentAnswers,
  storedIdempotencyKey,
  translateDbError,
  validateWrite,
  withIdempotencyKey,
  withStoredTrace,
  writeOutbox,
} from '@crm/kit';
import { userReference } from '@crm/directory-contract';
import { MessagingError, MessagingErrorCode, sentEmails } from '@crm/messaging-contract';
import { contacts } from '@crm/people-contract';
import type { DirectoryServiceDefinition, PeopleServiceDefinition } from '@crm/proto';
import { type TemplateRenderer, TemplateError, messageIdFor } from './mail';
import type { SenderDirectory } from './sender-directory';

/**
 * Queueing a send (services/messaging/README.md, "Send → deliver → track", steps 1 to 4):
 * `POST /v1/sent_emails` and the flow engine's QueueSend and QueueSends all come here. The contact,
 * its address, the suppression list, the template and the sender are checked; the Liquid sources
 * are rendered in the renderer's worker threads (a template over the limits fails this send, 422,
 * and nothing else); the send's place in the workspace's hourly quota is reserved (named by the
 * send's id, so a retry does not take a second place) and given back if queueing fails; then the
 * send and its delivery row commit together with the `sent_email.queued` event, and the delivery
 * worker is woken. A batch does the same for each of its sends, with the reads and the writes
 * shared (`queueMany`).
 *
 * Rendering happens here rather than at delivery, so the stored subject and body are what the
 * contact receives and what lists and searches show; the delivery worker only builds the MIME
 * message around them.
 */
export interface FlowStepRef {
  flow_id: string;
  flow_node_id: string;
  flow_enrollment_id: string;
}

export interface QueueOptions {
  /** The flow step this send belongs to. */
  flow?: FlowStepRef;
  /** An earlier send of the same enrollment: this one goes in its thread. */
  replyToSentEmailId?: string;
  /** The trace its delivery joins, when it is not the active one (an item of a batch). */
  trace?: Record<string, string>;
}

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

export interface SendsDeps {
  db: SqlClient;
  store: SqlResourceStore;
  templates: ResourceStore;
  quota: SendQuota;
  renderer: TemplateRenderer;
  people: ServiceClient<PeopleServiceDefinition>;
  directory: ServiceClient<DirectoryServiceDefinition>;
  senders: SenderDirectory;
  mailDomain: string;
  /** The sender when nothing else names one. */
  defaultFrom: string;
  /** Wakes the delivery worker. */
  wake: () => void;
  /** Wakes the outbox relay after a commit that wrote events. */
  afterCommit: () => void;
  log: Logger;
}

const field = (name: string, message: string, reason = MessagingErrorCode.UnknownReference) => MessagingError.field(reason, name, message);

/** The thread a follow-up joins: the earlier messages' ids, oldest first, and the thread's subject. */
interface Thread {
  messageIds: string[];
  subject: string;
}

/**
 * What queueing reads besides its body, answered from what was read for all the sends of a call at
 * once (one send, or a batch). `undefined`: there is no such record.
 */
interface Lookups {
  contact(workspaceId: string, contactId: string): Promise<ApiRecord | undefined>;
  suppression(workspaceId: string, email: string): Promise<string | undefined>;
  thread(workspaceId: string, sentEmailId: string): Promise<Thread | undefined>;
  ownerExists(workspaceId: string, ownerId: string): Promise<boolean>;
}

type ThreadRow = { workspace_id: string; id: string; message_id: string; thread: string[]; subject: string };
const threadOf = (row: ThreadRow): Thread => ({
  messageIds: [...row.thread, row.message_id].slice(-20),
  subject: row.subject.replace(/^(\s*re\s*:\s*)+/i, ''),
});

/** Contact ids per GetContacts call (people's limit). */
const CONTACTS_PER_CALL = 1_000;
/** Sends of a batch that an earlier attempt keyed, queued one by one at once at most. */
const ONE_BY_ONE_CONCURRENCY = 8;

/** The lookups of a call's sends: their contacts (one GetContacts per workspace), threads and suppressions, each read once for all. */
async function lookupsFor(deps: SendsDeps, sends: readonly Pick<KeyedSend, 'ctx' | 'body' | 'options'>[]): Promise<Lookups> {
  const pair = (workspaceId: string, id: string) => `${workspaceId} ${id.toLowerCase()}`;
  const contactIds = new Map<string, Set<string>>();
  const replies: { workspaceId: string; id: string }[] = [];
  for (const send of sends) {
    const contactId = send.body && typeof send.body === 'object' ? (send.body as { contact_id?: unknown }).contact_id : undefined;
    // A malformed id is the validator's to report, in `prepare`.
    if (typeof contactId === 'string' && isUuid(contactId)) {
      const ids = contactIds.get(send.ctx.workspaceId) ?? new Set<string>();
      contactIds.set(send.ctx.workspaceId, ids.add(contactId.toLowerCase()));
    }
    const replyTo = send.options.replyToSentEmailId;
    if (replyTo && isUuid(replyTo)) replies.push({ workspaceId: send.ctx.workspaceId, id: replyTo });
  }
  const contactsByPair = new Map<string, ApiRecord>();
  const threads = new Map<string, Thread>();
  await Promise.all([
    ...[...contactIds].flatMap(([workspaceId, ids]) => {
      const all = [...ids];
      return Array.from({ length: Math.ceil(all.length / CONTACTS_PER_CALL) }, async (_, n) => {
        const found = await deps.people.call('GetContacts', { workspace_id: workspaceId, ids: all.slice(n * CONTACTS_PER_CALL, (n + 1) * CONTACTS_PER_CALL) });
        for (const message of found.contacts) contactsByPair.set(pair(workspaceId, message.id), messageToRecord(contacts, message));
      });
    }),
    (async () => {
      if (!replies.length) return;
      const { rows } = await deps.db.query<ThreadRow>(
        `SELECT s.workspace_id, s.id, s.message_id, s.subject, d.thread
           FROM sent_emails s JOIN deliveries d ON d.workspace_id = s.workspace_id AND d.sent_email_id = s.id
           JOIN unnest($1::uuid[], $2::uuid[]) AS given (workspace_id, id) ON s.workspace_id = given.workspace_id AND s.id = given.id`,
        [replies.map((r) => r.workspaceId), replies.map((r) => r.id)],
      );
      for (const row of rows) threads.set(pair(row.workspace_id, row.id), threadOf(row));
    })(),
  ]);
  const addresses: { workspaceId: string; email: string }[] = [];
  for (const [key, contact] of contactsByPair) {
    if (typeof contact.email === 'string') addresses.push({ workspaceId: key.slice(0, key.indexOf(' ')), email: contact.email.toLowerCase() });
  }
  const suppressions = new Map<string, string>();
  if (addresses.length) {
    const { rows } = await deps.db.query<{ workspace_id: string; email_lower: string; reason: string }>(
      `SELECT s.workspace_id, s.email_lower, s.reason FROM suppressions s
         JOIN unnest($1::uuid[], $2::text[]) AS given (workspace_id, email_lower) ON s.workspace_id = given.workspace_id AND s.email_lower = given.email_lower`,
      [addresses.map((a) => a.workspaceId), addresses.map((a) => a.email)],
    );
    for (const row of rows) suppressions.set(pair(row.workspace_id, row.email_lower), row.reason);
  }
  // A batch names few owners: each is looked up once.
  const owners = userReference(deps.directory);
  const ownerChecks = new Map<string, Promise<boolean>>();
  return {
    contact: async (workspaceId, contactId) => contactsByPair.get(pair(workspaceId, contactId)),
    suppression: async (workspaceId, email) => suppressions.get(pair(workspaceId, email)),
    thread: async (workspaceId, sentEmailId) => threads.get(pair(workspaceId, sentEmailId)),
    ownerExists(workspaceId, ownerId) {
      const key = pair(workspaceId, ownerId);
      let check = ownerChecks.get(key);
      if (!check) ownerChecks.set(key, (check = owners.exists(workspaceId, ownerId)));
      return check;
    },
  };
}

/** A send checked, rendered and named, ready to be written: its row's fields and its delivery's. */
interface Prepared {
  id: string;
  ctx: WriteContext;
  body: unknown;
  system: Record<string, FieldValue>;
  thread: string[];
  verp: boolean;
  trace: Record<string, string>;
}

/** The delivery rows of written sends, in one statement. */
async function insertDeliveries(tx: SqlQueryable, sends: readonly Prepared[]): Promise<void> {
  if (!sends.length) return;
  await tx.query(
    // The trace that queued each: its delivery, however much later, joins that trace.
    `INSERT INTO deliveries (workspace_id, sent_email_id, next_attempt_at, thread, verp, trace)
     SELECT given.workspace_id, given.sent_email_id, now(), ARRAY(SELECT jsonb_array_elements_text(given.thread)), given.verp, given.trace
       FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::boolean[], $5::jsonb[]) AS given (workspace_id, sent_email_id, thread, verp, trace)`,
    [
      sends.map((p) => p.ctx.workspaceId),
      sends.map((p) => p.id),
      sends.map((p) => JSON.stringify(p.thread)),
      sends.map((p) => p.verp),
      sends.map((p) => JSON.stringify(p.trace)),
    ],
  );
}

export function createSends(deps: SendsDeps): Sends {
  const { store, quota, renderer, senders, log } = deps;

  async function templateOf(ctx: WriteContext, templateId: string): Promise<ApiRecord> {
    try {
      return await deps.templates.get(ctx.workspaceId, templateId);
    } catch (error) {
      if (error instanceof CrmError && error.code === 'not_found') throw field('template_id', 'no email template with this id in the workspace');
      throw error;
    }
  }

  async function render(sources: { subject: string; body: string; body_text: string | null }, variables: Record<string, unknown>) {
    try {
      return await renderer.render(sources, variables);
    } catch (error) {
      if (error instanceof TemplateError) {
        if (error.reason === 'unavailable') throw new CrmError('unavailable', 'the template renderer is busy; retry shortly');
        const name = error.field ?? 'body';
        throw field(name, error.message, MessagingErrorCode.InvalidTemplate);
      }
      throw error;
    }
  }

  /** Checks and renders one send (422 naming the field for what is wrong with it). */
  async function prepare(
    ctx: WriteContext,
    body: unknown,
    options: QueueOptions,
    lookups: Lookups,
    /** A batch's templates, each read once for all its sends. */
    templates?: Map<string, Promise<ApiRecord>>,
  ): Promise<Prepared> {
    const values = validateWrite(sentEmails, body, 'create');
    await checkReferences(ctx, body, { owner_id: { noun: 'user', exists: lookups.ownerExists } });
    const given = values.fields;
    const contactId = given.contact_id as string;
    const templateId = (given.template_id as string | null | undefined) ?? undefined;
    // A follow-up in a thread may leave its subject out: it takes the thread's.
    const subjectOptional = Boolean(options.replyToSentEmailId);
    if (!templateId && ((typeof given.subject !== 'string' && !subjectOptional) || typeof given.body !== 'string')) {
      throw CrmError.validation(
        ['subject', 'body']
          .filter((name) => typeof given[name] !== 'string' && !(name === 'subject' && subjectOptional))
          .map((name) => ({ field: name, message: 'is required unless template_id is given' })),
      );
    }
    let thread: Thread | undefined;
    if (options.replyToSentEmailId) {
      thread = await lookups.thread(ctx.workspaceId, options.replyToSentEmailId);
      if (!thread) throw field('reply_to_sent_email_id', 'no sent email with this id in the workspace');
    }

    // Unknown and another workspace's contact get the same answer: existence elsewhere stays hidden.
    const contact = await lookups.contact(ctx.workspaceId, contactId);
    if (!contact) throw field('contact_id', 'no contact with this id in the workspace');
    const toEmail = typeof contact.email === 'string' ? contact.email : undefined;
    if (!toEmail) throw field('contact_id', 'the contact has no email address', MessagingErrorCode.NoAddress);
    const suppressed = await lookups.suppression(ctx.workspaceId, toEmail);
    if (suppressed) {
      throw field('contact_id', `the contact's address is suppressed (${suppressed === 'unsubscribed' ? 'unsubscribed' : 'hard bounce'})`, MessagingErrorCode.Suppressed);
    }
    let template: ApiRecord | undefined;
    if (templateId) {
      const key = `${ctx.workspaceId} ${templateId}`;
      let read = templates?.get(key);
      if (!read) {
        read = templateOf(ctx, templateId);
        templates?.set(key, read);
      }
      template = await read;
    }
    const ownerId = (given.owner_id as string | null | undefined) ?? (contact.owner_id as string | null) ?? null;
    const sender = await senders.sender(ctx.workspaceId, ownerId);
    const rendered = await render(
      {
        // The thread's subject is already rendered: it is not a template again.
        subject: (given.subject as string | undefined) ?? (template ? (template.subject as string) : ''),
        body: (given.body as string | undefined) ?? (template!.body as string),
        body_text: (given.body_text as string | null | undefined) ?? (template?.body_text as string | null | undefined) ?? null,
      },
      { ...contact, sender: sender.variables },
    );
    const hasText = (given.body_text ?? template?.body_text ?? null) !== null;
    const id = newId();
    return {
      id,
      ctx,
      body,
      system: {
        status: 'queued',
        subject: !template && typeof given.subject !== 'string' && thread ? thread.subject : rendered.subject,
        body: rendered.html,
        body_text: hasText ? rendered.text : null,
        to_email: toEmail,
        from_email: (given.from_email as string | undefined) ?? sender.fromEmail ?? deps.defaultFrom,
        from_name: (given.from_name as string | null | undefined) ?? sender.fromName ?? null,
        owner_id: ownerId,
        message_id: messageIdFor(id, deps.mailDomain),
        ...(options.flow ?? {}),
      },
      thread: thread?.messageIds ?? [],
      verp: sender.verp,
      trace: options.trace ?? captureTraceContext(),
    };
  }

  /**
   * Takes the send's place in the workspace's hourly quota, named by its id (a retry does not take a
   * second place): send_quota_exhausted with the retry time when the hour is full.
   */
  async function reserve(send: Prepared): Promise<void> {
    let reservation;
    try {
      reservation = await quota.reserve(send.ctx.workspaceId, send.id);
    } catch (error) {
      log.warn({ err: error }, 'send quota unavailable: refusing the send rather than risking the quota');
      throw new MessagingError(MessagingErrorCode.QuotaUnavailable, 'the send quota cannot be checked right now; retry shortly');
    }
    if (!reservation.granted) {
      countRefusal('send_quota');
      const seconds = Math.max(1, Math.ceil(reservation.retryAfterMs / 1000));
      throw new MessagingError(
        MessagingErrorCode.QuotaExhausted,
        `the workspace's hourly send quota (${quota.limit}) is used up: retry after ${seconds} seconds`,
        { retry_after_seconds: seconds, limit: quota.limit },
      );
    }
  }

  const release = (send: Prepared) => quota.release(send.ctx.workspaceId, send.id).catch(() => undefined);

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

  /**
   * The batch's new sends in one transaction: their keys claimed, rows, delivery rows, answers and
   * events. A key another request claimed meanwhile is `lost`: that send goes the one-by-one way.
   */
  async function writeBatch(sends: readonly { send: Prepared; key: BatchIdempotencyKey }[]): Promise<{ written: Map<string, ApiRecord>; lost: Prepared[] }> {
    const traceBySend = new Map(sends.map(({ send }) => [send.id, send.trace]));
    for (let attempt = 1; ; attempt++) {
      try {
        const { written, lost, events } = await deps.db.transaction(async (tx) => {
          const claimed = await claimIdempotencyKeys(tx, sends.map((s) => s.key));
          const mine = sends.filter((s) => claimed.has(idempotencyPair(s.key)));
          const { records, events } = await store.insertMany(
            tx,
            mine.map(({ send }) => ({ ctx: send.ctx, body: send.body, id: send.id, systemFields: send.system })),
          );
          await insertDeliveries(tx, mine.map((s) => s.send));
          await recordIdempotentAnswers(tx, mine.map((s, n) => ({ key: s.key, answer: records[n] })));
          await writeOutbox(tx, events, (event: CrmEvent<object>) => traceBySend.get(String((event.data as { sent_email_id?: unknown }).sent_email_id)));
          return {
            written: new Map(mine.map((s, n) => [s.send.id, records[n]!])),
            lost: sends.filter((s) => !claimed.has(idempotencyPair(s.key))).map((s) => s.send),
            events,
          };
        });
        if (events.length) deps.afterCommit();
        if (written.size) deps.wake();
        return { written, lost };
      } catch (error) {
        const code = pgErrorOf(error)?.code;
        if ((code === '40001' || code === '40P01') && attempt < 3) continue;
        translateDbError(sentEmails, error);
      }
    }
  }

  return {
    queue,

    async queueMany(sends) {
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
    },
  };
}
