import * as path from 'node:path';
import {
  type Clock,
  CrmError,
  type CursorCodec,
  type FieldValue,
  type Logger,
  type PendingWrite,
  type ResourceStore,
  type SendQuota,
  type ServiceClient,
  type SqlClient,
  createOutboxCommit,
  createResourceStore,
  withReferenceChecks,
  messageToRecord,
} from '@crm/kit';
import {
  MessagingError,
  MessagingErrorCode,
  type PerformanceWindow,
  type TimelineQuery,
  chatappTemplates,
  emailEvents,
  emailTemplates,
  sentEmails,
  touchpoints,
} from '@crm/messaging-contract';
import { userReference } from '@crm/directory-contract';
import { contacts } from '@crm/people-contract';
import { type DirectoryServiceDefinition, MessagingEvents, type PeopleServiceDefinition } from '@crm/proto';
import { createDeliveryWorker, type DeliveryWorker } from './delivery/delivery.worker';
import { createTransports, type Transports } from './delivery/transports';
import { type Engagement, createEngagement } from './engagement';
import { type Inbound, createInbound } from './inbound/ingest';
import { type TemplateRenderer, TemplateError, type TrackingTokens, createTemplateRenderer, createTrackingTokens } from './mail';
import { type Performance, type TimelineItem, readPerformance, readTimeline, recordLedger } from './ledger';
import { findSend, touchpointEntry } from './send-lifecycle.store';
import { cancelQueuedSend } from './sending/cancel-send';
import { type SenderDirectory, createSenderDirectory } from './sender-directory';
import { type Sends, createSends } from './sending/queue-send';

export interface MessagingSettings {
  /** The gateway's public origin: tracking, click and unsubscribe links point there. */
  publicUrl: string;
  /** The domain of Message-IDs and VERP addresses. */
  mailDomain: string;
  /** The sender when neither the send, the integration nor the owner names one. */
  defaultFrom: string;
  smtpUrl?: string;
  /** `CRM_DATA_DIR`: the log provider writes under `<dir>/mail`. */
  dataDir: string;
  /** Secrets that sign tracking and unsubscribe tokens (the first signs, all verify). */
  trackingSecrets: string[];
  deliveryConcurrency?: number;
  retryBaseMs?: number;
  /** How long a delivery claim holds a send before another worker may take it. */
  leaseMs?: number;
  maxAttempts?: number;
  inboundMaxBytes?: number;
}

export interface MessagingService {
  sentEmails: ResourceStore;
  emailEvents: ResourceStore;
  touchpoints: ResourceStore;
  emailTemplates: ResourceStore;
  chatappTemplates: ResourceStore;
  sends: Sends;
  engagement: Engagement;
  inbound: Inbound;
  renderer: TemplateRenderer;
  delivery: DeliveryWorker;
  /** Which of these addresses the workspace has suppressed (lower-cased). */
  suppressed(workspaceId: string, emails: readonly string[]): Promise<string[]>;
  /** Cancels a queued send; a send already handed over is not recalled. Idempotent. */
  cancel(workspaceId: string, sentEmailId: string, reason: string): Promise<{ canceled: boolean; status: string }>;
  /** A page of the contact's timeline (not_found for a contact the workspace does not have). */
  timeline(workspaceId: string, contactId: string, query: TimelineQuery): Promise<{ data: TimelineItem[]; nextCursor: string | null }>;
  /** The user's counters over the window ending now (not_found for a user the workspace does not have). */
  performance(workspaceId: string, userId: string, window: PerformanceWindow): Promise<Performance>;
  close(): Promise<void>;
}

export interface MessagingServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  afterCommit: () => void;
  log: Logger;
  clock: Clock;
  quota: SendQuota;
  people: ServiceClient<PeopleServiceDefinition>;
  directory: ServiceClient<DirectoryServiceDefinition>;
  settings: MessagingSettings;
  /** Replaces the transports (tests that point one workspace elsewhere). */
  transports?: Transports;
  senders?: SenderDirectory;
}

