/**
 * Messaging killed with SIGKILL while it delivers, then started again, with the services as
 * separate processes and a real (slow) SMTP server: every send the API acknowledged is delivered,
 * and none twice, counted at the server by Message-ID.
 */
import { expectEventually } from '@crm/kit/testing';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(240_000);

const SENDS = 120;
let stack: Stack | undefined;
let sink: SmtpSink;
let key = '';

beforeAll(async () => {
  // The server takes 150 ms to accept each message, so many are in flight, some of them between
  // their last byte and the server's answer, when the process dies.
  sink = await startSmtpSink({ delayMs: 150 });
  stack = await startStack({
    componentEnv: {
      // A dead worker's claims come back after the lease: short here so the test does not wait two minutes.
      messaging: { SMTP_URL: sink.url, MAIL_DOMAIN: 'mail.test', DELIVERY_LEASE_MS: '5000', DELIVERY_CONCURRENCY: '16' },
    },
  });
  key = (await stack.workspaceWithKey('Crash', '*')).key;
}, 150_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.close();
});

const api = (method: string, path: string, body?: unknown) => stack!.api(method, path, { key, ...(body === undefined ? {} : { body }) });

interface Send {
  id: string;
  status: string;
  message_id: string;
}

/** Every send of the workspace, following next_cursor. */
async function everySend(): Promise<Send[]> {
  const all: Send[] = [];
  let cursor: string | null = null;
  do {
    const page = await api('GET', `/v1/sent_emails?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    all.push(...(page.body.data as Send[]));
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

test('SIGKILL under load and a restart: every acknowledged send is delivered exactly once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < SENDS; i++) {
    const created = await api('POST', '/v1/contacts', { first_name: `C${i}`, email: `c${i}@example.com` });
    expect(created.status).toBe(201);
    const queued = await api('POST', '/v1/sent_emails', { contact_id: created.body.data.id, subject: `Hello {{ first_name }} ${i}`, body: '<p>Hi</p>' });
    expect([queued.status, queued.body.data?.status]).toEqual([201, 'queued']);
    ids.push(queued.body.data.id);
  }
  await expectEventually(async () => expect(sink.received.length).toBeGreaterThanOrEqual(10), { timeoutMs: 30_000 });
  const atKill = sink.received.length;
  await stack!.restart('messaging', undefined, undefined, { kill: true });
  expect(atKill).toBeLessThan(SENDS); // it died with work left

  const sends = await expectEventually(
    async () => {
      const list = await everySend();
      expect(list.filter((s) => ids.includes(s.id)).map((s) => s.status)).toEqual(Array(SENDS).fill('sent'));
      return list;
    },
    { timeoutMs: 90_000, intervalMs: 500 },
  );
  // Each send reached the server once: none lost with the process, none sent again after it. One
  // window is accepted by design (gateway/README.md, "Delivery, once"): a worker killed between
  // committing the hand-over and writing the end-of-data mark leaves the server the message without
  // its mark, and the send is taken as delivered. Such a send can only be one the server saw cut off
  // in the middle of DATA when the process died.
  const counts = sends.map((s) => sink.countOf(s.message_id));
  expect(counts.filter((n) => n > 1)).toEqual([]);
  const missing = sends.filter((s) => sink.countOf(s.message_id) === 0);
  expect(missing.filter((s) => !sink.cutOff.some((m) => m.messageId === s.message_id)).map((s) => s.id)).toEqual([]);
  expect(missing.length).toBeLessThanOrEqual(1);
  expect(sink.received).toHaveLength(SENDS - missing.length);
});
