import * as grpc from '@grpc/grpc-js';
import { loadPeople } from '@crm/proto';
import { assertTimeLeft, remainingMs, withDeadline } from './deadline';
import { implement, startGrpcServer, unary } from './grpc';
import { createLogger } from './logger';
import { createPgliteClient } from './sql';
import { expectEventually } from './testing/expect-eventually';

describe('deadlines', () => {
  test('the active deadline is visible to async work and refuses work after it passes', async () => {
    expect(remainingMs()).toBeUndefined();
    await withDeadline(Date.now() + 1_000, async () => {
      await Promise.resolve();
      expect(remainingMs()).toBeGreaterThan(900);
    });
    await expect(withDeadline(Date.now() - 1, async () => assertTimeLeft())).rejects.toMatchObject({ code: 'timeout' });
  });

  test("a gRPC handler runs under the caller's deadline, so no statement starts after it", async () => {
    const db = await createPgliteClient({ schema: 'deadline_test' });
    await db.query('CREATE TABLE hits (n int)');
    const log = createLogger('test', 'silent');
    let finished: unknown;
    const server = await startGrpcServer('127.0.0.1:0', [
      {
        name: 'crm.people.v1.PeopleService',
        definition: loadPeople().crm.people.v1.PeopleService.service,
        implementation: implement(
          {
            GetContact: async () => {
              await new Promise((resolve) => setTimeout(resolve, 300));
              try {
                await db.query('INSERT INTO hits VALUES (1)');
                finished = 'inserted';
              } catch (error) {
                finished = error;
              }
              return {};
            },
          } as never,
          log,
        ),
      },
    ]);
    const client = new (loadPeople().crm.people.v1.PeopleService)(server.address, grpc.credentials.createInsecure());
    try {
      await expect(unary(client, 'GetContact', { workspace_id: 'x', id: 'y' }, { deadlineMs: 100 })).rejects.toMatchObject({ code: 'timeout' });
      await expectEventually(() => expect(finished).toMatchObject({ code: 'timeout' }));
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM hits')).rows[0]!.n).toBe(0);
    } finally {
      client.close();
      await server.shutdown();
      await db.close();
    }
  });
});
