/**
 * A send's life end to end, with messaging in its own `crm start messaging` process behind the
 * gateway, a real SMTP server receiving what it delivers (test/support/smtp-sink.ts), and replies
 * and bounces sent to its inbound SMTP listener by a standard SMTP client (nodemailer):
 * send → delivered → open → click → reply → bounce → unsubscribe → refused.
 */
import { expectEventually } from '@crm/kit/testing';
import { dsnFor, mailText as text, sendToInbound, tokenIn, unsubscribeOneClick } from '../support/mail';
import { freePort } from '../support/processes';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

let stack: Stack | undefined;
let sink: SmtpSink;
let inboundPort = 0;
let key = '';
const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await startSmtpSink();
  inboundPort = await freePort();
  stack = await startStack({
    componentEnv: {
      messaging: {
        SMTP_URL: sink.url,
        INBOUND_SMTP_ADDR: `127.0.0.1:${inboundPort}`,
        MAIL_DOMAIN: 'mail.test',
        PUBLIC_URL: 'http://127.0.0.1:8080',
        DELIVERY_RETRY_BASE_MS: '300',
      },
    },
  });
  key = (await stack.workspaceWithKey('Mailers', '*')).key;
}, 150_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.close();
});

const api = (method: string, path: string, body?: unknown) => stack!.api(method, path, { key, ...(body === undefined ? {} : { body }) });

async function contact(email: string): Promise<string> {
  const created = await api('POST', '/v1/contacts', { first_name: 'Ada', email });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

/** Queues a send and waits until the SMTP server has it: the send and the message received. */
async function delivered(contactId: string) {
  const queued = await api('POST', '/v1/sent_emails', {
    contact_id: contactId,
    subject: 'Hello {{ first_name }}',
    body: '<p>Hi {{ first_name }}, see <a href="https://example.com/p">our page</a>.</p>',
  });
  expect([queued.status, queued.body.data?.status]).toEqual([201, 'queued']);
  const id: string = queued.body.data.id;
  const send = await expectEventually(async () => {
    const read = await api('GET', `/v1/sent_emails/${id}`);
    expect(read.body.data.status).toBe('sent');
    return read.body.data;
  }, { timeoutMs: 30_000 });
  const messages = sink.received.filter((m) => m.messageId === send.message_id);
  expect(messages).toHaveLength(1);
  return { send, raw: messages[0]!.raw };
}

const eventsOf = async (sentEmailId: string): Promise<{ event_type: string; is_bot: boolean | null }[]> =>
  (await api('GET', `/v1/email_events?sent_email_id=${sentEmailId}&sort=occurred_at&limit=50`)).body.data;

test('a burst of opens: each answered on its own (a forged token among them is 404 alone), each recorded before its GIF', async () => {
  const { send, raw } = await delivered(await contact('burst@example.com'));
  const token = tokenIn(raw, 'o')!;
  const forged = `${token.slice(0, -2)}AA`;
  const tokens = Array.from({ length: 40 }, (_, i) => (i % 10 === 7 ? forged : token));
  const answers = await Promise.all(tokens.map((t) => fetch(`${stack!.baseUrl}/t/o/${t}`, { headers: { 'user-agent': HUMAN } })));
  expect(answers.map((a) => a.status)).toEqual(tokens.map((t) => (t === forged ? 404 : 200)));
  for (const answer of answers) {
    if (answer.status === 200) expect(Buffer.from(await answer.arrayBuffer()).subarray(0, 6).toString('latin1')).toBe('GIF89a');
    else expect((await answer.json()).error.code).toBe('not_found');
  }
  // Every GIF was answered after its open committed: all of them are there now, not eventually.
  expect((await eventsOf(send.id)).filter((e) => e.event_type === 'open')).toHaveLength(36);
});

test('send → delivered → open → click → reply → bounce → refused; unsubscribe → refused', async () => {
  const ada = await contact('ada@example.com');
  const { send, raw } = await delivered(ada);
  expect(send).toMatchObject({ subject: 'Hello Ada', to_email: 'ada@example.com', provider: 'smtp' });
  expect(sink.received.find((m) => m.messageId === send.message_id)!.from).toBe(`bounces+${send.id}@mail.test`);

  // The tracking paths are public: the token is the only credential, and a forged one records nothing.
  const base = stack!.baseUrl;
  const open = await fetch(`${base}/t/o/${tokenIn(raw, 'o')}`, { headers: { 'user-agent': HUMAN } });
  expect([open.status, open.headers.get('content-type')]).toEqual([200, 'image/gif']);
  const click = await fetch(`${base}/t/c/${tokenIn(raw, 'c')}`, { headers: { 'user-agent': HUMAN }, redirect: 'manual' });
  expect([click.status, click.headers.get('location')]).toEqual([302, 'https://example.com/p']);
  const forged = `${tokenIn(raw, 'o')!.slice(0, -2)}AA`;
  expect((await fetch(`${base}/t/o/${forged}`)).status).toBe(404);
  await expectEventually(async () => expect((await eventsOf(send.id)).map((e) => e.event_type)).toEqual(['open', 'click']));
  for (const event of await eventsOf(send.id)) expect(typeof event.is_bot).toBe('boolean');

  // A reply and a DSN bounce, sent to the inbound listener with a standard SMTP client.
  await sendToInbound(inboundPort, {
    from: 'ada@example.com',
    to: `reply@mail.test`,
    subject: 'Re: Hello Ada',
    text: 'Sounds good, call me.',
    inReplyTo: send.message_id,
    references: [send.message_id],
    messageId: '<ada-reply@example.com>',
  });
  await expectEventually(async () => expect((await eventsOf(send.id)).map((e) => e.event_type)).toContain('reply'));
  await sendToInbound(inboundPort, dsnFor(send.id, 'ada@example.com', { mailDomain: 'mail.test' }));
  await expectEventually(async () => {
    expect((await api('GET', `/v1/sent_emails/${send.id}`)).body.data.status).toBe('bounced');
    expect((await eventsOf(send.id)).map((e) => e.event_type)).toEqual(['open', 'click', 'reply', 'bounce']);
  });
  // A hard bounce suppresses the address: the next send is refused, naming why.
  const refused = await api('POST', '/v1/sent_emails', { contact_id: ada, subject: 'Again', body: 'Hi' });
  expect([refused.status, refused.body.error.code]).toEqual([422, 'validation_failed']);
  expect(refused.body.error.details).toEqual([{ field: 'contact_id', message: expect.stringMatching(/suppressed \(hard bounce\)/) }]);

  // One-click unsubscribe (RFC 8058) from the List-Unsubscribe header of another delivered send.
  const bob = await contact('bob@example.com');
  const second = await delivered(bob);
  expect(text(second.raw)).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/i);
  const page = await fetch(`${base}/u/${tokenIn(second.raw, 'u')}`);
  expect(page.status).toBe(200); // a confirmation page: link scanners change nothing
  const unsubscribed = await unsubscribeOneClick(base, second.raw);
  expect(unsubscribed.status).toBe(200);
  await expectEventually(async () => expect((await eventsOf(second.send.id)).map((e) => e.event_type)).toContain('unsubscribe'));
  const afterUnsubscribe = await api('POST', '/v1/sent_emails', { contact_id: bob, subject: 'Again', body: 'Hi' });
  expect(afterUnsubscribe.status).toBe(422);
  expect(afterUnsubscribe.body.error.details).toEqual([{ field: 'contact_id', message: expect.stringMatching(/suppressed \(unsubscribed\)/) }]);
  // Exactly the two sends reached the SMTP server, once each.
  expect(sink.received.filter((m) => [send.message_id, second.send.message_id].includes(m.messageId)).length).toBe(2);
});


