/**
 * Webhooks end to end, with the services as separate processes (test/support/stack.ts) and a real
 * HTTP receiver on loopback that verifies every delivery with the Standard Webhooks library, as a
 * customer's receiver would (test/support/webhook-receiver.ts). Records are created through the
 * gateway's API with an API key; what arrives is a signed notification whose data is the record as
 * the API returns it, listed among the endpoint's deliveries with its attempts; workspaces do not
 * hear of each other's events; a delivery can be replayed, a failed attempt is retried about 5 s
 * later, a secret rotated without a delivery failing to verify, and the webhooks process killed with
 * SIGKILL while events pour in without an event going undelivered (services/webhooks/README.md).
 */
import { expectEventually, toolAvailable } from '@crm/kit/testing';
import { NATS_SERVER_BINARY, type NatsServer, startNatsServer } from '../support/nats-server';
import { type Stack, startStack } from '../support/stack';
import { type ReceivedWebhook, type WebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(180_000);

/** Contacts created while the webhooks process is killed and started again. */
const LOAD_CONTACTS = 300;
/** Contact creations in flight at once during the load. */
const LOAD_CONCURRENCY = 6;

let stack: Stack | undefined;
let nats: NatsServer | undefined;
let receiver: WebhookReceiver;
// Events go from people to webhooks, two processes: over a NATS server of the suite's own, so the
// suite runs with or without the machine's (CI's second pass has none).
const haveNatsServer = toolAvailable('nats-server', NATS_SERVER_BINARY !== undefined);
const suite = haveNatsServer ? describe : describe.skip;
/** Two workspaces, each with a key of every scope. */
const keys = { acme: '', globex: '' };

beforeAll(async () => {
  if (!haveNatsServer) return;
  receiver = await startWebhookReceiver();
  nats = await startNatsServer();
  stack = await startStack({
    env: { NATS_URL: nats.url },
    // The receiver is plain http on loopback: the egress rules are lifted for it. The least lease:
    // deliveries held by the killed process go again 15 s after their claim, not 60.
    componentEnv: { webhooks: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_DELIVERY_LEASE_MS: '15000' } },
  });
  keys.acme = (await stack.workspaceWithKey('Acme', '*')).key;
  keys.globex = (await stack.workspaceWithKey('Globex', '*')).key;
}, 150_000);
afterAll(async () => {
  await stack?.stop();
  await nats?.close();
  await receiver?.close();
});

afterEach(() => {
  if (!receiver) return;
  // Every request that reached the receiver carried a signature one of its endpoint's secrets verifies.
  expect(receiver.unverified().map((d) => `${d.path} ${d.id}`)).toEqual([]);
});

const api = (key: string, method: string, path: string, body?: unknown) => stack!.api(method, path, { key, ...(body === undefined ? {} : { body }) });

/** An endpoint at this path of the receiver, whose secret the receiver verifies with. */
async function endpoint(key: string, path: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
  const created = await api(key, 'POST', '/v1/webhook_endpoints', { url: receiver.url(path), event_types: eventTypes });
  expect([created.status, created.body.error]).toEqual([201, undefined]);
  expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  receiver.setSecrets(path, [created.body.data.secret]);
  return { id: created.body.data.id, secret: created.body.data.secret };
}

async function contact(key: string, firstName: string): Promise<{ id: string }> {
  const created = await api(key, 'POST', '/v1/contacts', { first_name: firstName, email: `${firstName.toLowerCase()}@example.com` });
  expect([created.status, created.body.error]).toEqual([201, undefined]);
  return created.body.data;
}

/** The verified deliveries at a path whose data is this record. */
const arrivalsOf = (path: string, recordId: string): ReceivedWebhook[] => receiver.verified(path).filter((d) => d.payload?.data?.id === recordId);

