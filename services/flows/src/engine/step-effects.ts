import {
  CrmError,
  IDEMPOTENT_REPLAYED_METADATA,
  type ServiceClient,
  type SqlQueryable,
  captureTraceContext,
  createLimiter,
  errorFromPayload,
  messageToRecord,
  requestFingerprint,
  untraced,
} from '@crm/kit';
import { contacts } from '@crm/people-contract';
import type { ActivitiesServiceDefinition, MessagingServiceDefinition, PeopleServiceDefinition, QueueSendItem, QueueSendRequest } from '@crm/proto';
import { isTemplateEmail, type TaskNodeType } from '../graph';
import type { StepEffects } from './step';

export interface StepPeers {
  messaging: ServiceClient<MessagingServiceDefinition>;
  activities: ServiceClient<ActivitiesServiceDefinition>;
  people: ServiceClient<PeopleServiceDefinition>;
}

/** A task node's channel, as activities names it (a task's `type` and `suggested_action`). */
const TASK_CHANNEL: { readonly [T in TaskNodeType]: string } = {
  task: 'other',
  call: 'call',
  chat_message: 'chat_app',
  professional_network: 'professional_network',
};

/** How long one side effect may take before the step is retried later. */
const CALL_DEADLINE_MS = 15_000;

/**
 * Task and contact calls of a round at once: a round's steps all run together (its emails go as
 * one batch), and these calls, one per step, queue here rather than at the peer's connection pool.
 */
const PEER_CALLS_AT_ONCE = 16;

/** Sends per QueueSends call (messaging takes up to 500). */
const SENDS_PER_CALL = 200;

/**
 * A round's email steps queued together: the steps that ask in the same turn of the event loop
 * (the round's lanes reach their email steps together) go to messaging as one QueueSends call,
 * each item with the key, fingerprint and trace its own QueueSend call would carry, and each step
 * gets its own answer or error. The call itself is untraced: it serves many traces, and each item
 * carries its step's.
 */
function sendBatcher(messaging: ServiceClient<MessagingServiceDefinition>): (send: QueueSendRequest, key: string) => Promise<string> {
  type Waiting = { item: QueueSendItem; resolve: (id: string) => void; reject: (error: unknown) => void };
  let pending: Waiting[] = [];

  async function dispatch(batch: Waiting[]): Promise<void> {
    try {
      const { results } = await untraced(() =>
        messaging.call('QueueSends', { origin: messaging.origin ?? '', items: batch.map((w) => w.item) }, { deadlineMs: CALL_DEADLINE_MS }),
      );
      batch.forEach((waiting, i) => {
        const result = results[i];
        if (result?.sent) waiting.resolve(result.sent.id);
        else waiting.reject((result?.error && errorFromPayload(result.error)) || new CrmError('internal', 'messaging gave no answer for this send'));
      });
    } catch (error) {
      // The call failed as a whole (messaging down, or without QueueSends during an upgrade): no
      // step's own fault, so each is retried with backoff rather than failed.
      const cause = error instanceof CrmError ? error.message : String(error);
      for (const waiting of batch) waiting.reject(new CrmError('unavailable', `messaging did not take the batch of sends: ${cause}`));
    }
  }

  function flush(): void {
    const all = pending;
    pending = [];
    for (let i = 0; i < all.length; i += SENDS_PER_CALL) void dispatch(all.slice(i, i + SENDS_PER_CALL));
  }

  return (send, key) =>
    new Promise<string>((resolve, reject) => {
      if (!pending.length) setImmediate(flush);
      pending.push({
        item: { send, idempotency_key: key, fingerprint: requestFingerprint('QueueSend', send), trace: captureTraceContext() },
        resolve,
        reject,
      });
    });
}

/**
 * The engine's side effects over gRPC: messaging queues a step's email (threaded to the
 * enrollment's previous one, from the flow's owner), activities creates a step's task (assigned to
 * the flow's owner), people answers a branch's contact test. Every write carries the step's
 * idempotency key. Email signals are read in the round's transaction.
 */