test('an unsubscribe that lands while a send waits for its retry: the send is never delivered and fails saying why', async () => {
  const carol = await contact('carol@example.com');
  const first = await delivered(carol);
  // The server puts carol's next message off (451): the send stays queued between its attempts.
  let putOff = 0;
  sink.rules = {
    rcpt: (address) => {
      if (address !== 'carol@example.com') return undefined;
      putOff++;
      return { code: 451, message: '4.7.1 try again later' };
    },
  };
  try {
    const queued = await api('POST', '/v1/sent_emails', { contact_id: carol, subject: 'Following up', body: '<p>Hi</p>' });
    expect(queued.status).toBe(201);
    await expectEventually(async () => expect(putOff).toBeGreaterThanOrEqual(1), { timeoutMs: 30_000 });
    expect((await api('GET', `/v1/sent_emails/${queued.body.data.id}`)).body.data.status).toBe('queued');

    const unsubscribed = await unsubscribeOneClick(stack!.baseUrl, first.raw);
    expect(unsubscribed.status).toBe(200);
    sink.rules = {}; // the server would take it now: exit wins at send time all the same
    const failed = await expectEventually(
      async () => {
        const read = await api('GET', `/v1/sent_emails/${queued.body.data.id}`);
        expect(read.body.data.status).toBe('failed');
        return read.body.data;
      },
      { timeoutMs: 30_000 },
    );
    expect(failed.failure_reason).toMatch(/suppressed: unsubscribed/);
    expect(sink.countOf(failed.message_id)).toBe(0);
    expect(sink.countOf(first.send.message_id)).toBe(1);
  } finally {
    sink.rules = {};
  }
});
