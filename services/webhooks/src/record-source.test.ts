import * as grpc from '@grpc/grpc-js';
import {
  type EventBus,
  type SqlClient,
  type Subscription,
  type ServiceClient,
  CrmError,
  createCursorCodec,
  createMemoryBus,
  createServiceClient,
  messageToRecord,
  newId,
  recordToMessage,
  runMigrations,
} from '@crm/kit';
import { sqlBackends } from '@crm/kit/testing';
import { activitiesApi } from '@crm/activities-contract';
import { flowsApi } from '@crm/flows-contract';
import { messagingApi } from '@crm/messaging-contract';
import { contacts, peopleApi } from '@crm/people-contract';
import { ActivitiesEvents, FlowsEvents, PeopleEvents } from '@crm/proto';
import { WEBHOOK_EVENT_TYPES } from '@crm/webhooks-contract';
import { randomBytes } from 'node:crypto';
import { type RecordSource, createEnqueue, peerRecordSource, subscribeEventStream } from './event-stream.consumer';
import { migrations } from './migrations';
import { SOURCE_RESOURCES, SOURCE_SUBJECTS, publicEvent } from './public-events';
import { createWebhooksService } from './webhooks.service';

jest.setTimeout(30_000);

const apis = { people: peopleApi, messaging: messagingApi, flows: flowsApi, activities: activitiesApi } as const;

