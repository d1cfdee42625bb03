import {
  type CrmEvent,
  type EventBus,
  type SqlClient,
  createCursorCodec,
  createLogger,
  createMemoryBus,
  createOutboxRelay,
  runMigrations,
} from '@crm/kit';
import type { SqlBackend } from '@crm/kit/testing';
import { migrations } from '../migrations';
import { type PeopleService, createPeopleService } from '../people.service';

/** A migrated schema, the people service on it, and every event it publishes, for integration tests. */
export interface PeopleHarness {
  db: SqlClient;
  bus: EventBus;
  people: PeopleService;
  /** Every event the outbox relay published, in order. */
  events: CrmEvent[];
  eventsOf(type: string): CrmEvent[];
  /** Rows of a table matching a condition, counted directly in the database. */
  count(table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

export async function openPeople(backend: SqlBackend, prefix: string, options: { bus?: EventBus } = {}): Promise<PeopleHarness> {
  const { db, drop } = await backend.open(prefix);
  await runMigrations(db, migrations);
  const bus = options.bus ?? createMemoryBus();
  const events: CrmEvent[] = [];
  const subscription = await bus.subscribe({
    durable: `${prefix}-observer-${db.schema}`.slice(0, 64),
    subjects: ['crm.people.>'],
    handler: async (event) => void events.push(event),
  });
  const relay = createOutboxRelay({ db, bus, pollIntervalMs: 50 });
  const people = createPeopleService({
    db,
    cursors: createCursorCodec('p'.repeat(32)),
    afterCommit: () => relay.nudge(),
    log: createLogger('test', 'silent'),
  });
  relay.start();
  return {
    db,
    bus,
    people,
    events,
    eventsOf: (type) => events.filter((e) => e.type === type),
    async count(table, where = 'TRUE', params = []) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
      return rows[0]!.n;
    },
    async close() {
      await relay.stop();
      await subscription.stop();
      if (!options.bus) await bus.close();
      await drop();
    },
  };
}
