import * as grpc from '@grpc/grpc-js';
import { loadPeople } from '@crm/proto';
import { implement, startGrpcServer, unaryWithMetadata } from './grpc';
import {
  IDEMPOTENCY_FINGERPRINT_METADATA,
  IDEMPOTENCY_KEY_METADATA,
  IDEMPOTENCY_MIGRATION_SQL,
  IDEMPOTENT_REPLAYED_METADATA,
  idempotent,
  pruneIdempotencyKeys,
} from './idempotency';
import { newId } from './ids';
import { createLogger } from './logger';
import type { SqlClient } from './sql';
import { sqlBackends } from './testing/sql-backends';

describe.each(sqlBackends())('Idempotency-Key on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  let server: Awaited<ReturnType<typeof startGrpcServer>>;
  let client: grpc.Client;
  const workspace = newId();

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_idem'));
    await db.exec(IDEMPOTENCY_MIGRATION_SQL);
    await db.exec('CREATE TABLE things (id uuid PRIMARY KEY, label text)');
    // A write handler as services have them: the change and the key in one transaction.
    server = await startGrpcServer('127.0.0.1:0', [
      {
        name: 'crm.people.v1.PeopleService',
        definition: loadPeople().crm.people.v1.PeopleService.service,
        implementation: implement(
          {
            CreateContact: async (request: { fields?: { fields?: { label?: { stringValue?: string } } } }) =>
              db.transaction((tx) =>
                idempotent(tx, workspace, async () => {
                  const id = newId();
                  await tx.query('INSERT INTO things (id, label) VALUES ($1, $2)', [id, request.fields?.fields?.label?.stringValue ?? '']);
                  return { id, created_at: 'x', updated_at: 'x' };
                }),
              ),
          } as never,
          createLogger('test', 'silent'),
        ),
      },
    ]);
    client = new (loadPeople().crm.people.v1.PeopleService)(server.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
    await drop();
  });

  const create = (key: string | undefined, label: string, fingerprint = label) => {
    const metadata = new grpc.Metadata();
    if (key) {
      metadata.set(IDEMPOTENCY_KEY_METADATA, key);
      metadata.set(IDEMPOTENCY_FINGERPRINT_METADATA, fingerprint);
    }
    return unaryWithMetadata<unknown, { id: string }>(client, 'CreateContact', { workspace_id: workspace, fields: { fields: { label: { stringValue: label } } } }, { metadata });
  };
  const count = async (label: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM things WHERE label = $1', [label])).rows[0]!.n;

  test('a repeated key replays the first answer, marked in the response headers, and applies nothing', async () => {
    const first = await create('k1', 'alpha');
    expect(first.metadata.get(IDEMPOTENT_REPLAYED_METADATA)).toEqual([]);
    const again = await create('k1', 'alpha');
    expect(again.response.id).toBe(first.response.id);
    expect(again.metadata.get(IDEMPOTENT_REPLAYED_METADATA)).toEqual(['true']);
    expect(await count('alpha')).toBe(1);
  });

  test('concurrent duplicates apply once', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => create('k2', 'beta')));
    expect(new Set(answers.map((a) => a.response.id)).size).toBe(1);
    expect(await count('beta')).toBe(1);
  });

  test('the same key with a different request is refused; no key means no protection', async () => {
    await create('k3', 'gamma');
    await expect(create('k3', 'gamma', 'another fingerprint')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    await create(undefined, 'delta');
    await create(undefined, 'delta');
    expect(await count('delta')).toBe(2);
  });

  test('expired records are pruned', async () => {
    await create('k4', 'epsilon');
    expect(await pruneIdempotencyKeys(db, -1_000)).toBeGreaterThan(0);
    await create('k4', 'epsilon');
    expect(await count('epsilon')).toBe(2);
  });
});
