import {
  type ApiRecord,
  CrmError,
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
  countRefusal,
  emailAddressProblem,
  isUuid,
  messageToRecord,
  newId,
  validateWrite,
} from '@crm/kit';
import { userReference } from '@crm/directory-contract';
import { MessagingError, MessagingErrorCode, sentEmails } from '@crm/messaging-contract';
import { contacts } from '@crm/people-contract';
import type { DirectoryServiceDefinition, PeopleServiceDefinition } from '@crm/proto';
import { type TemplateRenderer, TemplateError, messageIdFor } from '../mail';
import type { SenderDirectory } from '../sender-directory';

/**
 * What a send goes through before it is written, one send or a batch alike
 * (services/messaging/README.md, "Send → deliver → track", steps 2 and 3): the contact, its address,
 * the suppression list, the template and the sender are checked; the Liquid sources are rendered in
 * the renderer's worker threads (a template over the limits fails this send, 422, and nothing
 * else); the send's place in the workspace's hourly quota is reserved (named by the send's id, so a
 * retry does not take a second place) and given back if queueing fails. Writing it is
 * `queue-send.ts`'s (one send) or `queue-batch.ts`'s (QueueSends).
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
export interface Lookups {
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
export async function lookupsFor(deps: SendsDeps, sends: readonly { ctx: WriteContext; body: unknown; options: QueueOptions }[]): Promise<Lookups> {
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
export interface Prepared {
  id: string;
  ctx: WriteContext;
  body: unknown;
  system: Record<string, FieldValue>;
  thread: string[];
  verp: boolean;
  trace: Record<string, string>;
}

/** The delivery rows of written sends, in one statement. */
export async function insertDeliveries(tx: SqlQueryable, sends: readonly Prepared[]): Promise<void> {
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

export interface SendPreparation {
  /** Checks and renders one send (422 naming the field for what is wrong with it). */
  prepare(ctx: WriteContext, body: unknown, options: QueueOptions, lookups: Lookups, templates?: Map<string, Promise<ApiRecord>>): Promise<Prepared>;
  /** Takes the send's place in the hourly quota, or refuses it (429, or 503 when the quota cannot be read). */
  reserve(send: Prepared): Promise<void>;
  /** Gives the send's place back (its write failed or replayed an earlier one). */
  release(send: Prepared): Promise<unknown>;
}

export function createSendPreparation(deps: SendsDeps): SendPreparation {
  const { quota, renderer, senders, log } = deps;

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
    // A contact stored before the address rule took RFC 5321's limits: no server would take the send.
    const undeliverable = emailAddressProblem(toEmail);
    if (undeliverable) throw field('contact_id', `the contact's email address cannot be sent to: ${undeliverable}`, MessagingErrorCode.NoAddress);
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

  return { prepare, reserve, release };
}
