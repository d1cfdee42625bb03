import { PeopleEvents } from '@crm/proto';
import { OUTBOX_MIGRATION_SQL, newEvent } from './events';
import { newId } from './ids';
import type { SqlClient } from './sql';
import { sqlBackends } from './testing/sql-backends';
import { createOutboxCommit, retryLostRaces } from './transaction';

const lostRace = (code: string) => Object.assign(new Error(`lost race ${code}`), { code });

describe('retryLostRaces', () => {
  test.each(['40001', '40P01'])('runs a transaction that lost a race (%s) again, up to three attempts', async (code) => {
    let attempts = 0;
    await expect(
      retryLostRaces(async () => {
        if (++attempts < 3) throw lostRace(code);
        return 'done';
      }),
    ).resolves.toBe('done');
    expect(attempts).toBe(3);

    attempts = 0;
    await expect(
      retryLostRaces(async () => {
        attempts++;
        throw lostRace(code);
      }),
    ).rejects.toThrow(`lost race ${code}`);
    expect(attempts).toBe(3);
  });

  test('any other failure escapes at once', async () => {
    let attempts = 0;
    const failures = [lostRace('23505'), new Error('boom'), 'not an error'];
    for (const failure of failures) {
      await expect(
        retryLostRaces(async () => {
          attempts++;
          throw failure;
        }),
      ).rejects.toBe(failure);
    }
    expect(attempts).toBe(failures.length);
  });
});

/** A change and its events commit together or not at all, and the relay is woken only for events. */
describe.each(sqlBackends())('outbox commit on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const workspace = newId();

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_outbox_commit'));
    await db.exec(OUTBOX_MIGRATION_SQL);
    await db.exec(`CREATE TABLE facts (id uuid PRIMARY KEY, n int NOT NULL)`);
  });
  afterAll(async () => drop());

  const outboxed = async (ids: string[]) =>
    (await db.query<{ id: string }>(`SELECT payload->'data'->>'id' AS id FROM outbox WHERE payload->'data'->>'id' = ANY($1::text[])`, [ids])).rows.map((r) => r.id);
  const facts = async (ids: string[]) => (await db.query(`SELECT id FROM facts WHERE id = ANY($1::uuid[])`, [ids])).rows.length;

  test('the change and its events commit together; the relay is woken after the commit', async () => {
    let wakes = 0;
    const commit = createOutboxCommit(db, () => wakes++);
    const id = newId();
    const events = await commit(async (tx) => {
      await tx.query(`INSERT INTO facts (id, n) VALUES ($1, 1)`, [id]);
      expect(wakes).toBe(0);
      return [newEvent(PeopleEvents.ContactCreated, workspace, { id })];
    });
    expect(events).toHaveLength(1);
    expect(wakes).toBe(1);
    expect(await facts([id])).toBe(1);
    expect(await outboxed([id])).toEqual([id]);
  });

  test('work that publishes nothing does not wake the relay, and its value is answered', async () => {
    let wakes = 0;
    const commit = createOutboxCommit(db, () => wakes++);
    const id = newId();
    const outcome = await commit.outcome(async (tx) => {
      await tx.query(`INSERT INTO facts (id, n) VALUES ($1, 2)`, [id]);
      return { value: 'quiet', events: [] };
    });
    expect(outcome).toEqual({ value: 'quiet', events: [] });
    expect(wakes).toBe(0);
    expect(await facts([id])).toBe(1);
  });

  test('work that fails writes neither its change nor its events', async () => {
    let wakes = 0;
    const commit = createOutboxCommit(db, () => wakes++);
    const id = newId();
    await expect(
      commit(async (tx) => {
        await tx.query(`INSERT INTO facts (id, n) VALUES ($1, 3)`, [id]);
        await tx.query(`INSERT INTO facts (id, n) VALUES ($1, 3)`, [id]);
        return [newEvent(PeopleEvents.ContactCreated, workspace, { id })];
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(wakes).toBe(0);
    expect(await facts([id])).toBe(0);
    expect(await outboxed([id])).toEqual([]);
  });

  test('each event can carry a trace of its own', async () => {
    const commit = createOutboxCommit(db);
    const [a, b] = [newId(), newId()];
    const own = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await commit(async () => [newEvent(PeopleEvents.ContactCreated, workspace, { id: a }), newEvent(PeopleEvents.ContactCreated, workspace, { id: b })], {
      traceOf: (event) => ((event.data as { id: string }).id === a ? own : undefined),
    });
    const { rows } = await db.query<{ id: string; headers: Record<string, string> }>(
      `SELECT payload->'data'->>'id' AS id, headers FROM outbox WHERE payload->'data'->>'id' = ANY($1::text[])`,
      [[a, b]],
    );
    expect(rows.find((r) => r.id === a)!.headers).toEqual(own);
    expect(rows.find((r) => r.id === b)!.headers.traceparent).toBeUndefined();
  });

  if (backend.name === 'postgres') {
    test('two transactions that deadlock both commit: the one Postgres chose to abort runs again', async () => {
      const [first, second] = [newId(), newId()];
      await db.query(`INSERT INTO facts (id, n) VALUES ($1, 0), ($2, 0)`, [first, second]);
      let wakes = 0;
      const commit = createOutboxCommit(db, () => wakes++);
      // Each takes one row, waits until both hold theirs, then takes the other's: a deadlock.
      // (A retry finds the barrier open, and goes through.)
      let holding = 0;
      const barrier = Promise.withResolvers<void>();
      const bothHold = async () => {
        if (++holding === 2) barrier.resolve();
        await barrier.promise;
      };
      let attempts = 0;
      const crossing = (mine: string, theirs: string) =>
        commit(async (tx) => {
          attempts++;
          await tx.query(`UPDATE facts SET n = n + 1 WHERE id = $1`, [mine]);
          await bothHold();
          await tx.query(`UPDATE facts SET n = n + 1 WHERE id = $1`, [theirs]);
          return [newEvent(PeopleEvents.ContactUpdated, workspace, { id: mine })];
        });
      await Promise.all([crossing(first, second), crossing(second, first)]);
      // At least the loser's second attempt; on a loaded machine it may lose once more.
      expect(attempts).toBeGreaterThanOrEqual(3);
      expect(wakes).toBe(2);
      const { rows } = await db.query<{ n: number }>(`SELECT n FROM facts WHERE id = ANY($1::uuid[])`, [[first, second]]);
      expect(rows.map((r) => r.n)).toEqual([2, 2]);
      expect((await outboxed([first, second])).sort()).toEqual([first, second].sort());
    });
  }
});
