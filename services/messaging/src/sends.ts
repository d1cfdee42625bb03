import {
  type ApiRecord,
  CrmError,
  type FieldValue,
  type Logger,
  type ResourceStore,
  type SendQuota,
  type ServiceClient,
  type SqlQueryable,
  type WriteContext,
  captureTraceContext,
  messageToRecord,
  newId,
  checkReferences,
  validateWrite,
  countRefusal,
} from '@crm/kit';
import { userReference } from '@crm/directory-contract';
import { MessagingError, MessagingErrorCode, emailTemplates, sentEmails } from '@crm/messaging-contract';
import { contacts } from '@crm/people-contract';
import type { DirectoryServiceDefinition, PeopleServiceDefinition } from '@crm/proto';
import { type TemplateRenderer, TemplateError, messageIdFor } from './mail';
import type { SenderDirectory } from './sender-directory';

/**
 * Queueing a send (DESIGN.md, Messaging: queue): `POST /v1/sent_emails` and the flow engine's
 * QueueSend both come here. The send's place in the workspace's hourly quota is reserved first
 * (named by the send's id, so a retry does not take a second place) and given back if queueing
 * fails; the contact, its address, the suppression list, the template and the sender are checked;
 * the Liquid sources are rendered in the renderer's worker threads (a template over the limits
 * fails this send, 422, and nothing else); then the send and its delivery row commit together with
 * the `sent_email.queued` event, and the delivery worker is woken.
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
}

export interface Sends {
  /** Queues a send from a create body (the API's shape). */
  queue(ctx: WriteContext, body: unknown, options?: QueueOptions): Promise<ApiRecord>;
}

export interface SendsDeps {
  store: ResourceStore;
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
  log: Logger;
}

const field = (name: string, message: string, reason = MessagingErrorCode.UnknownReference) => MessagingError.field(reason, name, message);

/** The contact's fields as a template sees them (declared and custom), or a 422 naming contact_id. */
async function loadContact(people: SendsDeps['people'], workspaceId: string, contactId: string): Promise<ApiRecord> {
  try {
    return messageToRecord(contacts, await people.call('GetContact', { workspace_id: workspaceId, id: contactId }));
  } catch (error) {
    // Unknown and another workspace's contact get the same answer: existence elsewhere stays hidden.
    if (error instanceof CrmError && error.code === 'not_found') throw field('contact_id', 'no contact with this id in the workspace');
    throw error;
  }
}

async function suppressionOf(q: SqlQueryable, workspaceId: string, email: string): Promise<string | undefined> {
  const { rows } = await q.query<{ reason: string }>(`SELECT reason FROM suppressions WHERE workspace_id = $1::uuid AND email_lower = $2`, [
    workspaceId,
    email.toLowerCase(),
  ]);
  return rows[0]?.reason;
}

/** The Message-IDs of an earlier send's thread, ending with its own: this send answers it. */
/** The thread a follow-up joins: the earlier messages' ids, oldest first, and the thread's subject. */
async function threadOf(q: SqlQueryable, workspaceId: string, sentEmailId: string): Promise<{ messageIds: string[]; subject: string }> {
  const { rows } = await q.query<{ message_id: string; thread: string[]; subject: string }>(
    `SELECT s.message_id, s.subject, d.thread FROM sent_emails s JOIN deliveries d ON d.workspace_id = s.workspace_id AND d.sent_email_id = s.id
      WHERE s.workspace_id = $1::uuid AND s.id = $2::uuid`,
    [workspaceId, sentEmailId],
  );
  if (!rows[0]) throw field('reply_to_sent_email_id', 'no sent email with this id in the workspace');
  return { messageIds: [...rows[0].thread, rows[0].message_id].slice(-20), subject: rows[0].subject.replace(/^(\s*re\s*:\s*)+/i, '') };
}

export function createSends(deps: SendsDeps & { db: SqlQueryable }): Sends {
  const { store, quota, renderer, people, senders, log } = deps;

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

  return {
    async queue(ctx, body, options = {}) {
      const values = validateWrite(sentEmails, body, 'create');
      await checkReferences(ctx, body, { owner_id: userReference(deps.directory) });
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
      const thread = options.replyToSentEmailId ? await threadOf(deps.db, ctx.workspaceId, options.replyToSentEmailId) : undefined;

      const contact = await loadContact(people, ctx.workspaceId, contactId);
      const toEmail = typeof contact.email === 'string' ? contact.email : undefined;
      if (!toEmail) throw field('contact_id', 'the contact has no email address', MessagingErrorCode.NoAddress);
      const suppressed = await suppressionOf(deps.db, ctx.workspaceId, toEmail);
      if (suppressed) {
        throw field('contact_id', `the contact's address is suppressed (${suppressed === 'unsubscribed' ? 'unsubscribed' : 'hard bounce'})`, MessagingErrorCode.Suppressed);
      }
      const template = templateId ? await templateOf(ctx, templateId) : undefined;
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
      let reservation;
      try {
        reservation = await quota.reserve(ctx.workspaceId, id);
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
      const system: Record<string, FieldValue> = {
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
      };
      let created: ApiRecord;
      try {
        created = await store.create(ctx, body, {
          id,
          systemFields: system,
          inTransaction: async (tx) => {
            await tx.query(
              // The trace that queued it: its delivery, however much later, joins that trace.
              `INSERT INTO deliveries (workspace_id, sent_email_id, next_attempt_at, thread, verp, trace)
               VALUES ($1::uuid, $2::uuid, now(), $3::text[], $4::boolean, $5::jsonb)`,
              [ctx.workspaceId, id, thread?.messageIds ?? [], sender.verp, JSON.stringify(captureTraceContext())],
            );
          },
        });
      } catch (error) {
        await quota.release(ctx.workspaceId, id).catch(() => undefined);
        throw error;
      }
      // A repeat of an earlier request (its Idempotency-Key) answers the send it queued: the place
      // reserved for this attempt's id goes back.
      if (created.id !== id) await quota.release(ctx.workspaceId, id).catch(() => undefined);
      else deps.wake();
      return created;
    },
  };
}