/** Liquid sources are checked when a template is saved: a 422 names the field that fails. */
function templateRule(renderer: TemplateRenderer, fields: { subject?: string; body: string; bodyText?: string }) {
  return async (write: PendingWrite): Promise<void> => {
    const next = write.next;
    try {
      await renderer.validate({
        subject: fields.subject ? String(next[fields.subject] ?? '') : '',
        body: String(next[fields.body] ?? ''),
        body_text: fields.bodyText ? ((next[fields.bodyText] as string | null | undefined) ?? null) : null,
      });
    } catch (error) {
      if (error instanceof TemplateError) {
        if (error.reason === 'unavailable') throw new CrmError('unavailable', 'the template renderer is busy; retry shortly');
        const field = error.field === 'subject' ? fields.subject! : error.field === 'body_text' ? fields.bodyText! : fields.body;
        throw MessagingError.field(MessagingErrorCode.InvalidTemplate, field, error.message.replace(/^[a-z_]+: /, ''));
      }
      throw error;
    }
  };
}

export function createMessagingService(deps: MessagingServiceDeps): MessagingService {
  const { db, cursors, afterCommit, log, clock, settings, people } = deps;
  const renderer = createTemplateRenderer();
  const tokens: TrackingTokens = createTrackingTokens({ secret: settings.trackingSecrets });
  const senders = deps.senders ?? createSenderDirectory(deps.directory);
  const transports = deps.transports ?? createTransports({ senders, smtpUrl: settings.smtpUrl, mailDir: path.join(settings.dataDir, 'mail'), log });
  const common = { db, cursors, afterCommit };
  const commit = createOutboxCommit(db, afterCommit);

  const sentEmailStore = createResourceStore({
    ...common,
    spec: sentEmails,
    events: (change) =>
      change.verb === 'created'
        ? [
            {
              type: MessagingEvents.SentEmailQueued,
              data: {
                sent_email_id: String(change.after!.id),
                contact_id: String(change.after!.contact_id),
                to_email: String(change.after!.to_email),
                ...(change.after!.owner_id ? { owner_id: String(change.after!.owner_id) } : {}),
                ...(change.after!.flow_id
                  ? {
                      flow: {
                        flow_id: String(change.after!.flow_id),
                        node_id: String(change.after!.flow_node_id),
                        enrollment_id: String(change.after!.flow_enrollment_id),
                      },
                    }
                  : {}),
              },
            },
          ]
        : [],
  });
  const templateStore = createResourceStore({
    ...common,
    spec: emailTemplates,
    beforeWrite: templateRule(renderer, { subject: 'subject', body: 'body', bodyText: 'body_text' }),
  });
  const chatappStore = createResourceStore({
    ...common,
    spec: chatappTemplates,
    beforeWrite: async (write) => {
      await templateRule(renderer, { body: 'body' })(write);
      return write.mode === 'create' && write.fields.channel === undefined ? { channel: 'chat_app' } : undefined;
    },
  });

  /** A manual touchpoint names a contact of the workspace; it defaults to completed, now. */
  const touchpointStore = createResourceStore({
    ...common,
    spec: touchpoints,
    beforeWrite: async (write): Promise<Record<string, FieldValue>> => {
      const contactId = write.fields.contact_id;
      if (typeof contactId === 'string') {
        try {
          messageToRecord(contacts, await people.call('GetContact', { workspace_id: write.ctx.workspaceId, id: contactId }));
        } catch (error) {
          if (error instanceof CrmError && error.code === 'not_found') {
            throw MessagingError.field(MessagingErrorCode.UnknownReference, 'contact_id', 'no contact with this id in the workspace');
          }
          throw error;
        }
      }
      if (write.mode !== 'create') return {};
      return {
        source: 'manual',
        ...(write.fields.status === undefined ? { status: 'completed' } : {}),
        ...(write.fields.occurred_at === undefined ? { occurred_at: clock.now() } : {}),
      };
    },
    events: (change) =>
      change.verb === 'created'
        ? [
            {
              type: MessagingEvents.TouchpointRecorded,
              data: {
                touchpoint_id: String(change.after!.id),
                contact_id: String(change.after!.contact_id),
                channel: String(change.after!.channel),
                direction: String(change.after!.direction),
                status: String(change.after!.status),
                occurred_at: String(change.after!.occurred_at),
                ...(change.after!.owner_id ? { owner_id: String(change.after!.owner_id) } : {}),
              },
            },
          ]
        : [],
  });

  const delivery = createDeliveryWorker({
    db,
    transports,
    tokens,
    publicUrl: settings.publicUrl,
    mailDomain: settings.mailDomain,
    clock,
    log: log.child({ worker: 'delivery' }),
    afterCommit,
    concurrency: settings.deliveryConcurrency,
    retryBaseMs: settings.retryBaseMs,
    maxAttempts: settings.maxAttempts,
    leaseMs: settings.leaseMs,
  });

  const sends = createSends({
    db,
    store: sentEmailStore,
    templates: templateStore,
    quota: deps.quota,
    renderer,
    people,
    directory: deps.directory,
    senders,
    mailDomain: settings.mailDomain,
    defaultFrom: settings.defaultFrom,
    wake: () => delivery.wake(),
    afterCommit,
    log,
  });

  return {
    sentEmails: { ...sentEmailStore, create: (ctx, body) => sends.queue(ctx, body) },
    emailEvents: createResourceStore({ ...common, spec: emailEvents }),
    // A touchpoint's owner is a user of the workspace (its contact is checked by its rule above).
    // One logged by hand is a row of its contact's timeline, written with it.
    touchpoints: withReferenceChecks(
      {
        ...touchpointStore,
        create: (ctx, body, options) =>
          touchpointStore.create(ctx, body, {
            ...options,
            inTransaction: async (tx, record) => {
              await recordLedger(
                tx,
                ctx.workspaceId,
                touchpointEntry(String(record.id), {
                  contactId: String(record.contact_id),
                  ownerId: (record.owner_id as string | null) ?? null,
                  channel: record.channel as 'email',
                  direction: record.direction as 'inbound' | 'outbound',
                  status: record.status as 'completed' | 'failed',
                  subject: record.subject as string | null,
                  summary: record.summary as string | null,
                  occurredAt: new Date(String(record.occurred_at)),
                }),
              );
              return options?.inTransaction?.(tx, record);
            },
          }),
      },
      { owner_id: userReference(deps.directory) },
    ),
    emailTemplates: templateStore,
    chatappTemplates: chatappStore,
    sends,
    engagement: createEngagement({ db, tokens, clock, afterCommit }),
    inbound: createInbound({ db, mailDomain: settings.mailDomain, clock, log, afterCommit, maxBytes: settings.inboundMaxBytes }),
    renderer,
    delivery,

    async suppressed(workspaceId, emails) {
      if (emails.length > 10_000) throw CrmError.invalid('at most 10,000 addresses per call', { parameter: 'emails' });
      if (!emails.length) return [];
      const { rows } = await db.query<{ email_lower: string }>(
        `SELECT email_lower FROM suppressions WHERE workspace_id = $1::uuid AND email_lower = ANY($2::text[])`,
        [workspaceId, [...new Set(emails.map((e) => e.toLowerCase()))]],
      );
      return rows.map((r) => r.email_lower);
    },

    async cancel(workspaceId, sentEmailId, reason) {
      const { value } = await commit.outcome(async (tx) => {
        const send = await findSend(tx, sentEmailId, true);
        if (!send || send.workspace_id !== workspaceId) throw CrmError.notFound('sent_email');
        const { canceled, status, events } = await cancelQueuedSend(tx, send, reason);
        return { value: { canceled, status }, events };
      });
      return value;
    },

    // The ledger keeps rows of deleted contacts (they are history): the contact, or the user, must
    // exist now. Asked beside the query, not before it: an unknown one is 404 all the same.
    async timeline(workspaceId, contactId, query) {
      const [, page] = await Promise.all([
        people.call('GetContact', { workspace_id: workspaceId, id: contactId }),
        readTimeline(db, cursors, workspaceId, contactId, query),
      ]);
      return page;
    },

    async performance(workspaceId, userId, window) {
      const [, counts] = await Promise.all([
        deps.directory.call('GetUser', { workspace_id: workspaceId, id: userId }),
        readPerformance(db, workspaceId, userId, window, clock.now()),
      ]);
      return counts;
    },

    async close() {
      transports.close();
      await renderer.close();
    },
  };
}
