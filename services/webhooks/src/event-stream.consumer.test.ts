import { randomBytes } from 'node:crypto';
import { type EventBus, type SqlClient, type Subscription, createCursorCodec, createMemoryBus, createNatsBus, newId, runMigrations } from '@crm/kit';
import { TEST_NATS_URL, expectEventually, serviceAvailable, sqlBackends } from '@crm/kit/testing';
import { ActivitiesEvents, PeopleEvents } from '@crm/proto';
import { eventStream, subscribeEventStream } from './event-stream.consumer';
import { migrations } from './migrations';
import { createWebhooksService } from './webhooks.service';

jest.setTimeout(30_000);

/**
 * Deletes the suite's durable on the shared `CRM` stream. A durable left by an earlier run (one
 * killed before its afterAll) would resume where it stopped and read every event published since,
 * other suites' and benchmarks' included, before this run's: it goes first, and again at the end.
 */
async function deleteDurable(schema: string): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    await (await jetstreamManager(nc)).consumers.delete('CRM', eventStream.durableFor(schema)).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

const buses: { name: string; open(): Promise<EventBus> }[] = [
  { name: 'memory bus', open: async () => createMemoryBus() },
  ...(serviceAvailable('NATS', TEST_NATS_URL)
    ? [{ name: 'NATS JetStream', open: () => createNatsBus({ servers: TEST_NATS_URL, name: 'webhooks-test', newDurablesFrom: new Date() }) }]
    : []),
];

describe.each(sqlBackends())('the event stream consumed on $name', (backend) => {
  describe.each(buses)('over the $name', (busCase) => {
    let bus: EventBus;
    let db: SqlClient;
    let drop: () => Promise<void>;
    let consumer: Subscription;
    let woken = 0;

    beforeAll(async () => {
      bus = await busCase.open();
      ({ db, drop } = await backend.open(`wh_consumer_${busCase.name === 'memory bus' ? 'm' : 'n'}`));
      if (busCase.name === 'NATS JetStream') await deleteDurable(db.schema);
      await runMigrations(db, migrations);
      // Stands in for the owning contexts (record-source.test.ts reads over gRPC).
      consumer = await subscribeEventStream(bus, db, async (_ws, event) => ({ id: event.id, email: 'ada@example.com' }), () => woken++);
    });
    afterAll(async () => {
      await consumer.stop();
      await bus.close();
      if (busCase.name === 'NATS JetStream') await deleteDurable(db.schema);
      await drop();
    });

    it("makes one delivery per matching enabled endpoint of the event's workspace, once however often the event comes", async () => {
      const service = createWebhooksService({ db, cursors: createCursorCodec('webhooks-test-cursor-secret'), secretsKey: randomBytes(32), egress: { allowHttp: false, allowPrivate: false } });
      const ws = newId();
      const other = newId();
      const all = await service.endpoints.create({ workspaceId: ws }, { url: 'https://a.example.com/hook' });
      const tasksOnly = await service.endpoints.create({ workspaceId: ws }, { url: 'https://b.example.com/hook', event_types: ['task.created'] });
      await service.endpoints.create({ workspaceId: ws }, { url: 'https://c.example.com/hook', enabled: false });
      const foreign = await service.endpoints.create({ workspaceId: other }, { url: 'https://d.example.com/hook' });
      const contact = { id: newId(), type: PeopleEvents.ContactUpdated, workspace_id: ws, occurred_at: new Date().toISOString(), data: { id: newId(), changed: ['email'] } };
      const task = { id: newId(), type: ActivitiesEvents.TaskCreated, workspace_id: ws, occurred_at: new Date().toISOString(), data: { task_id: newId(), status: 'open', created_at: new Date().toISOString() } };
      await bus.publish(contact);
      await bus.publish(contact);
      await bus.publish(task);
      await expectEventually(async () => {
        const { rows } = await db.query<{ endpoint_id: string; event_type: string; payload: { data: Record<string, unknown> } }>(
          `SELECT endpoint_id, event_type, payload FROM webhook_deliveries WHERE workspace_id = $1::uuid ORDER BY event_type, endpoint_id`,
          [ws],
        );
        expect(rows.map((r) => [r.event_type, r.endpoint_id]).sort()).toEqual(
          [
            ['contact.updated', all.id],
            ['task.created', all.id],
            ['task.created', tasksOnly.id],
          ].sort(),
        );
        expect(rows.find((r) => r.event_type === 'contact.updated')!.payload.data).toEqual({ id: contact.data.id, email: 'ada@example.com' });
      });
      const { rows } = await db.query(`SELECT 1 FROM webhook_deliveries WHERE workspace_id = $1::uuid AND endpoint_id = $2::uuid`, [other, foreign.id]);
      expect(rows).toEqual([]);
      expect(woken).toBeGreaterThan(0);
    });
  });
});
