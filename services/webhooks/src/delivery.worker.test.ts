import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { type SqlClient, createCursorCodec, createLogger, newId, runMigrations, systemClock } from '@crm/kit';
import { expectEventually, installTestMetrics, pointsOf, sqlBackends, total } from '@crm/kit/testing';
import { PeopleEvents } from '@crm/proto';
import { type RecordSource, createEnqueue } from './event-stream.consumer';
import { createDeliveryWorker } from './delivery.worker';
import type { EgressPolicy } from './egress';
import { migrations } from './migrations';
import { createWebhooksService } from './webhooks.service';

// Before any instrument is first used: the worker's instruments bind to this provider.
const meter = installTestMetrics();
afterAll(() => meter.shutdown());

jest.setTimeout(30_000);
const log = createLogger('test', 'silent');
const LOOPBACK: EgressPolicy = { allowHttp: true, allowPrivate: true };
const records: RecordSource = async (_workspaceId, event) => ({ id: event.id, first_name: 'Ada' });

/**
 * A local receiver answering every request with `answer`, or never (`hang`: the request stays open
 * until the sender gives up). It counts the requests open at once, and the most there ever were.
 */
async function receiver(answer: number | 'hang') {
  let open = 0;
  const state = { received: 0, open: () => open, mostOpen: 0 };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((request, response) => {
    open++;
    state.received++;
    state.mostOpen = Math.max(state.mostOpen, open);
    response.on('close', () => open--);
    request.resume();
    request.on('end', () => {
      if (answer !== 'hang') response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

const contactCreated = (workspaceId: string) => ({
  id: newId(),
  type: PeopleEvents.ContactCreated,
  workspace_id: workspaceId,
  occurred_at: new Date().toISOString(),
  data: { id: newId() },
});

describe.each(sqlBackends())('the delivery worker on %s', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const secretsKey = randomBytes(32);
  const cursors = createCursorCodec('webhooks-worker-test-cursor-secret');

  beforeAll(async () => {
    ({ db, drop } = await backend.open('webhooks_worker_test'));
    await runMigrations(db, migrations);
  });
  afterAll(() => drop());
  // Each test starts with no endpoint and no delivery: a worker claims across workspaces, and what
  // an earlier test left pending (its receivers closed) would be retried into this one's figures.
  beforeEach(() => db.query(`DELETE FROM webhook_endpoints -- all workspaces: the test's own schema`));

  /** The service, and `replicas` delivery workers on the one database, as that many processes would run. */
  function setup(replicas: number, workerOptions: { perEndpoint?: number; timeoutMs?: number } = {}) {
    const service = createWebhooksService({ db, cursors, secretsKey, egress: LOOPBACK });
    const workers = Array.from({ length: replicas }, () =>
      createDeliveryWorker({ db, openSecrets: service.openSecrets, egress: LOOPBACK, log, clock: systemClock, random: () => 0.5, pollMs: 100, ...workerOptions }),
    );
    return { service, workers, enqueue: createEnqueue(db, records) };
  }

  const leased = async (endpointId: string) => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1::uuid AND lease_expires_at IS NOT NULL`,
      [endpointId],
    );
    return rows[0]!.n;
  };

  it('bounds an endpoint\'s deliveries in flight across replicas claiming at once; another endpoint\'s still go', async () => {
    const slow = await receiver('hang');
    const fast = await receiver(200);
    try {
      const { service, workers, enqueue } = setup(3, { perEndpoint: 2, timeoutMs: 2_000 });
      const ws = newId();
      const slowEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: slow.url, event_types: ['contact.created'] });
      const fastEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: fast.url, event_types: ['contact.updated'] });
      for (let i = 0; i < 8; i++) await enqueue(contactCreated(ws));
      await enqueue({ ...contactCreated(ws), type: PeopleEvents.ContactUpdated });
      // Eight due deliveries of the slow endpoint (and one of the fast, which came last): three
      // replicas claim at the same moment. Each would take two if it counted only its own.
      const started = Date.now();
      const rounds = Promise.all(workers.map((worker) => worker.round()));
      await expectEventually(() => expect(fast.received).toBe(1));
      await expectEventually(() => expect(slow.received).toBe(2));
      // The fast endpoint's delivery went while the slow one's hung.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await leased(slowEndpoint.id as string)).toBe(2);
      const claimed = await rounds;
      // Each round claimed once and waited for its attempts: two slow ones and the fast one in all.
      expect(claimed.reduce((a, b) => a + b, 0)).toBe(3);
      expect(slow.received).toBe(2);
      expect(slow.mostOpen).toBe(2);
      // Recorded attempts give their leases back: the slots are free again at once, so the next
      // claim takes two more (not the lease's full minute later).
      expect(await leased(slowEndpoint.id as string)).toBe(0);
      expect(await leased(fastEndpoint.id as string)).toBe(0);
      const next = Promise.all(workers.map((worker) => worker.round()));
      await expectEventually(() => expect(slow.received).toBe(4));
      expect((await next).reduce((a, b) => a + b, 0)).toBe(2);
      expect(slow.mostOpen).toBe(2);
    } finally {
      await slow.close();
      await fast.close();
    }
  });

  it('running replicas never exceed the bound on a hanging endpoint, and deliver the rest meanwhile', async () => {
    const slow = await receiver('hang');
    const fast = await receiver(204);
    const stop = new AbortController();
    const { service, workers, enqueue } = setup(2, { perEndpoint: 2, timeoutMs: 1_000 });
    const running = workers.map((worker) => worker.run(stop.signal));
    try {
      const ws = newId();
      const slowEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: slow.url, event_types: ['contact.created'] });
      const fastEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: fast.url, event_types: ['contact.updated'] });
      for (let i = 0; i < 6; i++) await enqueue(contactCreated(ws));
      for (const worker of workers) worker.wake();
      await expectEventually(() => expect(slow.received).toBe(2));
      // While the slow endpoint's slots are taken, the fast one's events arrive and are delivered.
      for (let i = 0; i < 5; i++) await enqueue({ ...contactCreated(ws), type: PeopleEvents.ContactUpdated });
      for (const worker of workers) worker.wake();
      await expectEventually(() => expect(fast.received).toBe(5));
      // Each attempt at the slow endpoint times out after a second and frees its slot; the next
      // two go, and never more than two at once between both replicas.
      await expectEventually(() => expect(slow.received).toBe(6), { timeoutMs: 10_000 });
      expect(slow.mostOpen).toBe(2);
      const { rows } = await db.query<{ endpoint_id: string; status: string; n: number }>(
        `SELECT endpoint_id, status, count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1::uuid GROUP BY 1, 2 ORDER BY 1, 2`,
        [ws],
      );
      expect(rows.find((r) => r.endpoint_id === fastEndpoint.id)).toMatchObject({ status: 'succeeded', n: 5 });
      expect(rows.find((r) => r.endpoint_id === slowEndpoint.id)).toMatchObject({ status: 'pending', n: 6 });
      // Each attempt, recorded alone (a timeout) or in a group (successes), is its delivery's one
      // log entry, the same outcome as its last_* columns. The last slow one is recorded when it times out.
      await expectEventually(async () => {
        const { rows: logged } = await db.query<Record<string, unknown>>(
          `SELECT attempt_log, last_attempt_at, last_status_code, last_duration_ms, last_error FROM webhook_deliveries WHERE workspace_id = $1::uuid`,
          [ws],
          { isoTimestamps: true },
        );
        expect(logged).toHaveLength(11);
        for (const row of logged) {
          expect(row.attempt_log).toEqual([
            { attempt: 1, at: row.last_attempt_at, status_code: row.last_status_code, duration_ms: row.last_duration_ms, error: row.last_error },
          ]);
        }
        expect(logged.filter((row) => row.last_status_code === 204)).toHaveLength(5);
        expect(logged.filter((row) => row.last_error === 'no answer within 1 s')).toHaveLength(6);
      });
    } finally {
      stop.abort();
      await slow.close();
      await Promise.all(running);
      await fast.close();
    }
  });

  it('records each attempt by outcome, the latency of successes, and the due backlog', async () => {
    const ok = await receiver(200);
    const failing = await receiver(500);
    const slow = await receiver('hang');
    const stop = new AbortController();
    const duration = async (outcome: string) => total(await meter.collect(), 'crm.webhook.delivery.duration', { 'crm.webhook.outcome': outcome });
    const latency = async () => total(await meter.collect(), 'crm.webhook.delivery.latency', { 'crm.webhook.first_attempt': 'true' });
    const [succeededBefore, retriedBefore, latencyBefore] = [await duration('succeeded'), await duration('retried'), await latency()];
    const { service, workers, enqueue } = setup(1, { perEndpoint: 1, timeoutMs: 8_000 });
    const running = workers[0]!.run(stop.signal);
    try {
      const ws = newId();
      await service.endpoints.create({ workspaceId: ws }, { url: ok.url, event_types: ['contact.updated'] });
      const failingEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: failing.url, event_types: ['contact.deleted'] });
      await enqueue({ ...contactCreated(ws), type: PeopleEvents.ContactUpdated });
      await enqueue({ ...contactCreated(ws), type: PeopleEvents.ContactDeleted });
      workers[0]!.wake();
      await expectEventually(async () => {
        expect(await duration('succeeded')).toBe(succeededBefore + 1);
        expect(await duration('retried')).toBe(retriedBefore + 1);
        expect(await latency()).toBe(latencyBefore + 1);
      });
      // The event happened just before: its latency is well under the attempt timeout.
      const [point] = pointsOf(await meter.collect(), 'crm.webhook.delivery.latency', { 'crm.webhook.first_attempt': 'true' });
      expect(point!.sum).toBeGreaterThan(0);
      // Three due for the hanging endpoint (one in flight, its bound): the backlog is those three,
      // the oldest due since it was written. A disabled endpoint's deliveries are never sent, so
      // the failed one (its retry due in 5 s) is not counted.
      await service.endpoints.update({ workspaceId: ws }, failingEndpoint.id as string, { enabled: false });
      await service.endpoints.create({ workspaceId: ws }, { url: slow.url, event_types: ['contact.created'] });
      for (let i = 0; i < 3; i++) await enqueue(contactCreated(ws));
      workers[0]!.wake();
      await expectEventually(() => expect(slow.received).toBe(1));
      await expectEventually(async () => {
        const points = await meter.collect();
        expect(total(points, 'crm.webhook.queue.due')).toBe(3);
        expect(total(points, 'crm.webhook.queue.oldest_due_age')).toBeGreaterThan(0);
      });
      expect(slow.received).toBe(1);
    } finally {
      stop.abort();
      // The hanging attempt ends when its connection does.
      await slow.close();
      await running;
      await ok.close();
      await failing.close();
    }
  });
});