/** A stand-in people service answering GetContact from a map, NOT_FOUND otherwise. */
async function fakePeople(records: Map<string, Record<string, unknown>>) {
  const server = new grpc.Server();
  const calls: { workspace_id: string; id: string }[] = [];
  server.addService(peopleApi.service().service, {
    GetContact: (call: grpc.ServerUnaryCall<{ workspace_id: string; id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      calls.push({ workspace_id: call.request.workspace_id, id: call.request.id });
      const record = records.get(`${call.request.workspace_id}/${call.request.id}`);
      if (!record) callback({ code: grpc.status.NOT_FOUND, details: 'contact not found' });
      else callback(null, recordToMessage(contacts, record as never));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, calls, stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

function clientsAt(peopleAddress: string) {
  // Only people answers in these tests; the others point at a closed port.
  const nowhere = '127.0.0.1:1';
  return {
    people: createServiceClient(peopleApi.service(), peopleAddress),
    messaging: createServiceClient(messagingApi.service(), nowhere),
    flows: createServiceClient(flowsApi.service(), nowhere),
    activities: createServiceClient(activitiesApi.service(), nowhere),
  } as const;
}

const closeAll = (clients: Record<string, ServiceClient<unknown>>) => Object.values(clients).forEach((c) => c.close());

const contactRecord = (id: string) => ({
  id,
  svc_uid: 'crm-42',
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  created_at: '2026-03-02T09:30:00.000Z',
  updated_at: '2026-03-02T09:31:00.000Z',
});

test('every resource a body is read from is routed, with a Get, by its owning context', () => {
  for (const { context, resource } of SOURCE_RESOURCES) {
    const route = apis[context].routes.find((r: { spec: { name: string } }) => r.spec.name === resource);
    expect([context, resource, route?.operations.includes('get')]).toEqual([context, resource, true]);
  }
});

test('every public event type is made of some internal event: none is promised and never delivered', () => {
  const id = newId();
  // Every fact an internal event names its record by; an event naming it otherwise makes no public
  // event here, and its type shows up as missing.
  const facts = Object.fromEntries(
    ['id', 'sent_email_id', 'email_event_id', 'touchpoint_id', 'enrollment_id', 'task_id', 'call_log_id', 'meeting_id'].map((field) => [field, id]),
  );
  const made = new Set(SOURCE_SUBJECTS.map((type) => publicEvent({ type, occurred_at: '', data: facts })?.type));
  expect(WEBHOOK_EVENT_TYPES.filter((type) => !made.has(type))).toEqual([]);
});

test("a contact enrolled (flows' EnrollmentCreated) is enrollment.created, its data the enrollment read from flows", () => {
  const enrollmentId = newId();
  const at = '2026-03-02T09:30:00.000Z';
  const event = { type: FlowsEvents.EnrollmentCreated, occurred_at: at, data: { enrollment_id: enrollmentId, flow_id: newId(), contact_id: newId(), occurred_at: at } };
  expect(SOURCE_SUBJECTS).toContain(FlowsEvents.EnrollmentCreated);
  expect(publicEvent(event)).toEqual({ type: 'enrollment.created', timestamp: at, context: 'flows', resource: 'enrollments', id: enrollmentId });
});

describe('peerRecordSource', () => {
  const ws = newId();
  const id = newId();
  let people: Awaited<ReturnType<typeof fakePeople>>;
  let clients: ReturnType<typeof clientsAt>;
  beforeAll(async () => {
    people = await fakePeople(new Map([[`${ws}/${id}`, contactRecord(id)]]));
    clients = clientsAt(people.address);
  });
  afterAll(async () => {
    closeAll(clients);
    await people.stop();
  });

  it('reads the record from its owning context, as the gateway returns it', async () => {
    const read = peerRecordSource(apis, clients);
    const data = await read(ws, { type: 'contact.updated', timestamp: '', context: 'people', resource: 'contacts', id });
    expect(data).toEqual(messageToRecord(contacts, recordToMessage(contacts, contactRecord(id) as never)));
    expect(data).toMatchObject({ id, svc_uid: 'crm-42', first_name: 'Ada', email: 'ada@example.com', updated_at: '2026-03-02T09:31:00.000Z' });
    expect(people.calls).toContainEqual({ workspace_id: ws, id });
  });

  it('gives {id, deleted: true} for a record that is gone by the time the event is consumed', async () => {
    const read = peerRecordSource(apis, clients);
    const missing = newId();
    expect(await read(ws, { type: 'contact.updated', timestamp: '', context: 'people', resource: 'contacts', id: missing })).toEqual({ id: missing, deleted: true });
  });

  it('throws when the owning context does not answer', async () => {
    const read = peerRecordSource(apis, clients);
    const failed = read(ws, { type: 'task.created', timestamp: '', context: 'activities', resource: 'tasks', id: newId() });
    await expect(failed).rejects.toBeInstanceOf(CrmError);
    await expect(failed).rejects.not.toMatchObject({ code: 'not_found' });
  });
});

describe.each(sqlBackends())('bodies read from the owning context on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await backend.open('wh_records'));
    await runMigrations(db, migrations);
  });
  afterAll(() => drop());

  const endpointIn = async (ws: string) => {
    const service = createWebhooksService({ db, cursors: createCursorCodec('webhooks-test-cursor-secret'), secretsKey: randomBytes(32), egress: { allowHttp: false, allowPrivate: false } });
    return service.endpoints.create({ workspaceId: ws }, { url: 'https://a.example.com/hook' });
  };
  const payloads = async (ws: string) =>
    (await db.query<{ payload: { type: string; data: Record<string, unknown> } }>(`SELECT payload FROM webhook_deliveries WHERE workspace_id = $1::uuid`, [ws])).rows.map((r) => r.payload);

  it('stores the record as it is when the event is consumed; a deletion is {id, svc_uid, deleted: true}, read from nowhere', async () => {
    const ws = newId();
    const id = newId();
    await endpointIn(ws);
    const people = await fakePeople(new Map([[`${ws}/${id}`, contactRecord(id)]]));
    const clients = clientsAt(people.address);
    try {
      const enqueue = createEnqueue(db, peerRecordSource(apis, clients));
      const at = new Date().toISOString();
      expect(await enqueue({ id: newId(), type: PeopleEvents.ContactUpdated, workspace_id: ws, occurred_at: at, data: { id, changed: ['email'] } })).toBe(1);
      const calls = people.calls.length;
      expect(await enqueue({ id: newId(), type: PeopleEvents.ContactDeleted, workspace_id: ws, occurred_at: at, data: { id, svc_uid: 'crm-42' } })).toBe(1);
      expect(people.calls).toHaveLength(calls);
      const stored = await payloads(ws);
      expect(stored.find((p) => p.type === 'contact.updated')).toEqual({ type: 'contact.updated', timestamp: at, data: expect.objectContaining({ id, svc_uid: 'crm-42', first_name: 'Ada', email: 'ada@example.com' }) });
      expect(stored.find((p) => p.type === 'contact.deleted')).toEqual({ type: 'contact.deleted', timestamp: at, data: { id, svc_uid: 'crm-42', deleted: true } });
    } finally {
      closeAll(clients);
      await people.stop();
    }
  });

  it('reads nothing when no endpoint takes the event', async () => {
    const reads: string[] = [];
    const enqueue = createEnqueue(db, async (_ws, event) => (reads.push(event.id), { id: event.id }));
    expect(await enqueue({ id: newId(), type: PeopleEvents.ContactCreated, workspace_id: newId(), occurred_at: new Date().toISOString(), data: { id: newId() } })).toBe(0);
    expect(reads).toEqual([]);
  });

  it('does not acknowledge an event whose record cannot be read: it comes again and is delivered then', async () => {
    const ws = newId();
    await endpointIn(ws);
    let down = true;
    let reads = 0;
    const records: RecordSource = async (_ws, event) => {
      reads++;
      if (down) throw new CrmError('unavailable', 'activities is not answering');
      return { id: event.id, status: 'open' };
    };
    // The memory bus redelivers within publish(), then leaves the next try to the publisher (the
    // outbox relay): an event its handler did not finish is not settled, so a later publish
    // delivers it again, where a settled one would be skipped.
    const bus: EventBus = createMemoryBus({ retryDelayMs: () => 10, attemptsPerPublish: 2, onError: () => {} });
    let consumer: Subscription | undefined;
    try {
      consumer = await subscribeEventStream(bus, db, records);
      const taskId = newId();
      const event = { id: newId(), type: ActivitiesEvents.TaskCreated, workspace_id: ws, occurred_at: new Date().toISOString(), data: { task_id: taskId, status: 'open' } };
      await expect(bus.publish(event)).rejects.toThrow('activities is not answering');
      expect(reads).toBe(2);
      expect(await payloads(ws)).toEqual([]);
      down = false;
      await bus.publish(event);
      expect(reads).toBe(3);
      expect(await payloads(ws)).toEqual([{ type: 'task.created', timestamp: event.occurred_at, data: { id: taskId, status: 'open' } }]);
    } finally {
      await consumer?.stop();
      await bus.close();
    }
  });
});
