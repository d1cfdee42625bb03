import {
  CrmError,
  type RunningGrpcServer,
  createLogger,
  createServiceClient,
  errorPayload,
  implement,
  requestFingerprint,
  startGrpcServer,
} from '@crm/kit';
import { type MessagingServiceDefinition, type QueueSendsRequest__Output, loadActivities, loadMessaging, loadPeople } from '@crm/proto';
import { loadFlow } from './runnable-flow';
import { type EnrollmentState, newEnrollmentState } from './step';
import { createStepEffects } from './step-effects';

/**
 * How the engine's email steps reach messaging: the steps of a round that ask together go as one
 * QueueSends call, each with the key, fingerprint and trace of its own QueueSend call, and each
 * gets its own answer. Messaging here is a gRPC server answering QueueSends from a script, so the
 * calls it receives can be read; the flows service tests run the engine on the real messaging.
 */

const log = createLogger('test', 'silent');
const WS = '0190a0e0-0000-7000-8000-000000000001';
const flow = loadFlow({
  workspace_id: WS,
  id: '0190a0e0-0000-7000-8000-0000000000f1',
  name: 'Flow',
  status: 'active',
  owner_id: null,
  schedule: null,
  nodes: [{ id: '0190a0e0-0000-7000-8000-0000000000a1', key: 'a', type: 'email', label: null, config: { subject: 'Hi', body: '<p>Hi</p>' } }],
  edges: [],
  updated_at: new Date(),
});
const node = flow.graph.nodes[0]! as Parameters<ReturnType<ReturnType<typeof createStepEffects>>['queueSend']>[2];
const enrollment = (n: number): EnrollmentState => ({
  ...newEnrollmentState({
    workspaceId: WS,
    id: `0190a0e0-0000-7000-8000-${String(n).padStart(12, '0')}`,
    flowId: flow.id,
    contactId: `0190a0e0-0000-7000-9000-${String(n).padStart(12, '0')}`,
  }),
  currentNodeId: '0190a0e0-0000-7000-8000-0000000000a1',
});

describe('the engine queues a round’s emails in batches', () => {
  let server: RunningGrpcServer;
  let answer: (request: QueueSendsRequest__Output) => Promise<unknown>;
  const calls: QueueSendsRequest__Output[] = [];
  let effects: ReturnType<typeof createStepEffects>;
  const clients: { close(): void }[] = [];

  beforeAll(async () => {
    server = await startGrpcServer('127.0.0.1:0', [
      {
        name: 'crm.messaging.v1.MessagingService',
        definition: loadMessaging().crm.messaging.v1.MessagingService.service,
        // QueueSends only: any other method answers UNIMPLEMENTED.
        implementation: implement<Pick<MessagingServiceDefinition, 'QueueSends'>>(
          {
            QueueSends: async (request) => {
              calls.push(request);
              return (await answer(request)) as never;
            },
          },
          log,
        ),
      },
    ]);
    const messaging = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, server.address, { origin: 'flows' });
    const activities = createServiceClient(loadActivities().crm.activities.v1.ActivitiesService, server.address, { origin: 'flows' });
    const people = createServiceClient(loadPeople().crm.people.v1.PeopleService, server.address, { origin: 'flows' });
    clients.push(messaging, activities, people);
    effects = createStepEffects({ messaging, activities, people });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await server.shutdown();
  });
  beforeEach(() => {
    calls.length = 0;
  });

  test('steps that ask together go as one call; each gets its own send or its own error', async () => {
    answer = async (request) => ({
      results: request.items.map((item, i) =>
        i % 3 === 2
          ? { error: errorPayload(new CrmError('send_quota_exhausted', 'quota used up', { retry_after_seconds: 42 }), log, 'test') }
          : { sent: { id: `0190a0e0-0000-7000-a000-${String(i).padStart(12, '0')}`, contact_id: item.send!.contact_id } },
      ),
    });
    const round = effects({ query: async () => ({ rows: [], rowCount: 0 }) });
    const settled = await Promise.allSettled(Array.from({ length: 7 }, (_, n) => round.queueSend(enrollment(n), flow, node, `key-${n}`)));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.origin).toBe('flows');
    expect(calls[0]!.items.map((item) => item.idempotency_key)).toEqual(Array.from({ length: 7 }, (_, n) => `key-${n}`));
    // The fingerprint its own QueueSend call would have carried, so a repeat of either kind matches.
    calls[0]!.items.forEach((item, n) => {
      const send = {
        workspace_id: WS,
        contact_id: enrollment(n).contactId,
        subject: 'Hi',
        body: '<p>Hi</p>',
        flow_id: flow.id,
        flow_node_id: '0190a0e0-0000-7000-8000-0000000000a1',
        flow_enrollment_id: enrollment(n).id,
      };
      expect(item.send).toMatchObject(send);
      expect(item.fingerprint).toBe(requestFingerprint('QueueSend', send));
    });
    settled.forEach((outcome, n) => {
      if (n % 3 === 2) {
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'send_quota_exhausted', details: { retry_after_seconds: 42 } } });
      } else {
        expect(outcome).toEqual({ status: 'fulfilled', value: { sentEmailId: `0190a0e0-0000-7000-a000-${String(n).padStart(12, '0')}` } });
      }
    });
  });

  test('a call that fails as a whole, or a messaging without QueueSends, is a transient failure of each step', async () => {
    answer = async () => {
      throw new CrmError('invalid_request', 'a bug in the batch');
    };
    const round = effects({ query: async () => ({ rows: [], rowCount: 0 }) });
    const failed = await Promise.allSettled([round.queueSend(enrollment(1), flow, node, 'k1'), round.queueSend(enrollment(2), flow, node, 'k2')]);
    expect(calls).toHaveLength(1);
    for (const outcome of failed) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'unavailable' } });

    // Without the method (an older messaging during an upgrade): UNIMPLEMENTED, retried, never failed.
    const older = await startGrpcServer('127.0.0.1:0', [
      { name: 'crm.messaging.v1.MessagingService', definition: loadMessaging().crm.messaging.v1.MessagingService.service, implementation: {} },
    ]);
    const messaging = createServiceClient(loadMessaging().crm.messaging.v1.MessagingService, older.address, { origin: 'flows' });
    try {
      const round2 = createStepEffects({ messaging, activities: clients[1] as never, people: clients[2] as never })({ query: async () => ({ rows: [], rowCount: 0 }) });
      await expect(round2.queueSend(enrollment(3), flow, node, 'k3')).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      messaging.close();
      await older.shutdown();
    }
  });
});
