/**
 * Messaging killed with SIGKILL while it delivers, round after round, with the services as separate
 * processes and a real SMTP server that can hold its answer to a message's end of data: the test
 * freezes the server's answers mid-delivery and kills the process while messages wait for theirs,
 * the window in which the server may or may not keep a message. Every send the API shows `sent`
 * reached the server; each one whose answer was held at the kill went again with the same
 * Message-ID, whether the server had kept the first copy or discarded it; and only those arrived
 * twice (gateway/README.md, Messaging, "Delivery, at least once").
 */
import { expectEventually } from '@crm/kit/testing';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(600_000);

/** Sends queued per round, over this many contacts. */
const BATCH = 48;
const CONTACTS = 12;
/** Rounds until the window is hit with both fates of a held message; at least two, so a process that recovered sends is killed too. */
const MIN_ROUNDS = 2;
const MAX_ROUNDS = 8;

let stack: Stack | undefined;
let sink: SmtpSink;
let key = '';

beforeAll(async () => {
  sink = await startSmtpSink();
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
  attempts: number | null;
  last_error: string | null;
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

/** These sends as the API shows them now, by id. */
async function sendsNow(ids: readonly string[]): Promise<Map<string, Send>> {
  const wanted = new Set(ids);
  const found = new Map((await everySend()).filter((s) => wanted.has(s.id)).map((s) => [s.id, s]));
  expect(found.size).toBe(ids.length);
  return found;
}

const messageIdIn = (raw: Buffer) => /^Message-ID:\s*(<[^>]+>)/im.exec(raw.toString('utf8', 0, Math.min(raw.length, 16_384)))?.[1] ?? '';
/**
 * What the server does with a message whose sender died while its answer was held: keep it (it
 * had the end of data: the first copy arrives, and the send goes again) or discard it (the send
 * goes again, and only that copy arrives). Decided by the Message-ID, so the test knows each fate.
 */
const fateOf = (messageId: string): 'keep' | 'discard' => ([...messageId].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 2 ? 'discard' : 'keep');

test('SIGKILL between the end of data and the answer, repeated: every send is delivered at least once, and again only when its answer was held', async () => {
  const contacts: string[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const created = await api('POST', '/v1/contacts', { first_name: `C${i}`, email: `c${i}@example.com` });
    expect(created.status).toBe(201);
    contacts.push(created.body.data.id);
  }

  const rounds: { round: number; queued: number; answeredBeforeKill: number; held: number; kept: number; discarded: number; twice: number }[] = [];
  let windowHits = 0;
  let keptSeen = false;
  let discardedSeen = false;
  for (let round = 1; round <= MAX_ROUNDS && (round <= MIN_ROUNDS || !(windowHits > 0 && keptSeen && discardedSeen)); round++) {
    // A slow server: each answer takes 100-400 ms, so many messages are in flight at once.
    sink.rules = { delayMs: () => 100 + Math.floor(Math.random() * 300), lostAnswer: (raw) => fateOf(messageIdIn(raw)) };
    const discardedBefore = sink.discarded.length;
    const sends: { id: string; messageId: string }[] = [];
    for (let i = 0; i < BATCH; i += 8) {
      const chunk = await Promise.all(
        Array.from({ length: Math.min(8, BATCH - i) }, (_, j) =>
          api('POST', '/v1/sent_emails', { contact_id: contacts[(i + j) % CONTACTS], subject: `Round ${round} #${i + j}`, body: '<p>Hi</p>' }),
        ),
      );
      for (const queued of chunk) {
        expect([queued.status, queued.body.data?.status]).toEqual([201, 'queued']);
        sends.push({ id: queued.body.data.id, messageId: queued.body.data.message_id });
      }
    }
    const ids = sends.map((s) => s.id);
    const ofRound = new Set(sends.map((s) => s.messageId));
    const answered = () => sink.received.filter((m) => ofRound.has(m.messageId!)).length;

    // Mid-delivery, at a random point: some answered, the rest queued or in flight.
    const threshold = 1 + Math.floor(Math.random() * (BATCH / 2));
    await expectEventually(() => expect(answered()).toBeGreaterThanOrEqual(threshold), { timeoutMs: 60_000, intervalMs: 10 });
    // Freeze the answers: what reaches its end of data from now on waits, as do those waiting now.
    sink.rules = { ...sink.rules, holdAnswers: true };
    // Every answer already given is recorded `sent` first, so that each copy that arrives twice can
    // only come from the held window (an answer received and not yet committed is a window of its
    // own, which this test leaves out).
    const answeredIds = new Set(sink.received.filter((m) => ofRound.has(m.messageId!)).map((m) => m.messageId));
    const atKill = await expectEventually(
      async () => {
        const now = await sendsNow(ids);
        expect(sends.filter((s) => answeredIds.has(s.messageId) && now.get(s.id)!.status !== 'sent').map((s) => s.id)).toEqual([]);
        return now;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect([...atKill.values()].filter((s) => !['queued', 'sent'].includes(s.status)).map((s) => `${s.id} ${s.status}`)).toEqual([]);
    const sentBeforeKill = new Set([...atKill.values()].filter((s) => s.status === 'sent').map((s) => s.id));

    let heldAtKill = new Set<string>();
    await stack!.restart(
      'messaging',
      async () => {
        // Dead: every held message has lost its client (a discarded one is gone from the list).
        await expectEventually(() => expect(sink.held.filter((m) => !m.clientGone).map((m) => m.messageId)).toEqual([]));
        heldAtKill = new Set([...sink.held.map((m) => m.messageId!), ...sink.discarded.slice(discardedBefore).map((m) => m.messageId!)]);
        // The kept ones are answered now, to no one: the server has them.
        sink.rules = { ...sink.rules, holdAnswers: false };
        sink.release();
      },
      undefined,
      { kill: true },
    );

    const after = await expectEventually(
      async () => {
        const now = await sendsNow(ids);
        expect([...now.values()].filter((s) => s.status !== 'sent').map((s) => `${s.id} ${s.status}`)).toEqual([]);
        return now;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const count = (s: { messageId: string }) => sink.countOf(s.messageId);
    // Never lost: a send that reads `sent` is at the server.
    expect(sends.filter((s) => count(s) < 1).map((s) => s.id)).toEqual([]);
    // Never sent again once recorded sent.
    expect(sends.filter((s) => sentBeforeKill.has(s.id) && count(s) !== 1).map((s) => `${s.id}: ${count(s)}`)).toEqual([]);
    // Twice only from the window: a send whose answer was held when the process died.
    expect(sends.filter((s) => count(s) > 1 && !heldAtKill.has(s.messageId)).map((s) => `${s.id}: ${count(s)}`)).toEqual([]);
    // Never taken as delivered: each held send went again with its Message-ID, so a kept first copy
    // makes two, a discarded one leaves the second only; the record says why it went again.
    const held = sends.filter((s) => heldAtKill.has(s.messageId));
    expect(held.map((s) => [s.id, count(s)])).toEqual(held.map((s) => [s.id, fateOf(s.messageId) === 'keep' ? 2 : 1]));
    for (const s of held) {
      expect(after.get(s.id)).toMatchObject({ attempts: expect.any(Number), last_error: expect.stringMatching(/sent again with the same Message-ID/) });
      expect(after.get(s.id)!.attempts).toBeGreaterThanOrEqual(2);
    }

    const kept = held.filter((s) => fateOf(s.messageId) === 'keep').length;
    rounds.push({ round, queued: BATCH, answeredBeforeKill: sentBeforeKill.size, held: held.length, kept, discarded: held.length - kept, twice: sends.filter((s) => count(s) > 1).length });
    if (held.length > 0) windowHits++;
    keptSeen ||= kept > 0;
    discardedSeen ||= held.length - kept > 0;
  }
  console.log(`SIGKILL rounds (held: answers waiting at the kill):\n${rounds.map((r) => `  ${JSON.stringify(r)}`).join('\n')}`);
  // The kill landed in the window at least once, with a kept and a discarded first copy.
  expect(windowHits).toBeGreaterThanOrEqual(1);
  expect([keptSeen, discardedSeen]).toEqual([true, true]);
});
