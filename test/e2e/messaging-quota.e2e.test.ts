/**
 * The send quota held exactly across instances: two gateways, each in front of its own messaging
 * process, both messaging processes reserving in one Redis. A burst through both never queues
 * more than the quota, and every refusal is 429 `send_quota_exhausted` with its Retry-After.
 */
import { TEST_DATABASE_URL, TEST_REDIS_URL, serviceAvailable } from '@crm/kit/testing';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const QUOTA = 40;
// Two messaging instances share one database (Postgres) and one quota (Redis).
const suite = serviceAvailable('Redis', TEST_REDIS_URL) && serviceAvailable('Postgres', TEST_DATABASE_URL) ? describe : describe.skip;

suite('the send quota across two gateways and two messaging instances', () => {
  let stack: Stack | undefined;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink();
    stack = await startStack({
      gateways: 2,
      replicas: { messaging: 2 },
      componentEnv: { messaging: { SMTP_URL: sink.url, REDIS_URL: TEST_REDIS_URL, SEND_QUOTA_PER_HOUR: String(QUOTA) } },
    });
  }, 150_000);
  afterAll(async () => {
    await stack?.stop();
    await sink?.close();
  });

  test('a burst through both is held to the quota exactly, per workspace', async () => {
    const [a, b] = [await stack!.workspaceWithKey('Quota A', '*'), await stack!.workspaceWithKey('Quota B', '*')];
    const via = (gateway: number, key: string, method: string, path: string, body?: unknown) =>
      fetch(`${stack!.gatewayUrls[gateway]}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const contactOf = async (key: string) => (await (await via(0, key, 'POST', '/v1/contacts', { first_name: 'Q', email: 'q@example.com' })).json()).data.id;
    const [contactA, contactB] = [await contactOf(a.key), await contactOf(b.key)];

    // 1.5× the quota at once, alternating between the two gateways (and so the two instances).
    const burst = await Promise.all(
      Array.from({ length: QUOTA * 1.5 }, (_, i) => via(i % 2, a.key, 'POST', '/v1/sent_emails', { contact_id: contactA, subject: `S${i}`, body: 'Hi' })),
    );
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(QUOTA);
    expect(statuses.filter((s) => s === 429)).toHaveLength(QUOTA / 2);
    // Both instances took part: each gateway had some accepted.
    expect(burst.filter((r, i) => i % 2 === 0 && r.status === 201).length).toBeGreaterThan(0);
    expect(burst.filter((r, i) => i % 2 === 1 && r.status === 201).length).toBeGreaterThan(0);
    for (const refused of burst.filter((r) => r.status === 429)) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await refused.json()).error.code).toBe('send_quota_exhausted');
    }
    // Still exhausted on either side; another workspace has its own quota.
    for (const gateway of [0, 1]) expect((await via(gateway, a.key, 'POST', '/v1/sent_emails', { contact_id: contactA, subject: 'late', body: 'Hi' })).status).toBe(429);
    expect((await via(1, b.key, 'POST', '/v1/sent_emails', { contact_id: contactB, subject: 'other', body: 'Hi' })).status).toBe(201);
  });
});
