import {
  CrmError,
  type GrpcServiceBinding,
  type Logger,
  type RawListParams,
  bindContext,
  errorPayload,
  recordToMessage,
  requireIdempotencyKey,
  requireUuid,
  toStruct,
} from '@crm/kit';
import type { QueueSendRequest__Output } from '@crm/proto';
import { messagingApi, parsePerformanceQuery, parseTimelineQuery, sentEmails } from '@crm/messaging-contract';
import { MAX_OPENS_PER_BATCH } from './engagement';
import { TemplateError } from './mail';
import type { MessagingService } from './messaging.service';
import type { QueueOptions } from './sending/prepare-send';
import type { KeyedSend } from './sending/queue-batch';

const optional = (value: string | null | undefined) => (value ? value : undefined);

/** Sends per QueueSends call: two engine rounds' worth. */
const MAX_QUEUE_SENDS = 500;

/** A flow step's send as `sends` takes it, from its QueueSend message (and the trace it joins). */
function sendOf(request: QueueSendRequest__Output, trace?: Record<string, string>): { ctx: { workspaceId: string }; body: Record<string, unknown>; options: QueueOptions } {
  const body: Record<string, unknown> = { contact_id: request.contact_id };
  for (const key of ['owner_id', 'template_id', 'subject', 'body', 'body_text'] as const) {
    const value = optional(request[key]);
    if (value !== undefined) body[key] = value;
  }
  return {
    ctx: { workspaceId: requireUuid(request.workspace_id, 'workspace_id') },
    body,
    options: {
      flow: {
        flow_id: requireUuid(request.flow_id, 'flow_id'),
        flow_node_id: requireUuid(request.flow_node_id, 'flow_node_id'),
        flow_enrollment_id: requireUuid(request.flow_enrollment_id, 'flow_enrollment_id'),
      },
      ...(request.reply_to_sent_email_id ? { replyToSentEmailId: requireUuid(request.reply_to_sent_email_id, 'reply_to_sent_email_id') } : {}),
      ...(trace ? { trace } : {}),
    },
  };
}

/** MessagingService: the route table's resources bound to their stores, and the context's own RPCs. */
export function messagingGrpcBinding(service: MessagingService, log: Logger): GrpcServiceBinding {
  return bindContext(
    messagingApi,
    {
      sent_emails: service.sentEmails,
      email_events: service.emailEvents,
      touchpoints: service.touchpoints,
      email_templates: service.emailTemplates,
      chatapp_templates: service.chatappTemplates,
    },
    {
      async QueueSend(request) {
        requireIdempotencyKey();
        const { ctx, body, options } = sendOf(request);
        return recordToMessage(sentEmails, await service.sends.queue(ctx, body, options));
      },
      async QueueSends(request) {
        const items = request.items ?? [];
        if (items.length > MAX_QUEUE_SENDS) throw CrmError.invalid(`at most ${MAX_QUEUE_SENDS} sends per call, got ${items.length}`, { parameter: 'items' });
        // An item that cannot be read fails alone, as its own QueueSend call would.
        const read = items.map((item): KeyedSend | { error: unknown } => {
          try {
            if (!item.send) throw CrmError.invalid('an item needs its send');
            return {
              ...sendOf(item.send, item.trace),
              key: item.idempotency_key,
              fingerprint: item.fingerprint,
              ...(request.origin ? { origin: request.origin } : {}),
            };
          } catch (error) {
            return { error };
          }
        });
        const sends = read.filter((item): item is KeyedSend => !('error' in item));
        const outcomes = await service.sends.queueMany(sends);
        let next = 0;
        return {
          results: read.map((item) => {
            const outcome = 'error' in item ? { ok: false as const, error: item.error } : outcomes[next++]!;
            return outcome.ok ? { sent: recordToMessage(sentEmails, outcome.record) } : { error: errorPayload(outcome.error, log, 'QueueSends') };
          }),
        };
      },
      async CancelSend(request) {
        return service.cancel(
          requireUuid(request.workspace_id, 'workspace_id'),
          requireUuid(request.sent_email_id, 'sent_email_id'),
          request.reason || 'canceled',
        );
      },
      async RecordEngagement(request) {
        const kind = request.kind;
        if (kind !== 'open' && kind !== 'click' && kind !== 'unsubscribe') throw new TypeError(`unknown engagement kind ${kind}`);
        const result = await service.engagement.record({
          kind,
          token: request.token,
          userAgent: optional(request.user_agent),
          method: optional(request.method),
          checkOnly: request.check_only,
        });
        return { url: result.url ?? '', is_bot: result.isBot };
      },
      async RecordOpens(request) {
        const opens = request.opens ?? [];
        if (opens.length > MAX_OPENS_PER_BATCH) throw CrmError.invalid(`at most ${MAX_OPENS_PER_BATCH} opens in one call`);
        const recorded = await service.engagement.recordOpens(
          opens.map((open) => ({ token: open.token, userAgent: optional(open.user_agent), method: optional(open.method) })),
        );
        return { recorded };
      },
      async IngestMail(request) {
        const result = await service.inbound.ingest(Buffer.from(request.raw), request.envelope_recipients);
        return { kind: result.kind, ...(result.sentEmailId ? { sent_email_id: result.sentEmailId } : {}) };
      },
      async CheckSuppressions(request) {
        return { suppressed: await service.suppressed(requireUuid(request.workspace_id, 'workspace_id'), request.emails ?? []) };
      },
      async GetContactTimeline(request) {
        // The same strict parsing as the gateway's, from the request's present fields.
        const raw: RawListParams = {};
        for (const key of ['cursor', 'kind', 'since', 'until'] as const) if (request[key] !== undefined && request[key] !== null) raw[key] = request[key];
        if (request.limit !== undefined && request.limit !== null) raw.limit = String(request.limit);
        const page = await service.timeline(
          requireUuid(request.workspace_id, 'workspace_id'),
          requireUuid(request.contact_id, 'contact_id'),
          parseTimelineQuery(raw),
        );
        return {
          data: page.data.map((item) => ({ ...item, payload: toStruct(item.payload) })),
          page: { next_cursor: page.nextCursor ?? '', has_more: page.nextCursor !== null },
        };
      },
      async GetUserPerformance(request) {
        const userId = requireUuid(request.user_id, 'user_id');
        const window = parsePerformanceQuery(request.window ? { window: request.window } : {});
        const counts = await service.performance(requireUuid(request.workspace_id, 'workspace_id'), userId, window);
        return { user_id: userId, window, ...counts };
      },
      async ValidateTemplate(request) {
        try {
          await service.renderer.validate({ subject: request.subject ?? '', body: request.body ?? '', body_text: request.body_text ?? null });
          return { issues: [] };
        } catch (error) {
          if (error instanceof TemplateError && error.reason !== 'unavailable') {
            return { issues: [{ field: error.field ?? 'body', message: error.message.replace(/^[a-z_]+: /, '') }] };
          }
          throw error;
        }
      },
    },
    log,
  );
}