export function createStepEffects(peers: StepPeers): (tx: SqlQueryable) => StepEffects {
  return (tx) => {
    const queueSend = sendBatcher(peers.messaging);
    const limit = createLimiter(PEER_CALLS_AT_ONCE);
    return {
      async queueSend(enrollment, flow, node, key) {
        const ownerId = flow.ownerId;
        const nodeId = flow.idByKey.get(node.key)!;
        const config = node.config;
        const sentEmailId = await queueSend(
          {
            workspace_id: enrollment.workspaceId,
            contact_id: enrollment.contactId,
            ...(ownerId ? { owner_id: ownerId } : {}),
            ...(isTemplateEmail(config)
              ? { template_id: config.template_id }
              : {
                  // No subject: a reply in the thread, under the previous email's subject.
                  ...(config.subject !== undefined ? { subject: config.subject } : {}),
                  body: config.body,
                  ...(config.body_text ? { body_text: config.body_text } : {}),
                }),
            flow_id: enrollment.flowId,
            flow_node_id: nodeId,
            flow_enrollment_id: enrollment.id,
            ...(enrollment.lastSentEmailId ? { reply_to_sent_email_id: enrollment.lastSentEmailId } : {}),
          },
          key,
        );
        return { sentEmailId };
      },
      async createTask(enrollment, flow, node, key, dueAt) {
        const ownerId = flow.ownerId;
        const config = node.config;
        let replayed = false;
        const task = await limit(() =>
          peers.activities.call(
            'CreateEnrollmentTask',
            {
              workspace_id: enrollment.workspaceId,
              flow_enrollment_id: enrollment.id,
              title: config.title,
              ...(config.description ? { description: config.description } : {}),
              type: TASK_CHANNEL[node.type],
              suggested_action: TASK_CHANNEL[node.type],
              ...(config.priority !== undefined ? { priority: config.priority } : {}),
              ...(dueAt ? { due_at: dueAt.toISOString() } : {}),
              ...(ownerId ? { assignee_id: ownerId } : {}),
              contact_id: enrollment.contactId,
            },
            {
              idempotencyKey: key,
              deadlineMs: CALL_DEADLINE_MS,
              onResponseMetadata: (metadata) => {
                replayed = metadata.get(IDEMPOTENT_REPLAYED_METADATA)[0] === 'true';
              },
            },
          ),
        );
        if (!replayed) return { taskId: task.id, completed: false };
        // A repeat after a crash answers the task as it was created: its completion may have come
        // and gone while no enrollment waited for it, so ask how it stands now.
        try {
          const now = await limit(() =>
            peers.activities.call('GetTask', { workspace_id: enrollment.workspaceId, id: task.id }, { deadlineMs: CALL_DEADLINE_MS }),
          );
          return { taskId: task.id, completed: now.status === 'completed' };
        } catch (error) {
          // Deleted since: nobody will complete it, so the step is over.
          if (error instanceof CrmError && error.code === 'not_found') return { taskId: task.id, completed: true };
          throw error;
        }
      },
      async contact(enrollment) {
        try {
          const message = await limit(() =>
            peers.people.call('GetContact', { workspace_id: enrollment.workspaceId, id: enrollment.contactId }, { deadlineMs: CALL_DEADLINE_MS }),
          );
          return messageToRecord(contacts, message);
        } catch (error) {
          if (error instanceof CrmError && error.code === 'not_found') return undefined;
          throw error;
        }
      },
      async hasSignal(enrollment, sentEmailId, kind) {
        const { rows } = await tx.query(
          `SELECT 1 FROM enrollment_signals WHERE workspace_id = $1::uuid AND enrollment_id = $2::uuid AND sent_email_id = $3::uuid AND kind = $4`,
          [enrollment.workspaceId, enrollment.id, sentEmailId, kind],
        );
        return rows.length > 0;
      },
    };
  };
}
