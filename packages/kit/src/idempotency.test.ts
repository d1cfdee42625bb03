import * as grpc from '@grpc/grpc-js';
import { type PeopleServiceDefinition, loadPeople } from '@crm/proto';
import { implement, startGrpcServer, unaryWithMetadata } from './grpc';
import {
  IDEMPOTENCY_FINGERPRINT_METADATA,
  IDEMPOTENCY_KEY_METADATA,
  IDEMPOTENCY_MIGRATION_SQL,
  IDEMPOTENT_REPLAYED_METADATA,
  idempotent,
  pruneIdempotencyKeys,
  withIdempotencyKey,
} from './idempotency';
import { sampleContacts } from './testing/sample-resource';
import { createTransactionRunner } from './transaction';
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
        implementation: implement<Pick<PeopleServiceDefinition, 'CreateContact'>>(
          {
            CreateContact: async (request) =>
              db.transaction((tx) =>
                idempotent(tx, workspace, async () => {
                  const id = newId();
                  await tx.query('INSERT INTO things (id, label) VALUES ($1, $2)', [id, request.fields?.fields?.label?.stringValue ?? '']);
                  return { id, created_at: 'x', updated_at: 'x' };
                }),
              ),
          },
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

  describe('a request of several transactions claims its key once', () => {
    const runner = () => createTransactionRunner(db);
    /** A handler that writes twice, in two transactions, and answers both labels' ids. */
    const handler = async (label: string, failBetween = false) => {
      const tx = runner();
      const insert = (suffix: string) =>
        tx.run(sampleContacts, workspace, async (q) => {
          const id = newId();
          await q.query('INSERT INTO things (id, label) VALUES ($1, $2)', [id, `${label}-${suffix}`]);
          return { value: id, events: [] };
        });
      const first = await insert('one');
      if (failBetween) throw new Error('crashed between the two transactions');
      const second = await insert('two');
      return [first, second];
    };
    const keyed = (key: string, label: string, failBetween = false) => withIdempotencyKey({ key, fingerprint: label }, () => handler(label, failBetween));

    test('the second transaction gets its own answer, and a repeat replays both and applies nothing', async () => {
      const run = keyed('multi-1', 'zeta');
      const [first, second] = await run.result;
      expect(first).not.toBe(second);
      expect(run.replayed()).toBe(false);
      const again = keyed('multi-1', 'zeta');
      expect(await again.result).toEqual([first, second]);
      expect(again.replayed()).toBe(true);
      expect([await count('zeta-one'), await count('zeta-two')]).toEqual([1, 1]);
    });

    test('a retry after a failure between the transactions resumes: the first is replayed, the second runs once', async () => {
      await expect(keyed('multi-2', 'eta', true).result).rejects.toThrow(/crashed/);
      expect([await count('eta-one'), await count('eta-two')]).toEqual([1, 0]);
      const retry = keyed('multi-2', 'eta');
      const [first] = await retry.result;
      expect(retry.replayed()).toBe(false);
      expect([await count('eta-one'), await count('eta-two')]).toEqual([1, 1]);
      const { rows } = await db.query<{ id: string }>(`SELECT id FROM things WHERE label = 'eta-one'`);
      expect(first).toBe(rows[0]!.id);
    });

    test('a service-chosen key (with its origin) never meets a client key of the same text', async () => {
      await withIdempotencyKey({ key: 'same-text', fingerprint: 'client' }, () => handler('theta')).result;
      await withIdempotencyKey({ key: 'same-text', fingerprint: 'engine', origin: 'flows' }, () => handler('iota')).result;
      expect([await count('theta-one'), await count('iota-one')]).toEqual([1, 1]);
    });
  });
});
