import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { type ClientConstructor, startGrpcServer, unary } from './grpc';
import { EVENT_BUS_HEALTH, monitorHealth } from './health';
import { createMemoryBus } from './events';
import { createLogger } from './logger';
import { type Migration, SchemaNotMigratedError, runMigrations, verifyMigrations } from './migrate';
import { startSqlService } from './sql-service';
import { expectEventually } from './testing/expect-eventually';
import { sqlBackends } from './testing/sql-backends';

const log = createLogger('test', 'silent');
const healthProto = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String, keepCase: true, defaults: true })) as unknown as {
  grpc: { health: { v1: { Health: ClientConstructor<grpc.Client> } } };
};
async function healthOf(address: string, service = ''): Promise<string> {
  const client = new healthProto.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  try {
    return (await unary<{ service: string }, { status: string }>(client, 'Check', { service }, { deadlineMs: 2_000 })).status;
  } finally {
    client.close();
  }
}

describe('monitorHealth', () => {
  test('reports NOT_SERVING after consecutive failed rounds, SERVING again after one good round', async () => {
    const reports: boolean[] = [];
    let up = true;
    const monitor = monitorHealth((s) => reports.push(s), [{ name: 'db', check: async () => { if (!up) throw new Error('refused'); } }], {
      intervalMs: 60_000,
      failuresBeforeNotServing: 2,
    });
    try {
      expect(await monitor.checkNow()).toBe(true);
      up = false;
      expect(await monitor.checkNow()).toBe(true); // one slow or failed answer is not an outage
      expect(await monitor.checkNow()).toBe(false);
      expect(await monitor.checkNow()).toBe(false);
      up = true;
      expect(await monitor.checkNow()).toBe(true);
      expect(reports).toEqual([false, true]); // each change reported once
    } finally {
      monitor.stop();
    }
  });

  test('a check that does not answer within the timeout counts as failed', async () => {
    const monitor = monitorHealth(() => undefined, [{ name: 'bus', check: () => new Promise(() => undefined) }], {
      intervalMs: 60_000,
      timeoutMs: 50,
      failuresBeforeNotServing: 1,
    });
    try {
      expect(await monitor.checkNow()).toBe(false);
    } finally {
      monitor.stop();
    }
  });

  test('runs by itself on its interval and drives grpc.health.v1', async () => {
    const server = await startGrpcServer('127.0.0.1:0', []);
    let up = true;
    const monitor = monitorHealth((s) => server.setServing(s), [{ name: 'db', check: async () => { if (!up) throw new Error('down'); } }], {
      intervalMs: 20,
      failuresBeforeNotServing: 1,
    });
    try {
      expect(await healthOf(server.address)).toBe('SERVING');
      up = false;
      await expectEventually(async () => expect(await healthOf(server.address)).toBe('NOT_SERVING'));
      up = true;
      await expectEventually(async () => expect(await healthOf(server.address)).toBe('SERVING'));
    } finally {
      monitor.stop();
      await server.shutdown(1_000);
    }
  });
});

const MIGRATIONS: Migration[] = [
  { id: '001_a', sql: 'CREATE TABLE a (id int PRIMARY KEY)' },
  { id: '002_b', sql: 'CREATE TABLE b (id int PRIMARY KEY)' },
];

describe.each(sqlBackends())('migrations on %s', (backend) => {
  test('verifyMigrations refuses a schema behind the code, naming what is missing, and accepts one ahead of it', async () => {
    const { db, drop } = await backend.open('verify_mig');
    try {
      await expect(verifyMigrations(db, MIGRATIONS)).rejects.toThrow(SchemaNotMigratedError);
      await runMigrations(db, MIGRATIONS.slice(0, 1));
      const error = await verifyMigrations(db, MIGRATIONS).catch((e: unknown) => e as SchemaNotMigratedError);
      expect(error).toBeInstanceOf(SchemaNotMigratedError);
      expect((error as SchemaNotMigratedError).missing).toEqual(['002_b']);
      expect((error as Error).message).toMatch(/crm migrate/);
      await runMigrations(db, MIGRATIONS);
      expect(await verifyMigrations(db, MIGRATIONS)).toEqual(['001_a', '002_b']);
      // an older release rolled back onto a newer schema still starts
      expect(await verifyMigrations(db, MIGRATIONS.slice(0, 1))).toEqual(['001_a', '002_b']);
    } finally {
      await drop();
    }
  });

  test('a service told to verify does not migrate, and starts once the schema is migrated', async () => {
    const { db, drop } = await backend.open('verify_svc');
    const bus = createMemoryBus();
    const definition = { name: 'sample', migrations: MIGRATIONS, create: () => ({}), bindings: () => [] };
    const runtime = { db, bus, cursorSecret: 'x'.repeat(32), grpcAddr: '127.0.0.1:0', log, config: {}, peerAddress: () => '', migrations: 'verify' as const };
    try {
      await expect(startSqlService(definition, runtime)).rejects.toThrow(/not at the latest migration \(missing: 001_a, 002_b\)/);
      const { rows } = await db.query<{ present: boolean }>(`SELECT to_regclass(format('%I.a', $1::text)) IS NOT NULL AS present`, [db.schema]);
      expect(rows[0]!.present).toBe(false);
      await runMigrations(db, MIGRATIONS);
      const running = await startSqlService(definition, runtime);
      expect(await healthOf(running.server.address)).toBe('SERVING');
      await running.stop();
    } finally {
      await bus.close();
      await drop();
    }
  });

  test('readiness follows the database only: the event bus down is reported under its own name, and the service stays SERVING', async () => {
    const { db, drop } = await backend.open('bus_down');
    // The memory bus, with a ping that answers while `busUp` (a NATS bus pings its server).
    const bus = createMemoryBus();
    let busUp = true;
    let dbUp = true;
    Object.assign(bus, { ping: async () => { if (!busUp) throw new Error('no connection'); } });
    const definition = { name: 'sample', migrations: MIGRATIONS, create: () => ({}), bindings: () => [] };
    const checked = { ...db, query: ((...args: Parameters<typeof db.query>) => (dbUp ? db.query(...args) : Promise.reject(new Error('connection refused')))) as typeof db.query };
    const runtime = { db: checked, bus, cursorSecret: 'x'.repeat(32), grpcAddr: '127.0.0.1:0', log, config: {}, peerAddress: () => '', healthIntervalMs: 20 };
    const running = await startSqlService(definition, runtime);
    const address = running.server.address;
    try {
      expect([await healthOf(address), await healthOf(address, EVENT_BUS_HEALTH)]).toEqual(['SERVING', 'SERVING']);
      busUp = false;
      await expectEventually(async () => expect(await healthOf(address, EVENT_BUS_HEALTH)).toBe('NOT_SERVING'));
      expect(await healthOf(address)).toBe('SERVING');
      busUp = true;
      await expectEventually(async () => expect(await healthOf(address, EVENT_BUS_HEALTH)).toBe('SERVING'));
      // The database is what readiness asks.
      dbUp = false;
      await expectEventually(async () => expect(await healthOf(address)).toBe('NOT_SERVING'));
      expect(await healthOf(address, EVENT_BUS_HEALTH)).toBe('SERVING');
      dbUp = true;
      await expectEventually(async () => expect(await healthOf(address)).toBe('SERVING'));
    } finally {
      await running.stop();
      expect(await healthOf(address, EVENT_BUS_HEALTH).catch(() => 'gone')).not.toBe('SERVING');
      await bus.close();
      await drop();
    }
  });
});
