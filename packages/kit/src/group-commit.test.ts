import { PeopleEvents } from '@crm/proto';
import { trace } from '@opentelemetry/api';
import { useTestTracing } from './events/event-bus.contract';
import { OUTBOX_MIGRATION_SQL, newEvent } from './events';
import { createGroupCommit } from './group-commit';
import { newId } from './ids';
import type { SqlClient } from './sql';
import { sqlBackends } from './testing/sql-backends';

useTestTracing();

/**
 * Group commit: every write acknowledged is committed, writes that come together share
 * transactions, one write's failure stays its own, and each write's events keep its own trace.
 */
describe.each(sqlBackends())('group commit on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const workspace = newId();

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_group_commit'));
    await db.exec(OUTBOX_MIGRATION_SQL);
    await db.exec(`CREATE TABLE facts (id uuid PRIMARY KEY, n int NOT NULL CHECK (n >= 0), tx bigint NOT NULL)`);
  });
  afterAll(async () => drop());

  const writer = (afterCommit?: () => void) =>
    createGroupCommit<{ id: string; n: number }>({
      db,
      write: async (tx, { id, n }) => {
        await tx.query(`INSERT INTO facts (id, n, tx) VALUES ($1, $2, txid_current())`, [id, n]);
        return [newEvent(PeopleEvents.ContactCreated, workspace, { id })];
      },
      order: (a, b) => a.n - b.n,
      afterCommit,
    });

  test('writes that come together share transactions, and each is acknowledged only once committed', async () => {
    let commits = 0;
    const group = writer(() => commits++);
    const items = Array.from({ length: 40 }, (_, n) => ({ id: newId(), n }));
    await Promise.all(
      items.map(async (item) => {
        await group.add(item);
        // Acknowledged: committed, visible to another connection's read.
        const { rows } = await db.query(`SELECT 1 FROM facts WHERE id = $1`, [item.id]);
        expect(rows).toHaveLength(1);
      }),
    );
    const { rows } = await db.query<{ transactions: number; written: number }>(
      `SELECT count(DISTINCT tx)::int AS transactions, count(*)::int AS written FROM facts WHERE id = ANY($1::uuid[])`,
      [items.map((i) => i.id)],
    );
    expect(rows[0]!.written).toBe(40);
    // The first alone (nothing else under way), then the rest together.
    expect(rows[0]!.transactions).toBeLessThanOrEqual(3);
    expect(commits).toBe(rows[0]!.transactions);
  });

  test("one write's failure fails it alone: the others of its group are written and acknowledged", async () => {
    const group = writer();
    const items = [{ id: newId(), n: 1 }, { id: newId(), n: -1 }, { id: newId(), n: 2 }, { id: newId(), n: 3 }];
    const settled = await Promise.allSettled(items.map((item) => group.add(item)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM facts WHERE id = ANY($1::uuid[])`, [items.map((i) => i.id)]);
    expect(rows.map((r) => r.id).sort()).toEqual([items[0]!.id, items[2]!.id, items[3]!.id].sort());
    // And it goes on after a failure.
    const later = { id: newId(), n: 4 };
    await group.add(later);
    expect((await db.query(`SELECT 1 FROM facts WHERE id = $1`, [later.id])).rows).toHaveLength(1);
  });

  test("each write's events carry the trace that was active where it was added", async () => {
    const group = writer();
    const tracer = trace.getTracer('test');
    const added = await Promise.all(
      [1, 2, 3].map((n) =>
        tracer.startActiveSpan(`write ${n}`, async (span) => {
          const id = newId();
          await group.add({ id, n: 10 + n });
          span.end();
          return { id, traceId: span.spanContext().traceId };
        }),
      ),
    );
    const { rows } = await db.query<{ payload: { data: { id: string } }; headers: { traceparent?: string } }>(`SELECT payload, headers FROM outbox`);
    for (const { id, traceId } of added) {
      const row = rows.find((r) => r.payload.data.id === id);
      expect(row?.headers.traceparent?.split('-')[1]).toBe(traceId);
    }
  });

  test('a whole-group writer gets each group at once; addAll puts its items in one group, each settled on its own', async () => {
    const groups: number[][] = [];
    const group = createGroupCommit<{ id: string; n: number }>({
      db,
      writeAll: async (tx, items) => {
        groups.push(items.map((i) => i.n));
        await tx.query(`INSERT INTO facts (id, n, tx) SELECT id, n, txid_current() FROM unnest($1::uuid[], $2::int[]) AS t(id, n)`, [
          items.map((i) => i.id),
          items.map((i) => i.n),
        ]);
        return items.map(({ id }) => [newEvent(PeopleEvents.ContactCreated, workspace, { id })]);
      },
      order: (a, b) => a.n - b.n,
      limit: 30,
    });
    const items = Array.from({ length: 40 }, (_, n) => ({ id: newId(), n: 100 + ((n * 7) % 40) }));
    const settled = await group.addAll(items);
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    // Two groups (the limit), each in the order given, none of them the first item alone.
    expect(groups.map((g) => g.length)).toEqual([30, 10]);
    for (const g of groups) expect(g).toEqual([...g].sort((a, b) => a - b));
    const { rows } = await db.query<{ transactions: number; written: number }>(
      `SELECT count(DISTINCT tx)::int AS transactions, count(*)::int AS written FROM facts WHERE id = ANY($1::uuid[])`,
      [items.map((i) => i.id)],
    );
    expect(rows[0]).toEqual({ transactions: 2, written: 40 });
    const { rows: events } = await db.query(`SELECT 1 FROM outbox WHERE payload->'data'->>'id' = ANY($1::text[])`, [items.map((i) => i.id)]);
    expect(events).toHaveLength(40);

    // A group that fails is written one item at a time: only the failing item is refused.
    groups.length = 0;
    const mixed = [{ id: newId(), n: 200 }, { id: newId(), n: -5 }, { id: newId(), n: 201 }];
    const outcome = await group.addAll(mixed);
    expect(outcome.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(groups).toEqual([[-5, 200, 201], [-5], [200], [201]]);
    expect((await db.query(`SELECT 1 FROM facts WHERE id = ANY($1::uuid[])`, [mixed.map((i) => i.id)])).rows).toHaveLength(2);
  });

  test('a whole-group writer that does not answer for every item fails its group: nothing is committed without its events', async () => {
    const group = createGroupCommit<{ id: string; n: number }>({
      db,
      writeAll: async (tx, items) => {
        await tx.query(`INSERT INTO facts (id, n, tx) SELECT id, n, txid_current() FROM unnest($1::uuid[], $2::int[]) AS t(id, n)`, [
          items.map((i) => i.id),
          items.map((i) => i.n),
        ]);
        return items.slice(1).map(({ id }) => [newEvent(PeopleEvents.ContactCreated, workspace, { id })]);
      },
    });
    const items = [{ id: newId(), n: 300 }, { id: newId(), n: 301 }];
    const settled = await group.addAll(items);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((settled[0] as PromiseRejectedResult).reason.message).toMatch(/returned the events of 0 items of 1/);
    expect((await db.query(`SELECT 1 FROM facts WHERE id = ANY($1::uuid[])`, [items.map((i) => i.id)])).rows).toHaveLength(0);
  });
});