/** Waits for the first verified delivery at a path about this record. */
const arrival = (path: string, recordId: string): Promise<ReceivedWebhook> =>
  expectEventually(
    () => {
      const found = arrivalsOf(path, recordId);
      expect(found.length).toBeGreaterThan(0);
      return found[0]!;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );

/** Every delivery of an endpoint, following next_cursor. */
async function deliveriesOf(key: string, endpointId: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await api(key, 'GET', `/v1/webhook_deliveries?endpoint_id=${endpointId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect([page.status, page.body.error]).toEqual([200, undefined]);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

/** The one delivery of an endpoint for this event, once its attempts number `attempts` and it reads `status`. */
const deliveryOnceIt = (key: string, endpointId: string, eventId: string, expected: { status: string; attempts: number }) =>
  expectEventually(
    async () => {
      const found = (await deliveriesOf(key, endpointId)).filter((d) => d.event_id === eventId);
      expect(found.map((d) => ({ status: d.status, attempts: d.attempts }))).toEqual([expected]);
      return found[0];
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );

suite('webhooks through the API, the service a process of its own', () => {
  let first: { id: string; secret: string };
  /** The delivery test 1 saw succeed; test 3 replays it. */
  let firstDelivery: { id: string; eventId: string; contactId: string };

  test('a contact created through the API is delivered as contact.created: signed, the contact as GET returns it, listed succeeded with its attempt', async () => {
    first = await endpoint(keys.acme, '/acme/first', ['contact.created']);
    const made = await contact(keys.acme, 'Ada');
    const got = await arrival('/acme/first', made.id);

    expect(got.verifiedWith).toEqual([first.secret]);
    expect(got.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(got.signature.split(' ')).toHaveLength(1);
    const read = await api(keys.acme, 'GET', `/v1/contacts/${made.id}`);
    expect(read.status).toBe(200);
    expect(got.payload).toEqual({ type: 'contact.created', timestamp: expect.any(String), data: read.body.data });
    expect(Number.isNaN(Date.parse(got.payload.timestamp))).toBe(false);
    // One request for the event: it was answered 2xx the first time.
    expect(arrivalsOf('/acme/first', made.id).map((d) => d.answered)).toEqual([204]);

    const delivery = await deliveryOnceIt(keys.acme, first.id, got.id, { status: 'succeeded', attempts: 1 });
    expect(delivery).toMatchObject({
      endpoint_id: first.id,
      event_type: 'contact.created',
      payload: got.payload,
      next_attempt_at: null,
      last_status_code: 204,
      last_error: null,
      last_attempt_at: expect.any(String),
      last_duration_ms: expect.any(Number),
    });
    const one = await api(keys.acme, 'GET', `/v1/webhook_deliveries/${delivery.id}`);
    expect([one.status, one.body.data]).toEqual([200, delivery]);
    firstDelivery = { id: delivery.id, eventId: got.id, contactId: made.id };
  });

  test("another workspace's endpoint never receives this workspace's events, and is not found from it", async () => {
    const other = await endpoint(keys.globex, '/globex/all', []);
    const ours = await contact(keys.acme, 'Bea');
    const theirs = await contact(keys.globex, 'Cyd');
    await arrival('/acme/first', ours.id);
    const theirsArrived = await arrival('/globex/all', theirs.id);
    // Each arrived where it belongs, and nowhere else: the other workspace's endpoint, subscribed to
    // every type, heard only of its own contact (and of nothing of Acme's since it was created).
    expect(receiver.verified('/globex/all').map((d) => d.payload.data.id)).toEqual([theirs.id]);
    expect(arrivalsOf('/acme/first', theirs.id)).toEqual([]);

    // Acme's key does not find Globex's endpoint or its delivery, nor act on them.
    expect((await api(keys.acme, 'GET', `/v1/webhook_endpoints/${other.id}`)).status).toBe(404);
    expect((await api(keys.acme, 'POST', `/v1/webhook_endpoints/${other.id}/rotate_secret`)).status).toBe(404);
    const theirDelivery = await deliveryOnceIt(keys.globex, other.id, theirsArrived.id, { status: 'succeeded', attempts: 1 });
    expect((await api(keys.acme, 'GET', `/v1/webhook_deliveries/${theirDelivery.id}`)).status).toBe(404);
    expect((await api(keys.acme, 'POST', `/v1/webhook_deliveries/${theirDelivery.id}/retry`)).status).toBe(404);
    expect(await deliveriesOf(keys.acme, other.id)).toEqual([]);
    // Globex's own key does find it, without its secret.
    const mine = await api(keys.globex, 'GET', `/v1/webhook_endpoints/${other.id}`);
    expect([mine.status, mine.body.data?.url, 'secret' in (mine.body.data ?? {})]).toEqual([200, receiver.url('/globex/all'), false]);
  });

  test('retry sends a delivery again now, with the same webhook-id and body', async () => {
    const before = arrivalsOf('/acme/first', firstDelivery.contactId);
    expect(before).toHaveLength(1);
    const retried = await api(keys.acme, 'POST', `/v1/webhook_deliveries/${firstDelivery.id}/retry`);
    expect([retried.status, retried.body.data?.id, retried.body.data?.status]).toEqual([200, firstDelivery.id, 'pending']);

    // A succeeded delivery has no retry scheduled: a second request can only be the replay.
    const again = await expectEventually(
      () => {
        const found = arrivalsOf('/acme/first', firstDelivery.contactId);
        expect(found).toHaveLength(2);
        return found[1]!;
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(again.id).toBe(firstDelivery.eventId);
    expect(again.body).toBe(before[0]!.body);
    expect(again.verifiedWith).toEqual([first.secret]);
    await deliveryOnceIt(keys.acme, first.id, firstDelivery.eventId, { status: 'succeeded', attempts: 2 });
  });

  test('a failed attempt is recorded and retried after about 5 s with the same webhook-id', async () => {
    const failing = await endpoint(keys.acme, '/acme/failing', ['contact.created']);
    receiver.behave('/acme/failing', { status: 503 });
    const made = await contact(keys.acme, 'Dee');
    const refused = await arrival('/acme/failing', made.id);
    expect(refused.answered).toBe(503);
    // The receiver is fixed at once; the retry is due about 5 s after the failed attempt.
    receiver.behave('/acme/failing', undefined);
    const pending = await deliveryOnceIt(keys.acme, failing.id, refused.id, { status: 'pending', attempts: 1 });
    expect(pending).toMatchObject({ last_status_code: 503, last_error: 'answered 503', next_attempt_at: expect.any(String) });
    const wait = Date.parse(pending.next_attempt_at) - Date.parse(pending.last_attempt_at);
    expect(wait).toBeGreaterThanOrEqual(4_500);
    expect(wait).toBeLessThanOrEqual(5_500);

    const retried = await expectEventually(
      () => {
        const found = arrivalsOf('/acme/failing', made.id);
        expect(found.map((d) => d.answered)).toEqual([503, 204]);
        return found[1]!;
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect([retried.id, retried.body]).toEqual([refused.id, refused.body]);
    const done = await deliveryOnceIt(keys.acme, failing.id, refused.id, { status: 'succeeded', attempts: 2 });
    expect(done).toMatchObject({ last_status_code: 204, last_error: null, next_attempt_at: null });
    expect(done.attempt_log).toMatchObject([
      { attempt: 1, status_code: 503, error: 'answered 503' },
      { attempt: 2, status_code: 204, error: null },
    ]);
  });

  test('after rotate_secret the next delivery verifies with the new secret and with the old one', async () => {
    const path = '/acme/rotating';
    const rotating = await endpoint(keys.acme, path, ['contact.created']);
    const rotated = await api(keys.acme, 'POST', `/v1/webhook_endpoints/${rotating.id}/rotate_secret`);
    expect([rotated.status, rotated.body.data?.id]).toEqual([200, rotating.id]);
    const secret = rotated.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(rotating.secret);
    // No read gives either secret back.
    const read = await api(keys.acme, 'GET', `/v1/webhook_endpoints/${rotating.id}`);
    expect([read.status, 'secret' in read.body.data]).toEqual([200, false]);

    receiver.setSecrets(path, [secret, rotating.secret]);
    const made = await contact(keys.acme, 'Eve');
    const got = await arrival(path, made.id);
    // Two signatures, the new secret's first; the library verifies the body with either secret alone.
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(got.verifiedWith).toEqual([secret, rotating.secret]);
  });

  test('the webhooks process killed with SIGKILL while contacts are created loses no contact.created', async () => {
    const { key } = await stack!.workspaceWithKey('Load', '*');
    const path = '/load/contacts';
    const load = await endpoint(key, path, ['contact.created']);

    const created: string[] = [];
    const loadStarted = Date.now();
    let next = 0;
    const creators = Array.from({ length: LOAD_CONCURRENCY }, async () => {
      while (next < LOAD_CONTACTS) {
        const n = next++;
        created.push((await contact(key, `Load${n}`)).id);
      }
    });
    // Mid-way: a third of the contacts created and deliveries arriving, the receiver stops answering
    // and the process is killed once it has requests out: it dies in the window where a delivery is
    // sent and its outcome not recorded. The rest of the contacts are created while it is dead and
    // while it starts again.
    const atKill = { created: 0, accepted: 0, held: [] as ReceivedWebhook[], ms: 0 };
    const accepted = () => receiver.verified(path).filter((d) => d.answered === 204);
    const killer = (async () => {
      await expectEventually(() => expect(created.length).toBeGreaterThanOrEqual(LOAD_CONTACTS / 3), { timeoutMs: 60_000, intervalMs: 10 });
      await expectEventually(() => expect(accepted().length).toBeGreaterThan(0), { timeoutMs: 30_000, intervalMs: 10 });
      receiver.behave(path, 'hang');
      const held = () => receiver.verified(path).filter((d) => d.answered === undefined);
      // Well within the 10 s after which the sender gives up on an answer and records a failure.
      await expectEventually(() => expect(held().length).toBeGreaterThan(0), { timeoutMs: 5_000, intervalMs: 10 });
      await stack!.restart(
        'webhooks',
        async () => {
          atKill.created = created.length;
          atKill.accepted = accepted().length;
          atKill.held = held();
          atKill.ms = Date.now() - loadStarted;
          receiver.behave(path, undefined);
        },
        undefined,
        { kill: true },
      );
    })();
    await Promise.all([...creators, killer]);
    expect(new Set(created).size).toBe(LOAD_CONTACTS);

    // A delivery leased by the dead process (those held among them) is sent again once its lease
    // (15 s here) runs out; an event it had not acknowledged comes again from the stream (30 s).
    const createdMs = Date.now() - loadStarted;
    const started = Date.now();
    await expectEventually(
      () => {
        const byContact = new Set(accepted().map((d) => d.payload?.data?.id));
        expect(created.filter((id) => !byContact.has(id))).toEqual([]);
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const arrived = accepted();
    const ids = new Set(arrived.map((d) => d.id));
    console.log(
      `SIGKILL under load: ${LOAD_CONTACTS} contacts created in ${createdMs} ms; the process killed at ${atKill.ms} ms, after ${atKill.created} created, ` +
        `${atKill.accepted} accepted by the receiver and ${atKill.held.length} held unanswered; then ${receiver.verified(path).length} requests in all, ` +
        `${arrived.length} accepted, ${ids.size} distinct webhook-ids, ${arrived.length - ids.size} duplicates; ` +
        `the last arrived ${Date.now() - started} ms after the last create`,
    );
    // At least once: one distinct webhook-id per contact accepted, each always with the same contact.
    expect(ids.size).toBe(LOAD_CONTACTS);
    const contactOf = new Map<string, Set<string>>();
    for (const d of receiver.verified(path)) contactOf.set(d.id, (contactOf.get(d.id) ?? new Set()).add(d.payload.data.id));
    expect([...contactOf.values()].filter((s) => s.size !== 1)).toEqual([]);
    expect(arrived.every((d) => d.payload.type === 'contact.created')).toBe(true);
    // What was unanswered when the process died went again with its webhook-id and the same body.
    for (const d of atKill.held) {
      const again = arrived.filter((a) => a.id === d.id);
      expect([again.length > 0, new Set(again.map((a) => a.body))]).toEqual([true, new Set([d.body])]);
    }

    // One delivery per event, each succeeded once its request was answered.
    const deliveries = await expectEventually(
      async () => {
        const all = await deliveriesOf(key, load.id);
        expect(all.filter((d) => d.status !== 'succeeded').map((d) => `${d.id} ${d.status}`)).toEqual([]);
        return all;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(deliveries).toHaveLength(LOAD_CONTACTS);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(ids);
  });
});
