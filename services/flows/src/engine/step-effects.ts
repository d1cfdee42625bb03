import { CrmError, IDEMPOTENT_REPLAYED_METADATA, type ServiceClient, type SqlQueryable, messageToRecord } from '@crm/kit';
import { contacts } from '@crm/people-contract';
import type { ActivitiesServiceDefinition, MessagingServiceDefinition, PeopleServiceDefinition } from '@crm/proto';
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
 * The engine's side effects over gRPC: messaging queues a step's email (threaded to the
 * enrollment's previous one, from the flow's owner), activities creates a step's task (assigned to
 * the flow's owner), people answers a branch's contact test. Every write carries the step's
 * idempotency key. Email signals are read in the round's transaction.
 */
export function createStepEffects(peers: StepPeers): (tx: SqlQueryable) => StepEffects {
  return (tx) => {
    return {
      async queueSend(enrollment, flow, node, key) {
        const ownerId = flow.ownerId;
        const nodeId = flow.idByKey.get(node.key)!;
        const config = node.config;
        const sent = await peers.messaging.call(
          'QueueSend',
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
          { idempotencyKey: key, deadlineMs: CALL_DEADLINE_MS },
        );
        return { sentEmailId: sent.id };
      },
      async createTask(enrollment, flow, node, key, dueAt) {
        const ownerId = flow.ownerId;
        const config = node.config;
        let replayed = false;
        const task = await peers.activities.call(
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
        );
        if (!replayed) return { taskId: task.id, completed: false };
        // A repeat after a crash answers the task as it was created: its completion may have come
        // and gone while no enrollment waited for it, so ask how it stands now.
        try {
          const now = await peers.activities.call('GetTask', { workspace_id: enrollment.workspaceId, id: task.id }, { deadlineMs: CALL_DEADLINE_MS });
          return { taskId: task.id, completed: now.status === 'completed' };
        } catch (error) {
          // Deleted since: nobody will complete it, so the step is over.
          if (error instanceof CrmError && error.code === 'not_found') return { taskId: task.id, completed: true };
          throw error;
        }
      },
      async contact(enrollment) {
        try {
          const message = await peers.people.call('GetContact', { workspace_id: enrollment.workspaceId, id: enrollment.contactId }, { deadlineMs: CALL_DEADLINE_MS });
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
