/**
 * Replicas of everything (DESIGN section 4, "Past one machine"): two gateways and two processes of
 * every Postgres context (people, flows, messaging, activities, webhooks) on one Postgres, a
 * three-node JetStream cluster with the stream replicated three times, and a six-node Redis Cluster
 * for limits, idempotency and the send quota; all started by the suite on loopback. The directory
 * runs once: its replicas would share a MongoDB, which this machine does not have.
 *
 * The flow, messaging and idempotency scenarios are driven through both gateways, alternately:
 * - each flow step executes exactly once, and each message reaches the SMTP server once;
 * - the send quota is exact across both messaging processes;
 * - a key sent to both gateways at once applies once;
 * - each consumer group handles each event once, summed over its two processes (the handler
 *   duration histogram's count, `messaging.process.duration`, scraped from every process), and
 *   each webhook is delivered once.
 */
import { TEST_DATABASE_URL, expectEventually, serviceAvailable, toolAvailable } from '@crm/kit/testing';
import { ActivitiesEvents, PeopleEvents } from '@crm/proto';
import { type NatsCluster, startNatsCluster } from '../support/nats-cluster';
import { NATS_SERVER_BINARY } from '../support/nats-server';
import { freePort } from '../support/processes';
import { REDIS_CLI_BINARY, REDIS_SERVER_BINARY, type RedisCluster, startRedisCluster } from '../support/redis-cluster';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';
import { type WebhookReceiver, startWebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(300_000);

/** The Postgres contexts, two processes each. */
const REPLICATED = ['people', 'flows', 'messaging', 'activities', 'webhooks'] as const;
/** Contacts enrolled in the flow, half through each gateway. */
const ENROLLED = 40;
/** The hourly send quota of every workspace; the flow's workspace stays under it. */
const QUOTA = 100;

// Postgres is shared by the replicas; the clusters are the suite's own (machine binaries).
const runnable =
  toolAvailable('nats-server', NATS_SERVER_BINARY !== undefined) &&
  toolAvailable('redis-server and redis-cli', REDIS_SERVER_BINARY !== undefined && REDIS_CLI_BINARY !== undefined) &&
  serviceAvailable('Postgres', TEST_DATABASE_URL);
const suite = runnable ? describe : describe.skip;

suite('two of everything: two gateways, two processes of each context, a NATS cluster and Redis Cluster', () => {
  let nats: NatsCluster | undefined;
  let redis: RedisCluster | undefined;
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let stack: Stack | undefined;
  /** Each process's METRICS_PORT, by process name. */
  const metricsPorts: Record<string, number> = {};

  beforeAll(async () => {
    [sink, receiver, nats, redis] = await Promise.all([startSmtpSink(), startWebhookReceiver(), startNatsCluster(), startRedisCluster()]);
    const names = [...REPLICATED.flatMap((name) => [name, `${name}-2`])];
    for (const name of names) metricsPorts[name] = await freePort();
    const redisEnv = { REDIS_URL: redis.seeds, REDIS_CLUSTER: 'true' };
    stack = await startStack({
      gateways: 2,
      replicas: Object.fromEntries(REPLICATED.map((name) => [name, 2])),
      env: { NATS_URL: nats.url, NATS_STREAM_REPLICAS: '3' },
      gatewayEnv: redisEnv,
      componentEnv: {
        messaging: { ...redisEnv, SMTP_URL: sink.url, SEND_QUOTA_PER_HOUR: String(QUOTA), MAIL_DOMAIN: 'mail.test', PUBLIC_URL: 'http://127.0.0.1:8080' },
        flows: { FLOW_ENGINE_POLL_MS: '200' },
        webhooks: { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_ALLOW_HTTP: '1' },
      },
      instanceEnv: Object.fromEntries(names.map((name) => [name, { METRICS_PORT: String(metricsPorts[name]) }])),
      readyTimeoutMs: 180_000,
    });
  }, 280_000);
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([nats?.close(), redis?.close(), sink?.close(), receiver?.close()]);
  });

  /** A request through gateway `gateway` (0 or 1). */
  async function via(gateway: number, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${stack!.gatewayUrls[gateway]}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  async function created(gateway: number, key: string, path: string, body: unknown): Promise<any> {
    const response = await via(gateway, key, 'POST', path, body);
    expect([path, response.status, response.body?.error]).toEqual([path, 201, undefined]);
    return response.body.data;
  }

  /** Sum of a series over every process of the named components, by label values. */
  async function summed(series: string, labels: Record<string, string>, processes = Object.keys(metricsPorts)): Promise<number> {
    let total = 0;
    for (const name of processes) {
      const text = await (await fetch(`http://127.0.0.1:${metricsPorts[name]}/metrics`)).text();
      for (const line of text.split('\n')) {
        if (!line.startsWith(`${series}{`)) continue;
        if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  test('a flow enrolled through both gateways: every step once, every message once, every task completion heard once', async () => {
    const { key } = await stack!.workspaceWithKey('Replicas', '*');
    const hooked = await created(0, key, '/v1/webhook_endpoints', { url: receiver.url('/contacts'), event_types: ['contact.created'] });
    receiver.setSecrets('/contacts', [hooked.secret]);

    const flow = await created(1, key, '/v1/flows', {
      name: 'Two touches and a call',
      status: 'active',
      nodes: [
        { key: 'hello', type: 'email', config: { subject: 'Hi {{first_name}}', body: '<p>Hello {{first_name}}</p>' } },
        { key: 'call', type: 'call', config: { title: 'Call {{first_name}}' } },
        { key: 'again', type: 'email', config: { body: '<p>Following up, {{first_name}}.</p>' } },
        { key: 'done', type: 'end' },
      ],
      edges: [
        { from: 'hello', to: 'call' },
        { from: 'call', to: 'again' },
        { from: 'again', to: 'done' },
      ],
    });
    const people: { id: string; email: string }[] = [];
    for (let i = 0; i < ENROLLED; i++) people.push(await created(i % 2, key, '/v1/contacts', { first_name: `R${i}`, email: `r${i}@replicas.test` }));
    for (const gateway of [0, 1]) {
      const half = people.filter((_, i) => i % 2 === gateway).map((c) => c.id);
      const response = await via(gateway, key, 'POST', `/v1/flows/${flow.id}/enrollments`, { contact_ids: half });
      expect([response.status, response.body.data?.enrolled?.length]).toEqual([200, half.length]);
    }

    // Each enrollment reaches its call: one open task each, completed through either gateway.
    const tasks = await expectEventually(
      async () => {
        const page = await via(0, key, 'GET', '/v1/tasks?status=open&limit=100');
        expect(page.status).toBe(200);
        expect(page.body.data).toHaveLength(ENROLLED);
        return page.body.data as { id: string }[];
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await Promise.all(tasks.map((task, i) => via(i % 2, key, 'PATCH', `/v1/tasks/${task.id}`, { status: 'completed' }).then((r) => expect(r.status).toBe(200))));

    const enrollments = await expectEventually(
      async () => {
        const page = await via(1, key, 'GET', `/v1/enrollments?flow_id=${flow.id}&limit=100`);
        expect(page.body.data.map((e: any) => e.status)).toEqual(Array(ENROLLED).fill('completed'));
        return page.body.data as { id: string }[];
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    for (const [i, e] of enrollments.entries()) {
      const steps = (await via(i % 2, key, 'GET', `/v1/enrollments/${e.id}/steps?sort=occurred_at`)).body.data.map((s: any) => `${s.node_key}:${s.outcome}`);
      expect(steps).toEqual(['hello:email_queued', 'call:task_created', 'call:task_completed', 'again:email_queued', 'done:completed']);
    }
    await expectEventually(() => expect(sink.received.filter((m) => m.to[0]!.endsWith('@replicas.test'))).toHaveLength(2 * ENROLLED), {
      timeoutMs: 60_000,
    });
    for (const c of people) expect([c.email, sink.received.filter((m) => m.to.includes(c.email)).length]).toEqual([c.email, 2]);
    const messageIds = sink.received.map((m) => m.messageId);
    expect(new Set(messageIds).size).toBe(messageIds.length);

    // contact.created: each contact once at the receiver, whichever webhooks process delivered it.
    await expectEventually(() => expect(receiver.verified('/contacts')).toHaveLength(ENROLLED), { timeoutMs: 60_000 });
    expect(new Set(receiver.verified('/contacts').map((d) => d.id)).size).toBe(ENROLLED);
    expect(receiver.unverified()).toEqual([]);
  });

  test('the send quota is exact across both messaging processes, and a key sent to both gateways at once applies once', async () => {
    const { key } = await stack!.workspaceWithKey('Quota', '*');
    const contact = await created(0, key, '/v1/contacts', { first_name: 'Q', email: 'q@quota.test' });
    const burst = await Promise.all(
      Array.from({ length: QUOTA + 30 }, (_, i) => via(i % 2, key, 'POST', '/v1/sent_emails', { contact_id: contact.id, subject: `S${i}`, body: 'Hi' })),
    );
    const statuses = burst.map((r) => r.status);
    expect([statuses.filter((s) => s === 201).length, statuses.filter((s) => s === 429).length]).toEqual([QUOTA, 30]);
    for (const refused of burst.filter((r) => r.status === 429)) expect(refused.body.error.code).toBe('send_quota_exhausted');

    // Twenty keys, each sent to both gateways at the same moment: one contact per key. The loser
    // of a race is told 409 (still in flight) or gets the replay; never a second contact.
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const body = { first_name: `I${i}`, email: `i${i}@idem.test` };
        const headers = { 'idempotency-key': `replica-${i}` };
        const [a, b] = await Promise.all([via(0, key, 'POST', '/v1/contacts', body, headers), via(1, key, 'POST', '/v1/contacts', body, headers)]);
        return { i, statuses: [a.status, b.status].sort(), ids: [a, b].filter((r) => r.status === 201).map((r) => r.body.data.id) };
      }),
    );
    for (const r of results) {
      expect([r.i, [[201, 201], [201, 409]].some((pair) => pair.join() === r.statuses.join())]).toEqual([r.i, true]);
      expect([r.i, new Set(r.ids).size]).toEqual([r.i, 1]);
      // A later repeat through the other gateway replays the same contact.
      const again = await via(1, key, 'POST', '/v1/contacts', { first_name: `I${r.i}`, email: `i${r.i}@idem.test` }, { 'idempotency-key': `replica-${r.i}` });
      expect([again.status, again.headers.get('idempotent-replayed'), again.body.data.id]).toEqual([201, 'true', r.ids[0]]);
    }
    const listed = await via(0, key, 'GET', '/v1/contacts?limit=100');
    expect(listed.body.data.filter((c: any) => c.email.endsWith('@idem.test'))).toHaveLength(20);
  });

  test('each consumer group handled each event once, summed over its two processes, and none was redelivered', async () => {
    // Every contact.created so far: the flow's workspace's and the quota workspace's.
    const contacts = ENROLLED + 1 + 20;
    const groupsOf = async (subject: string) => {
      const groups = new Map<string, number>();
      for (const name of Object.keys(metricsPorts)) {
        const text = await (await fetch(`http://127.0.0.1:${metricsPorts[name]}/metrics`)).text();
        for (const line of text.split('\n')) {
          if (!line.startsWith('messaging_process_duration_seconds_count{') || !line.includes(`messaging_destination_name="${subject}"`)) continue;
          const group = /messaging_consumer_group_name="([^"]+)"/.exec(line)![1]!;
          groups.set(group, (groups.get(group) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
        }
      }
      return groups;
    };
    await expectEventually(
      async () => {
        const groups = await groupsOf(PeopleEvents.ContactCreated);
        // At least the webhooks context listens to it; each group heard each contact once.
        expect(groups.size).toBeGreaterThan(0);
        for (const [group, handled] of groups) expect([group, handled]).toEqual([group, contacts]);
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // Task completions reach the engine once each.
    const completions = await groupsOf(ActivitiesEvents.TaskCompleted);
    expect(completions.size).toBeGreaterThan(0);
    for (const [group, handled] of completions) expect([group, handled]).toEqual([group, ENROLLED]);
    expect(await summed('crm_events_redelivered_total', {})).toBe(0);
  });
});
