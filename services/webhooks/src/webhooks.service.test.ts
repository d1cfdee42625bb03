import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { type Clock, type RunningGrpcServer, type SqlClient, createCursorCodec, createLogger, createServiceClient, newId, parseListQuery, recordReader, withIdempotencyKey, runMigrations, startGrpcServer, systemClock, toStruct, unary } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { ActivitiesEvents, PeopleEvents, loadWebhooks } from '@crm/proto';
import { webhookDeliveries, webhookEndpoints } from '@crm/webhooks-contract';
import { Webhook } from 'standardwebhooks';
import { type RecordSource, createEnqueue } from './event-stream.consumer';
import { DISABLE_AFTER_MS, RETRY_SCHEDULE_MS, createDeliveryWorker } from './delivery.worker';
import { type EgressPolicy, STRICT_EGRESS } from './egress';
import { migrations } from './migrations';
import { webhooksGrpcBinding } from './webhooks.grpc';
import { PREVIOUS_SECRET_TTL_MS, createWebhooksService } from './webhooks.service';

jest.setTimeout(30_000);
const log = createLogger('test', 'silent');
/** Only the tests that need a loopback receiver lift the egress rules. */
const LOOPBACK: EgressPolicy = { allowHttp: true, allowPrivate: true };
/** Stands in for the owning contexts: the record an event names, as the API would return it. */
const records: RecordSource = async (_workspaceId, event) => ({ id: event.id, ...(event.resource === 'tasks' ? { status: 'open' } : { first_name: 'Ada' }) });

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local receiver: answers each request with the next of `answers` (the last repeats); `hang` never answers. */
async function receiver(answers: (number | 'hang')[] = [200]) {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A clock the test moves; sleeps are real (only round() is driven by hand). */
function manualClock(start = Date.parse('2026-06-01T10:00:00.000Z')) {
  let t = start;
  const clock: Clock & { advance(ms: number): void } = {
    now: () => new Date(t),
    sleep: systemClock.sleep,
    advance: (ms) => {
      t += ms;
    },
  };
  return clock;
}

const contactCreated = (workspaceId: string, at = new Date()) => ({
  id: newId(),
  type: PeopleEvents.ContactCreated,
  workspace_id: workspaceId,
  occurred_at: at.toISOString(),
  data: { id: newId() },
});

describe.each(sqlBackends())('webhooks on %s', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const secretsKey = randomBytes(32);
  const cursors = createCursorCodec('webhooks-test-cursor-secret');

  beforeAll(async () => {
    ({ db, drop } = await backend.open('webhooks_test'));
    await runMigrations(db, migrations);
  });
  afterAll(() => drop());

  function setup(egress: EgressPolicy, clock: Clock = systemClock, workerOptions: { perEndpoint?: number; timeoutMs?: number } = {}) {
    const service = createWebhooksService({ db, cursors, secretsKey, egress, now: () => clock.now() });
    const worker = createDeliveryWorker({ db, openSecrets: service.openSecrets, egress, log, clock, random: () => 0.5, ...workerOptions });
    const enqueue = createEnqueue(db, records, () => clock.now());
    return { service, worker, enqueue };
  }

  const delivery = async (workspaceId: string, eventId: string) => {
    const { rows } = await db.query<Record<string, unknown>>(`SELECT * FROM webhook_deliveries WHERE workspace_id = $1::uuid AND event_id = $2::uuid`, [workspaceId, eventId], { isoTimestamps: true });
    return rows;
  };

  describe('endpoints', () => {
    it('shows the secret only in the create answer, keeps it sealed, and refuses bad URLs and event types', async () => {
      const { service } = setup(STRICT_EGRESS);
      const ws = newId();
      const created = await service.endpoints.create({ workspaceId: ws }, { url: 'https://hooks.example.com/crm', event_types: ['contact.created'] });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created).toMatchObject({ enabled: true, disabled_reason: null, event_types: ['contact.created'] });
      const read = await service.endpoints.get(ws, created.id as string);
      // The record carries no secret at all: it is a field of the create's answer only.
      expect(read).not.toHaveProperty('secret');
      expect((await service.endpoints.list(ws, parseListQuery(webhookEndpoints, {}))).data.every((record) => !Object.hasOwn(record, 'secret'))).toBe(true);
      // No column holds it in clear.
      const { rows } = await db.query(`SELECT * FROM webhook_endpoints WHERE workspace_id = $1::uuid AND id = $2::uuid`, [ws, created.id]);
      expect(JSON.stringify(rows[0])).not.toContain((created.secret as string).slice(6));
      expect(JSON.stringify(rows[0])).toContain('signing_secret');
      await expect(service.endpoints.create({ workspaceId: ws }, { url: 'https://hooks.example.com/crm', dup: 2 })).rejects.toMatchObject({ code: 'validation_failed' });
      // A create repeated under its Idempotency-Key answers the secret the first one sealed.
      const keyed = () => withIdempotencyKey({ key: `k-${ws}`, fingerprint: 'f' }, () => service.endpoints.create({ workspaceId: ws }, { url: 'https://hooks.example.com/keyed' })).result;
      const first = await keyed();
      const again = await keyed();
      expect(again).toEqual(first);
      expect(await service.signingSecrets(ws, first.id as string)).toEqual([first.secret]);
      expect(await service.signingSecrets(ws, created.id as string)).toEqual([created.secret]);
      expect((await service.endpoints.create({ workspaceId: ws }, { url: 'https://a.example.com' })).event_types).toEqual([]);

      for (const [url, message] of [
        ['http://hooks.example.com/x', 'must be an https URL'],
        ['https://127.0.0.1/x', 'must not point at a private'],
        ['https://[::1]/x', 'must not point at a private'],
        ['https://[::ffff:127.0.0.1]/x', 'must not point at a private'],
        ['https://10.1.2.3/x', 'must not point at a private'],
        ['https://169.254.169.254/latest/meta-data', 'must not point at a private'],
        ['https://100.64.0.1/x', 'must not point at a private'],
        ['https://[fd00::1]/x', 'must not point at a private'],
        ['https://localhost/x', 'must not point at this machine'],
        ['https://user:pw@hooks.example.com/x', 'must not carry'],
      ]) {
        await expect(service.endpoints.create({ workspaceId: ws }, { url })).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'url', message: expect.stringContaining(message) }] });
      }
      await expect(service.endpoints.create({ workspaceId: ws }, { url: 'https://a.example.com', event_types: ['contact.exploded'] })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'event_types[0]' }],
      });
      // The development flags lift the checks made at create.
      const dev = setup(LOOPBACK);
      await expect(dev.service.endpoints.create({ workspaceId: ws }, { url: 'http://127.0.0.1:9/x' })).resolves.toMatchObject({ url: 'http://127.0.0.1:9/x' });
    });

    it("never shows another workspace's endpoint", async () => {
      const { service } = setup(STRICT_EGRESS);
      const ws = newId();
      const other = newId();
      const created = await service.endpoints.create({ workspaceId: ws }, { url: 'https://hooks.example.com/crm' });
      await expect(service.endpoints.get(other, created.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expect(service.rotateSecret(other, created.id as string)).rejects.toMatchObject({ code: 'not_found' });
      await expect(service.endpoints.update({ workspaceId: other }, created.id as string, { enabled: false })).rejects.toMatchObject({ code: 'not_found' });
      expect(await service.signingSecrets(other, created.id as string)).toEqual([]);
    });
  });

  describe('deliveries', () => {
    it('signs with Standard Webhooks 1.0, once per endpoint and event however often the event comes, never to another workspace', async () => {
      const hook = await receiver([200]);
      const otherHook = await receiver([200]);
      try {
        const { service, worker, enqueue } = setup(LOOPBACK);
        const ws = newId();
        const other = newId();
        const endpoint = await service.endpoints.create({ workspaceId: ws }, { url: hook.url, event_types: ['contact.created'] });
        await service.endpoints.create({ workspaceId: other }, { url: otherHook.url });
        // Another type, not subscribed: nothing.
        await service.endpoints.create({ workspaceId: ws }, { url: otherHook.url, event_types: ['task.created'] });
        const event = contactCreated(ws);
        expect(await enqueue(event)).toBe(1);
        expect(await enqueue(event)).toBe(0);
        expect(await worker.round()).toBe(1);
        expect(hook.received).toHaveLength(1);
        expect(otherHook.received).toHaveLength(0);
        const { headers, body } = hook.received[0]!;
        expect(headers['webhook-id']).toBe(event.id);
        expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        const verified = new Webhook(endpoint.secret as string).verify(body, headers as Record<string, string>);
        expect(verified).toEqual({ type: 'contact.created', timestamp: event.occurred_at, data: { id: event.data.id, first_name: 'Ada' } });
        const [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, next_attempt_at: null, lease_owner: null, last_error: null });
        const listed = await service.deliveries.list(ws, { filters: {}, limit: 10 } as never).catch(() => undefined);
        if (listed) expect(listed.data.map((d) => d.event_id)).toEqual([event.id]);
        // An event of no public type is not delivered.
        expect(await enqueue({ ...contactCreated(ws), type: PeopleEvents.PoolCreated })).toBe(0);
        expect(await enqueue({ ...contactCreated(other) })).toBe(1);
        expect(await delivery(other, event.id)).toEqual([]);
      } finally {
        await hook.close();
        await otherHook.close();
      }
    });

    it('fails twice then succeeds: three attempts on the schedule, with the same webhook-id', async () => {
      const hook = await receiver([500, 503, 204]);
      try {
        const clock = manualClock();
        const { service, worker, enqueue } = setup(LOOPBACK, clock);
        const ws = newId();
        await service.endpoints.create({ workspaceId: ws }, { url: hook.url });
        const event = { ...contactCreated(ws, clock.now()), type: ActivitiesEvents.TaskCreated, data: { task_id: newId(), status: 'open', created_at: clock.now().toISOString() } };
        await enqueue(event);
        expect(await worker.round()).toBe(1);
        let [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'answered 500' });
        expect(Date.parse(row!.next_attempt_at as string) - clock.now().getTime()).toBe(RETRY_SCHEDULE_MS[0]);
        expect(await worker.round()).toBe(0);
        clock.advance(RETRY_SCHEDULE_MS[0]);
        expect(await worker.round()).toBe(1);
        [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 503 });
        clock.advance(RETRY_SCHEDULE_MS[1]);
        expect(await worker.round()).toBe(1);
        [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 204, last_error: null });
        expect(hook.received.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
        expect(JSON.parse(hook.received[2]!.body)).toMatchObject({ type: 'task.created', data: { id: event.data.task_id, status: 'open' } });
        // Every attempt is in the log, oldest first, at the times the clock gave (as the API writes them).
        const started = Date.parse('2026-06-01T10:00:00.000Z');
        const log = row!.attempt_log as { attempt: number; at: string; status_code: number | null; duration_ms: number; error: string | null }[];
        expect(log).toEqual([
          { attempt: 1, at: new Date(started).toISOString(), status_code: 500, duration_ms: expect.any(Number), error: 'answered 500' },
          { attempt: 2, at: new Date(started + RETRY_SCHEDULE_MS[0]).toISOString(), status_code: 503, duration_ms: expect.any(Number), error: 'answered 503' },
          { attempt: 3, at: new Date(started + RETRY_SCHEDULE_MS[0] + RETRY_SCHEDULE_MS[1]).toISOString(), status_code: 204, duration_ms: expect.any(Number), error: null },
        ]);
        for (const entry of log) expect(Number.isInteger(entry.duration_ms) && entry.duration_ms >= 0).toBe(true);
        expect(log[2]!.duration_ms).toBe(row!.last_duration_ms);
        // The API's record carries the same log.
        const id = row!.id as string;
        expect((await service.deliveries.get(ws, id)).attempt_log).toEqual(log);
        // Retried by hand past 20 attempts (a delivery can be, without end), it keeps the most recent 20.
        for (let i = 0; i < 20; i++) {
          clock.advance(1_000);
          await service.retryDelivery(ws, id);
          expect(await worker.round()).toBe(1);
        }
        [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'succeeded', attempts: 23 });
        const kept = row!.attempt_log as typeof log;
        expect(kept.map((entry) => entry.attempt)).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
        expect(kept.at(-1)).toMatchObject({ at: clock.now().toISOString(), status_code: 204, error: null });
      } finally {
        await hook.close();
      }
    });

    it('gives up after the last retry, and disables an endpoint whose deliveries all failed for 5 days', async () => {
      const hook = await receiver([410]);
      try {
        const clock = manualClock();
        const { service, worker, enqueue } = setup(LOOPBACK, clock);
        const ws = newId();
        const endpoint = await service.endpoints.create({ workspaceId: ws }, { url: hook.url });
        const first = contactCreated(ws, clock.now());
        await enqueue(first);
        for (let i = 0; i <= RETRY_SCHEDULE_MS.length; i++) {
          expect(await worker.round()).toBe(1);
          clock.advance(RETRY_SCHEDULE_MS[i] ?? 0);
        }
        const [row] = await delivery(ws, first.id);
        expect(row).toMatchObject({ status: 'failed', attempts: RETRY_SCHEDULE_MS.length + 1, next_attempt_at: null });
        expect(await service.endpoints.get(ws, endpoint.id as string)).toMatchObject({ enabled: true });
        clock.advance(DISABLE_AFTER_MS);
        await enqueue(contactCreated(ws, clock.now()));
        expect(await worker.round()).toBe(1);
        expect(await service.endpoints.get(ws, endpoint.id as string)).toMatchObject({ enabled: false, disabled_reason: 'every delivery failed for 5 days' });
        // Disabled: no new deliveries; enabled again by hand, the reason goes.
        expect(await enqueue(contactCreated(ws, clock.now()))).toBe(0);
        expect(await service.endpoints.update({ workspaceId: ws }, endpoint.id as string, { enabled: true })).toMatchObject({ enabled: true, disabled_reason: null });
        // Enabled again, it starts a new run: one more failure does not disable it at once.
        const again = contactCreated(ws, clock.now());
        await enqueue(again);
        expect(await worker.round()).toBe(1);
        expect((await delivery(ws, again.id))[0]).toMatchObject({ status: 'pending', attempts: 1 });
        expect(await service.endpoints.get(ws, endpoint.id as string)).toMatchObject({ enabled: true });
      } finally {
        await hook.close();
      }
    });

    it('a hanging receiver does not delay another endpoint', async () => {
      const slow = await receiver(['hang']);
      const fast = await receiver([200]);
      const stop = new AbortController();
      try {
        const { service, worker, enqueue } = setup(LOOPBACK, systemClock, { perEndpoint: 2, timeoutMs: 3_000 });
        const ws = newId();
        await service.endpoints.create({ workspaceId: ws }, { url: slow.url });
        const running = worker.run(stop.signal);
        // The slow endpoint's slots fill first, then the fast one's deliveries come.
        for (let i = 0; i < 4; i++) await enqueue(contactCreated(ws));
        worker.wake();
        await expectEventually(() => expect(slow.received.length).toBe(2));
        const fastEndpoint = await service.endpoints.create({ workspaceId: ws }, { url: fast.url });
        const started = Date.now();
        const event = contactCreated(ws);
        await enqueue(event);
        worker.wake();
        await expectEventually(async () => {
          const rows = await delivery(ws, event.id);
          expect(rows.find((r) => r.endpoint_id === fastEndpoint.id)).toMatchObject({ status: 'succeeded' });
        });
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(slow.received.length).toBe(2);
        stop.abort();
        await running;
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1::uuid AND last_error LIKE 'no answer within%'`,
          [ws],
        );
        expect(rows[0]!.n).toBe(2);
      } finally {
        stop.abort();
        await slow.close();
        await fast.close();
      }
    });

    it('signs with both secrets for 24 h after a rotation', async () => {
      const hook = await receiver([200]);
      try {
        // Now: the verifier checks the timestamp against the real time.
        const clock = manualClock(Date.now());
        const { service, worker, enqueue } = setup(LOOPBACK, clock);
        const ws = newId();
        const endpoint = await service.endpoints.create({ workspaceId: ws }, { url: hook.url });
        const rotated = await service.rotateSecret(ws, endpoint.id as string);
        expect(rotated.secret).toMatch(/^whsec_/);
        expect(rotated.secret).not.toBe(endpoint.secret);
        expect(rotated.id).toBe(endpoint.id);
        await enqueue(contactCreated(ws, clock.now()));
        await worker.round();
        const { headers, body } = hook.received[0]!;
        expect((headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
        for (const secret of [endpoint.secret, rotated.secret]) {
          expect(() => new Webhook(secret as string).verify(body, headers as Record<string, string>)).not.toThrow();
        }
        clock.advance(PREVIOUS_SECRET_TTL_MS + 1);
        await enqueue(contactCreated(ws, clock.now()));
        await worker.round();
        const later = hook.received[1]!;
        expect((later.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
        // Past 24 h only the new secret signs (the library's sign() gives the expected entry).
        const at = new Date(Number(later.headers['webhook-timestamp']) * 1000);
        expect(later.headers['webhook-signature']).toBe(new Webhook(rotated.secret as string).sign(later.headers['webhook-id'] as string, at, later.body));
      } finally {
        await hook.close();
      }
    });

    it('refuses loopback at connection time unless WEBHOOKS_ALLOW_PRIVATE, a name resolving to 127.0.0.1 included', async () => {
      const hook = await receiver([200]);
      try {
        // http allowed (so the refusal is the address's), private addresses not.
        const strict = setup({ allowHttp: true, allowPrivate: false });
        const ws = newId();
        const loose = setup(LOOPBACK);
        // The URL check at create refuses localhost by name; an endpoint stored while the flag was
        // on (or a name that resolves to loopback) meets the connect-time check.
        await loose.service.endpoints.create({ workspaceId: ws }, { url: `http://localhost:${hook.port}/hook` });
        const event = contactCreated(ws);
        await strict.enqueue(event);
        await strict.worker.round();
        const [row] = await delivery(ws, event.id);
        expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
        expect(row!.last_error).toMatch(/not allowed/);
        expect(hook.received).toHaveLength(0);
        // With the development flag the same delivery goes through.
        await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE workspace_id = $1::uuid`, [ws]);
        await loose.worker.round();
        expect(hook.received).toHaveLength(1);
        // And https is required at connect time when WEBHOOKS_ALLOW_HTTP is off.
        const noHttp = setup({ allowHttp: false, allowPrivate: true });
        const second = contactCreated(ws);
        await noHttp.enqueue(second);
        await noHttp.worker.round();
        expect((await delivery(ws, second.id))[0]).toMatchObject({ attempts: 1, last_error: 'the URL is not https' });
      } finally {
        await hook.close();
      }
    });
  });

  describe('over gRPC', () => {
    let server: RunningGrpcServer;
    let client: grpc.Client;
    let hook: Awaited<ReturnType<typeof receiver>>;
    let worker: ReturnType<typeof setup>['worker'];
    let enqueue: ReturnType<typeof setup>['enqueue'];
    beforeAll(async () => {
      hook = await receiver([500, 200]);
      const parts = setup(LOOPBACK);
      ({ worker, enqueue } = parts);
      server = await startGrpcServer('127.0.0.1:0', [webhooksGrpcBinding(parts.service, log)]);
      client = new (loadWebhooks().crm.webhooks.v1.WebhooksService)(server.address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client.close();
      await server.shutdown();
      await hook.close();
    });

    it('creates with the secret, filters deliveries, and retries one now with the same webhook-id', async () => {
      const ws = newId();
      const created = await unary<unknown, Record<string, unknown>>(client, 'CreateWebhookEndpoint', { workspace_id: ws, fields: toStruct({ url: hook.url, description: 'crm' }) });
      expect(created.secret).toMatch(/^whsec_/);
      const got = await unary<unknown, Record<string, unknown>>(client, 'GetWebhookEndpoint', { workspace_id: ws, id: created.id });
      expect(got.secret ?? null).toBeNull();
      await expect(unary(client, 'GetWebhookEndpoint', { workspace_id: newId(), id: created.id })).rejects.toMatchObject({ code: 'not_found' });
      const event = contactCreated(ws);
      await enqueue(event);
      await worker.round();
      const listed = await unary<unknown, { data: Record<string, unknown>[] }>(client, 'ListWebhookDeliveries', { workspace_id: ws, filters: { status: 'pending', endpoint_id: created.id as string } });
      expect(listed.data).toHaveLength(1);
      const id = listed.data[0]!.id;
      expect(listed.data[0]).toMatchObject({ event_id: event.id, event_type: 'contact.created', attempts: 1, last_status_code: 500 });
      const retried = await unary<unknown, Record<string, unknown>>(client, 'RetryWebhookDelivery', { workspace_id: ws, id });
      expect(retried).toMatchObject({ status: 'pending' });
      await worker.round();
      const answer = await unary<unknown, Record<string, unknown>>(client, 'GetWebhookDelivery', { workspace_id: ws, id });
      expect(answer).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200 });
      // The attempt log travels as a google.protobuf.Value; read as the gateway reads a record (kit's
      // recordReader, GET /v1/webhook_deliveries/{id}), it is the record's array.
      const reader = createServiceClient(loadWebhooks().crm.webhooks.v1.WebhooksService, server.address);
      try {
        expect((await recordReader(reader, webhookDeliveries)(ws, id as string)).attempt_log).toEqual([
          { attempt: 1, at: expect.any(String), status_code: 500, duration_ms: expect.any(Number), error: 'answered 500' },
          { attempt: 2, at: expect.any(String), status_code: 200, duration_ms: answer.last_duration_ms, error: null },
        ]);
      } finally {
        reader.close();
      }
      expect(hook.received.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      await expect(unary(client, 'RetryWebhookDelivery', { workspace_id: newId(), id })).rejects.toMatchObject({ code: 'not_found' });
      const rotated = await unary<unknown, Record<string, unknown>>(client, 'RotateWebhookEndpointSecret', { workspace_id: ws, id: created.id });
      expect(rotated.secret).toMatch(/^whsec_/);
    });
  });
});
