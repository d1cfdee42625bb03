import { type GrpcServiceBinding, type Logger, type RawListParams, bindContext, recordToMessage, requireIdempotencyKey, requireUuid, toStruct } from '@crm/kit';
import { messagingApi, parsePerformanceQuery, parseTimelineQuery, sentEmails } from '@crm/messaging-contract';
import { TemplateError } from './mail';
import type { MessagingService } from './messaging.service';

const optional = (value: string | null | undefined) => (value ? value : undefined);

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
        const body: Record<string, unknown> = { contact_id: request.contact_id };
        for (const key of ['owner_id', 'template_id', 'subject', 'body', 'body_text'] as const) {
          const value = optional(request[key]);
          if (value !== undefined) body[key] = value;
        }
        const sent = await service.sends.queue({ workspaceId: requireUuid(request.workspace_id, 'workspace_id') }, body, {
          flow: {
            flow_id: requireUuid(request.flow_id, 'flow_id'),
            flow_node_id: requireUuid(request.flow_node_id, 'flow_node_id'),
            flow_enrollment_id: requireUuid(request.flow_enrollment_id, 'flow_enrollment_id'),
          },
          replyToSentEmailId: request.reply_to_sent_email_id ? requireUuid(request.reply_to_sent_email_id, 'reply_to_sent_email_id') : undefined,
        });
        return recordToMessage(sentEmails, sent);
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
