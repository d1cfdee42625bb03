import { type PeopleServiceDefinition, loadPeople } from '@crm/proto';
import { defineContextApi } from './context-api';
import { createMemoryBus } from './events';
import { type RunningGrpcServer, bindService, startGrpcServer } from './grpc';
import { newId } from './ids';
import { createLogger } from './logger';
import { startSqlService } from './sql-service';
import { createPgliteClient } from './sql';

const log = createLogger('test', 'silent');
const peopleApi = defineContextApi({ name: 'people', service: () => loadPeople().crm.people.v1.PeopleService, routes: [] });

describe('a service and its peers', () => {
  let peer: RunningGrpcServer;
  const seen: { deadlineMs: number; origin: string | undefined }[] = [];

  beforeAll(async () => {
    // A stand-in people service that reports what each call carried.
    const handlers = Object.fromEntries(
      Object.keys(loadPeople().crm.people.v1.PeopleService.service).map((name) => [
        name,
        async (_request: unknown, call: { getDeadline(): Date | number; metadata: { get(k: string): unknown[] } }) => {
          const deadline = call.getDeadline();
          seen.push({ deadlineMs: (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now(), origin: call.metadata.get('crm-idempotency-origin')[0] as string | undefined });
          return { id: newId(), created_at: 'x', updated_at: 'x' };
        },
      ]),
    ) as never;
    peer = await startGrpcServer('127.0.0.1:0', [bindService<PeopleServiceDefinition>(loadPeople().crm.people.v1.PeopleService.service, handlers, log)]);
  });
  afterAll(() => peer.shutdown());

  test('peers are typed clients at their address, calls carry the caller deadline and the service as origin', async () => {
    const db = await createPgliteClient({ schema: 'peers_test' });
    const bus = createMemoryBus();
    const asked: string[] = [];
    const running = await startSqlService(
      {
        name: 'flows',
        migrations: [],
        peers: { people: peopleApi },
        create: ({ peers }) => ({ peers }),
        bindings: () => [],
      },
      { db, bus, cursorSecret: 'x'.repeat(32), grpcAddr: '127.0.0.1:0', log, config: {}, peerAddress: (name) => (asked.push(name), peer.address) },
    );
    try {
      expect(asked).toEqual(['people']);
      const { withDeadline } = await import('./deadline');
      await withDeadline(Date.now() + 1_500, () =>
        running.service.peers.people.call('CreateContact', { workspace_id: newId(), fields: { fields: {} } }, { idempotencyKey: 'k-1' }),
      );
      expect(seen.at(-1)!.deadlineMs).toBeLessThanOrEqual(1_500);
      expect(seen.at(-1)!.deadlineMs).toBeGreaterThan(500);
      expect(seen.at(-1)!.origin).toBe('flows');
    } finally {
      await running.stop();
      await bus.close();
      await db.close();
    }
  });
});
