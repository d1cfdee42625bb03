import { type SqlClient, createLogger, createPgClient, newId, withIdempotencyKey } from '@crm/kit';
import { TEST_DATABASE_URL, expectEventually, sqlBackends } from '@crm/kit/testing';
import { parseTimelineQuery } from '@crm/messaging-contract';
import { MessagingEvents } from '@crm/proto';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink';
import { inboundSmtpWorker } from './inbound/inbound-smtp.worker';
import { createTrackingTokens } from './mail';
import { type MessagingHarness, openMessaging } from './testing/harness';

jest.setTimeout(60_000);

const text = (raw: Buffer) => raw.toString('utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const tokenIn = (raw: Buffer, kind: 'o' | 'c' | 'u') => new RegExp(`/${kind === 'u' ? 'u' : `t/${kind}`}/([A-Za-z0-9_-]+)`).exec(text(raw))?.[1];

describe.each(sqlBackends())('messaging on $name', (backend) => {
  let sink: SmtpSink;
  let h: MessagingHarness;
  const ctx = () => ({ workspaceId: h.workspaceId });
  /** A send of the default message; a key given as undefined is left out, as JSON would. */
  const send = (contactId: string, body: Record<string, unknown> = {}) =>
    h.messaging.service.sends.queue(
      ctx(),
      Object.fromEntries(
        Object.entries({ contact_id: contactId, subject: 'Hello {{ first_name }}', body: '<p>Hi {{ first_name }}, <a href="https://example.com/p">pricing</a></p>', ...body }).filter(
          ([, value]) => value !== undefined,
        ),
      ),
    );
  const status = async (id: unknown) => (await h.messaging.service.sentEmails.get(h.workspaceId, String(id))).status;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const reopen = backend.name === 'postgres' ? (schema: string) => createPgClient({ url: TEST_DATABASE_URL, schema, max: 4 }) : undefined;
    h = await openMessaging(backend, { SMTP_URL: sink.url, DELIVERY_MAX_ATTEMPTS: '3' }, reopen);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });
  beforeEach(() => {
    sink.rules = {};
  });

  test('a send is queued, handed to the SMTP server once with its tracking and threading headers, and recorded', async () => {
    const contactId = await h.contact('ada@example.com', { owner_id: h.userId });
    const queued = await send(contactId);
    expect(queued).toMatchObject({
      status: 'queued',
      subject: 'Hello Ada',
      to_email: 'ada@example.com',
      from_email: 'ana@acme.test',
      from_name: 'Ana Lima',
      owner_id: h.userId,
      message_id: `<${queued.id}@127.0.0.1>`,
    });
    await expectEventually(async () => expect(await status(queued.id)).toBe('sent'));
    const sent = await h.messaging.service.sentEmails.get(h.workspaceId, String(queued.id));
    expect(sent).toMatchObject({ provider: 'smtp', failure_reason: null });
    expect(sink.countOf(String(queued.message_id))).toBe(1);
    const mail = sink.received.find((m) => m.messageId === queued.message_id)!;
    expect(mail.from).toBe(`bounces+${queued.id}@127.0.0.1`);
    expect(mail.to).toEqual(['ada@example.com']);
    expect(text(mail.raw)).toMatch(/List-Unsubscribe-Post: List-Unsubscribe=One-Click/);
    expect(tokenIn(mail.raw, 'c')).toBeDefined();
    expect(tokenIn(mail.raw, 'o')).toBeDefined();
    // No text of its own: the text part is the HTML's, with the link as written (not tracked).
    expect((await simpleParser(mail.raw)).text?.trim()).toBe('Hi Ada, pricing [https://example.com/p]');

    // A follow-up in the thread of the first.
    const followUp = await h.messaging.service.sends.queue(ctx(), { contact_id: contactId, subject: 'Following up', body: '<p>?</p>' }, { replyToSentEmailId: String(queued.id) });
    await expectEventually(async () => expect(await status(followUp.id)).toBe('sent'));
    const second = text(sink.received.find((m) => m.messageId === followUp.message_id)!.raw);
    expect(second).toContain(`In-Reply-To: ${queued.message_id}`);
    expect(second).toMatch(/Subject: Re: Following up/);
    expect((await simpleParser(sink.received.find((m) => m.messageId === followUp.message_id)!.raw)).text?.trim()).toBe('?');

    await expectEventually(() => {
      const types = h.events.filter((e) => (e.data as { sent_email_id?: string }).sent_email_id === queued.id).map((e) => e.type);
      expect(types).toEqual(expect.arrayContaining([MessagingEvents.SentEmailQueued, MessagingEvents.EmailSent]));
    });
    const touchpoints = await h.messaging.service.touchpoints.list(h.workspaceId, {
      limit: 10,
      sort: [{ field: 'occurred_at', direction: 'desc' }],
      filters: [{ field: 'contact_id', value: contactId }],
    });
    expect(touchpoints.data.map((t) => [t.source, t.source_id, t.direction])).toContainEqual(['sent_email', queued.id, 'outbound']);
  });

  test('the contact, its address and the template are checked before anything is queued', async () => {
    await expect(send(newId())).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'contact_id' }] });
    const nameless = String((await h.people.service.contacts.create(ctx(), { first_name: 'No address' })).id);
    await expect(send(nameless)).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'contact_id', message: 'the contact has no email address' }] });
    // An address stored before the address rule took RFC 5321's limits: no send is queued to it.
    const legacy = await h.contact('legacy@example.com');
    await h.storeAddress(legacy, `${'a'.repeat(65)}@example.com`);
    await expect(send(legacy)).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'contact_id', message: "the contact's email address cannot be sent to: local part must be at most 64 octets (UTF-8 bytes); it has 65" }],
    });
    await expect(send(await h.contact('from@example.com'), { from_email: `${'é'.repeat(32)}a@example.com` })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'from_email', message: 'local part must be at most 64 octets (UTF-8 bytes); it has 65' }],
    });
    const contactId = await h.contact('grace@example.com');
    await expect(send(contactId, { template_id: newId(), subject: undefined, body: undefined })).rejects.toMatchObject({
      details: [{ field: 'template_id' }],
    });
    await expect(send(contactId, { subject: '{% if %}' })).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'subject' }] });
    await expect(h.messaging.service.sends.queue(ctx(), { contact_id: contactId })).rejects.toMatchObject({
      details: [{ field: 'subject' }, { field: 'body' }],
    });
    const template = await h.messaging.service.emailTemplates.create(ctx(), { name: 'Intro', subject: 'Hi {{ first_name | upcase }}', body: '<b>{{ company_name | default: "your team" }}</b>' });
    const fromTemplate = await send(contactId, { template_id: template.id, subject: undefined, body: undefined });
    expect(fromTemplate).toMatchObject({ subject: 'Hi ADA', body: '<b>your team</b>', template_id: template.id });
  });

  test('templates are Liquid, checked when saved: a source that does not parse or runs past the limits is 422 naming the field', async () => {
    await expect(h.messaging.service.emailTemplates.create(ctx(), { name: 'Bad', subject: 'ok', body: '{{ x | nosuchfilter }}' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'body' }],
    });
    await expect(
      h.messaging.service.emailTemplates.create(ctx(), { name: 'Loop', subject: 'ok', body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' }),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'body' }] });
    const chat = await h.messaging.service.chatappTemplates.create(ctx(), { name: 'Ping', body: 'Hi {{ first_name }}' });
    expect(chat.channel).toBe('chat_app');
    await expect(h.messaging.service.chatappTemplates.update(ctx(), String(chat.id), { body: '{% unless %}' })).rejects.toMatchObject({
      details: [{ field: 'body' }],
    });
  });

  test('a refused recipient is a hard bounce: the send bounces, the address is suppressed, the next send is refused', async () => {
    sink.rules = { rcpt: (address) => (address === 'gone@example.com' ? { code: 550, message: '5.1.1 User unknown' } : undefined) };
    const contactId = await h.contact('gone@example.com');
    const queued = await send(contactId);
    await expectEventually(async () => expect(await status(queued.id)).toBe('bounced'));
    const events = await h.messaging.service.emailEvents.list(h.workspaceId, {
      limit: 10,
      sort: [{ field: 'occurred_at', direction: 'desc' }],
      filters: [{ field: 'sent_email_id', value: String(queued.id) }],
    });
    expect(events.data).toEqual([expect.objectContaining({ event_type: 'bounce', bounce_type: 'hard', status_code: '5.1.1' })]);
    await expect(send(contactId)).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/suppressed \(hard bounce\)/) });
  });

  test('a temporary refusal is retried with backoff; the last failure fails the send with its reason', async () => {
    let refusals = 0;
    sink.rules = { rcpt: (address) => (address === 'busy@example.com' && refusals++ < 1 ? { code: 451, message: '4.7.1 Try again later' } : undefined) };
    const busy = await send(await h.contact('busy@example.com'));
    await expectEventually(async () => expect(await status(busy.id)).toBe('sent'));
    expect(sink.countOf(String(busy.message_id))).toBe(1);

    sink.rules = { rcpt: (address) => (address === 'down@example.com' ? { code: 421, message: '4.3.2 Service shutting down' } : undefined) };
    const down = await send(await h.contact('down@example.com'));
    await expectEventually(async () => expect(await status(down.id)).toBe('failed'), { timeoutMs: 20_000 });
    const failed = await h.messaging.service.sentEmails.get(h.workspaceId, String(down.id));
    expect(failed.failure_reason).toMatch(/^delivery failed after 3 attempts: .*4\.3\.2/);
  });

  test('exit wins at send time: a send canceled, or whose address unsubscribed, before it left is never delivered', async () => {
    // Unsubscribed while the message is already going out: the last check before its end-of-data
    // mark abandons the transaction and the server discards it.
    const late = await h.contact('late@example.com');
    let unsubscribed = false;
    sink.rules = {
      // Committed before the recipient is accepted, so it lands between the claim and the data.
      rcpt: async (address) => {
        if (address === 'late@example.com' && !unsubscribed) {
          unsubscribed = true;
          await h.db.query(`INSERT INTO suppressions (workspace_id, email_lower, reason, created_at) VALUES ($1, 'late@example.com', 'unsubscribed', now())`, [h.workspaceId]);
        }
        return undefined;
      },
    };
    const doomed = await send(late);
    await expectEventually(async () => expect(await status(doomed.id)).toBe('failed'));
    expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(doomed.id))).failure_reason).toBe('suppressed: unsubscribed');
    expect(sink.countOf(String(doomed.message_id))).toBe(0);

    // Canceled while queued (no worker has it yet): never delivered; a second cancel changes nothing.
    const contactId = await h.contact('canceled@example.com');
    const held = await withHeldDeliveries(h.db, () => send(contactId));
    expect(await h.messaging.service.cancel(h.workspaceId, String(held.id), 'enrollment_exited:replied')).toEqual({ canceled: true, status: 'failed' });
    expect(await h.messaging.service.cancel(h.workspaceId, String(held.id), 'again')).toEqual({ canceled: false, status: 'failed' });
    await releaseHeld(h.db);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await status(held.id)).toBe('failed');
    expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(held.id))).failure_reason).toBe('canceled: enrollment_exited:replied');
    expect(sink.countOf(String(held.message_id))).toBe(0);
  });

  test('opens and clicks are recorded (automated ones flagged, never dropped); a forged token records nothing; an unsubscribe suppresses once', async () => {
    const contactId = await h.contact('reader@example.com');
    const queued = await send(contactId);
    await expectEventually(async () => expect(await status(queued.id)).toBe('sent'));
    const raw = sink.received.find((m) => m.messageId === queued.message_id)!.raw;
    const engagement = h.messaging.service.engagement;
    const human = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
    // Within seconds of delivery everything looks automated; a person comes later.
    await h.db.query(`UPDATE sent_emails SET sent_at = now() - interval '1 minute' WHERE workspace_id = $1 AND id = $2`, [h.workspaceId, queued.id]);
    await expect(engagement.record({ kind: 'open', token: tokenIn(raw, 'o')!, userAgent: human, method: 'GET' })).resolves.toMatchObject({ isBot: false });
    await expect(engagement.record({ kind: 'click', token: tokenIn(raw, 'c')!, userAgent: human, method: 'GET' })).resolves.toEqual({
      url: 'https://example.com/p',
      isBot: false,
    });
    await expect(engagement.record({ kind: 'click', token: tokenIn(raw, 'c')!, userAgent: 'python-requests/2.31', method: 'GET' })).resolves.toMatchObject({
      isBot: true,
    });
    const forged = `${tokenIn(raw, 'o')!.slice(0, -2)}AA`;
    await expect(engagement.record({ kind: 'open', token: forged, userAgent: human })).rejects.toMatchObject({ code: 'not_found' });
    await expect(engagement.record({ kind: 'click', token: tokenIn(raw, 'o')!, userAgent: human })).rejects.toMatchObject({ code: 'not_found' });

    await expect(engagement.record({ kind: 'unsubscribe', token: tokenIn(raw, 'u')!, checkOnly: true })).resolves.toBeDefined();
    await expect(send(contactId)).resolves.toBeDefined();
    await engagement.record({ kind: 'unsubscribe', token: tokenIn(raw, 'u')!, userAgent: human, method: 'POST' });
    await engagement.record({ kind: 'unsubscribe', token: tokenIn(raw, 'u')!, userAgent: human, method: 'POST' });
    const recorded = await h.messaging.service.emailEvents.list(h.workspaceId, {
      limit: 50,
      sort: [{ field: 'occurred_at', direction: 'asc' }],
      filters: [{ field: 'sent_email_id', value: String(queued.id) }],
    });
    expect(recorded.data.map((e) => [e.event_type, e.is_bot])).toEqual([
      ['open', false],
      ['click', false],
      ['click', true],
      ['unsubscribe', false],
    ]);
    await expect(send(contactId)).rejects.toMatchObject({ message: expect.stringMatching(/suppressed \(unsubscribed\)/) });
  });

  test("a batch of opens (the gateway's pixel requests that came together): each answered on its own, recorded in one transaction, each email counted once", async () => {
    const human = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
    const queued = await Promise.all(['batch-1@example.com', 'batch-2@example.com'].map(async (email) => send(await h.contact(email), { owner_id: h.userId })));
    await expectEventually(async () => expect(await Promise.all(queued.map((q) => status(q.id)))).toEqual(['sent', 'sent']));
    await h.db.query(`UPDATE sent_emails SET sent_at = now() - interval '1 minute' WHERE workspace_id = $1 AND id = ANY($2::uuid[])`, [h.workspaceId, queued.map((q) => q.id)]);
    const [one, two] = queued.map((q) => sink.received.find((m) => m.messageId === q.message_id)!.raw);
    const open = (raw: Buffer, userAgent = human) => ({ token: tokenIn(raw, 'o')!, userAgent, method: 'GET' });
    // Signed with the deployment's secret, but for a send that does not exist.
    const noSuchSend = createTrackingTokens({ secret: h.trackingSecret }).sign({ kind: 'open', sentEmailId: newId() });
    const before = await h.messaging.service.performance(h.workspaceId, h.userId, '24h');
    const events = h.eventsOf(MessagingEvents.EmailEventRecorded).length;

    const answers = await h.messaging.service.engagement.recordOpens([
      open(one!),
      { token: `${tokenIn(one!, 'o')!.slice(0, -2)}AA`, userAgent: human },
      open(two!, 'python-requests/2.31'),
      { token: tokenIn(one!, 'c')!, userAgent: human },
      open(one!),
      { token: noSuchSend, userAgent: human },
      open(two!),
    ]);
    expect(answers).toEqual([true, false, true, false, true, false, true]);

    const recorded = await h.db.query<{ sent_email_id: string; is_bot: boolean; user_agent: string; tx: string }>(
      `SELECT sent_email_id, is_bot, user_agent, xmin::text AS tx FROM email_events WHERE workspace_id = $1 AND sent_email_id = ANY($2::uuid[]) ORDER BY sent_email_id, is_bot`,
      [h.workspaceId, queued.map((q) => q.id)],
    );
    const [one_, two_] = queued.map((q) => String(q.id));
    const expected: [string, boolean, string][] = [
      [one_!, false, human],
      [two_!, true, 'python-requests/2.31'],
      [one_!, false, human],
      [two_!, false, human],
    ];
    const order = (a: [string, boolean, string], b: [string, boolean, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Number(a[1]) - Number(b[1]));
    expect(recorded.rows.map((r) => [r.sent_email_id, r.is_bot, r.user_agent])).toEqual(expected.sort(order));
    expect(new Set(recorded.rows.map((r) => r.tx)).size).toBe(1);
    // Two emails opened by a person: two, however many opens; the script's open counts for nothing.
    const after = await h.messaging.service.performance(h.workspaceId, h.userId, '24h');
    expect(after.emails_opened - before.emails_opened).toBe(2);
    await expectEventually(async () => expect(h.eventsOf(MessagingEvents.EmailEventRecorded).length - events).toBe(4));
    const timeline = await h.messaging.service.timeline(h.workspaceId, String(queued[0]!.contact_id), parseTimelineQuery({ kind: 'email_event' }));
    expect(timeline.data.filter((item) => item.payload.event_type === 'open')).toHaveLength(2);

    // Nothing to record is an empty answer, and a batch over the limit is refused whole.
    await expect(h.messaging.service.engagement.recordOpens([])).resolves.toEqual([]);
    await expect(h.messaging.service.engagement.recordOpens(Array.from({ length: 1_001 }, () => open(one!)))).rejects.toThrow(/at most 1000 opens/);
  });

  test('the send quota: reserved when queued, refused past the limit with the time it frees, released when queueing fails', async () => {
    const limited = await h.another({ SEND_QUOTA_PER_HOUR: '3', DELIVERY_CONCURRENCY: '1' });
    const contactId = await h.contact('quota@example.com');
    const body = { contact_id: contactId, subject: 'q', body: 'q' };
    await expect(limited.service.sends.queue(ctx(), { ...body, contact_id: newId() })).rejects.toMatchObject({ code: 'validation_failed' });
    await limited.service.sends.queue(ctx(), { ...body, svc_uid: 'ext-1' });
    await limited.service.sends.queue(ctx(), body);
    // Refused by its own transaction (a duplicate svc_uid) after its place was reserved: given back.
    await expect(limited.service.sends.queue(ctx(), { ...body, svc_uid: 'ext-1' })).rejects.toMatchObject({ code: 'conflict' });
    await limited.service.sends.queue(ctx(), body);
    const refused = await limited.service.sends.queue(ctx(), body).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'send_quota_exhausted', details: { limit: 3 } });
    const wait = (refused as { details: { retry_after_seconds: number } }).details.retry_after_seconds;
    expect(wait).toBeGreaterThan(3_500);
    expect(wait).toBeLessThanOrEqual(3_600);

    // A repeat of a request (same Idempotency-Key) answers the first send and takes no place.
    const other = await h.another({ SEND_QUOTA_PER_HOUR: '2', DELIVERY_CONCURRENCY: '1' });
    const keyed = () => withIdempotencyKey({ key: `send-${newId()}`, fingerprint: 'f' }, () => other.service.sends.queue(ctx(), body)).result;
    const key = `send-${newId()}`;
    const first = await withIdempotencyKey({ key, fingerprint: 'f' }, () => other.service.sends.queue(ctx(), body)).result;
    const again = await withIdempotencyKey({ key, fingerprint: 'f' }, () => other.service.sends.queue(ctx(), body)).result;
    expect(again.id).toBe(first.id);
    await expect(keyed()).resolves.toBeDefined();
  });

  test('inbound mail: replies and auto-replies of a send, hard and soft bounces, delays, unmatched and malformed mail', async () => {
    const contactId = await h.contact('talker@example.com');
    const queued = await send(contactId);
    await expectEventually(async () => expect(await status(queued.id)).toBe('sent'));
    const inbound = h.messaging.service.inbound;
    const reply = Buffer.from(
      `From: Ada <talker@example.com>\r\nTo: ana@acme.test\r\nSubject: Re: Hello Ada\r\nMessage-ID: <reply-1@example.com>\r\n` +
        `In-Reply-To: ${queued.message_id}\r\nReferences: ${queued.message_id}\r\n\r\nYes, let's talk.\r\n\r\nOn Mon, Ana wrote:\r\n> Hi\r\n`,
    );
    await expect(inbound.ingest(reply)).resolves.toEqual({ kind: 'reply', sentEmailId: queued.id });
    await expect(inbound.ingest(reply)).resolves.toEqual({ kind: 'reply', sentEmailId: queued.id });
    const auto = Buffer.from(
      `From: talker@example.com\r\nTo: ana@acme.test\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n` +
        `Message-ID: <auto-1@example.com>\r\nIn-Reply-To: ${queued.message_id}\r\n\r\nI am away.\r\n`,
    );
    await expect(inbound.ingest(auto)).resolves.toEqual({ kind: 'auto_reply', sentEmailId: queued.id });
    const events = async () =>
      (
        await h.messaging.service.emailEvents.list(h.workspaceId, {
          limit: 50,
          sort: [{ field: 'occurred_at', direction: 'asc' }],
          filters: [{ field: 'sent_email_id', value: String(queued.id) }],
        })
      ).data.map((e) => e.event_type);
    expect(await events()).toEqual(['reply']);
    const inboundTouches = await h.messaging.service.touchpoints.list(h.workspaceId, {
      limit: 50,
      sort: [{ field: 'occurred_at', direction: 'asc' }],
      filters: [{ field: 'contact_id', value: contactId }, { field: 'direction', value: 'inbound' }],
    });
    expect(inboundTouches.data.map((t) => t.source)).toEqual(['email_event', 'inbound_email']);
    // Each auto-reply is published for flows, with the day it says the person is back when it names one.
    const autoReplies = () => h.eventsOf(MessagingEvents.AutoReplyReceived).filter((e) => (e.data as { sent_email_id: string }).sent_email_id === queued.id);
    await expectEventually(() => expect(autoReplies()).toHaveLength(1));
    expect(autoReplies()[0]!.data).toEqual({ sent_email_id: queued.id, contact_id: contactId, received_at: expect.any(String), utc_offset_minutes: 0 });
    // Written an hour ago in Paris (+0200), back ten days later (a day of Paris's calendar).
    const written = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    const inParis = (at: Date) => new Date(at.getTime() + 2 * 3_600_000);
    const [y, m, d] = inParis(new Date(written.getTime() + 10 * 86_400_000)).toISOString().slice(0, 10).split('-');
    const vacation = Buffer.from(
      `From: talker@example.com\r\nTo: ana@acme.test\r\nSubject: Réponse automatique : ${queued.subject}\r\nAuto-Submitted: auto-replied\r\n` +
        `Date: ${inParis(written).toUTCString().replace('GMT', '+0200')}\r\nMessage-ID: <auto-2@example.com>\r\nIn-Reply-To: ${queued.message_id}\r\n\r\n` +
        `Bonjour, je suis en congés. Je serai de retour le ${d}/${m}/${y}.\r\n`,
    );
    await expect(inbound.ingest(vacation)).resolves.toEqual({ kind: 'auto_reply', sentEmailId: queued.id });
    await expectEventually(() => expect(autoReplies()).toHaveLength(2));
    expect(autoReplies()[1]!.data).toMatchObject({
      received_at: written.toISOString(),
      utc_offset_minutes: 120,
      returns_on: `${y}-${m}-${d}`,
      returns_on_text: `de retour le ${d}/${m}/${y}`,
    });
    // The touchpoint of a send's automatic reply is written once.
    expect((await h.messaging.service.touchpoints.list(h.workspaceId, { limit: 50, sort: [{ field: 'occurred_at', direction: 'asc' }], filters: [{ field: 'contact_id', value: contactId }, { field: 'direction', value: 'inbound' }] })).data).toHaveLength(2);

    const dsn = (action: string, status: string, id = String(queued.id)) =>
      Buffer.from(
        [
          `From: MAILER-DAEMON@mx.example.com`,
          `To: bounces+${id}@127.0.0.1`,
          `Subject: Undelivered Mail Returned to Sender`,
          `Message-ID: <dsn-${action}-${status}-${id}@mx.example.com>`,
          `MIME-Version: 1.0`,
          `Content-Type: multipart/report; report-type=delivery-status; boundary="b"`,
          ``,
          `--b`,
          `Content-Type: text/plain`,
          ``,
          `Delivery failed.`,
          `--b`,
          `Content-Type: message/delivery-status`,
          ``,
          `Reporting-MTA: dns; mx.example.com`,
          ``,
          `Final-Recipient: rfc822; talker@example.com`,
          `Action: ${action}`,
          `Status: ${status}`,
          `Diagnostic-Code: smtp; ${status.startsWith('5') ? '550' : '452'} ${status} mailbox problem`,
          ``,
          `--b--`,
          ``,
        ].join('\r\n'),
      );
    await expect(inbound.ingest(dsn('delayed', '4.4.1'), [`bounces+${queued.id}@127.0.0.1`])).resolves.toMatchObject({ kind: 'delayed' });
    expect(await status(queued.id)).toBe('sent');
    await expect(inbound.ingest(dsn('failed', '4.2.2'), [`bounces+${queued.id}@127.0.0.1`])).resolves.toMatchObject({ kind: 'bounce' });
    expect(await status(queued.id)).toBe('bounced');
    await expect(send(contactId)).resolves.toBeDefined();
    await expect(inbound.ingest(dsn('failed', '5.1.1'), [`bounces+${queued.id}@127.0.0.1`])).resolves.toMatchObject({ kind: 'bounce' });
    await expect(send(contactId)).rejects.toMatchObject({ message: expect.stringMatching(/hard bounce/) });
    expect(await events()).toEqual(['reply', 'bounce', 'bounce']);

    await expect(inbound.ingest(Buffer.from('From: x@y.z\r\nSubject: hi\r\n\r\nnothing to match\r\n'))).resolves.toEqual({ kind: 'unmatched' });
    await expect(inbound.ingest(Buffer.from([0, 1, 2, 3, 255, 254]))).rejects.toMatchObject({ code: 'invalid_request' });
  });

  test('a slow answer holds back only its own send: the worker takes the sends behind it meanwhile', async () => {
    const slowContact = await h.contact('slow-server@example.com');
    const others = await Promise.all([1, 2, 3].map((n) => h.contact(`behind-${n}@example.com`)));
    sink.rules = { delayMs: (raw) => (raw.includes('slow-server@example.com') ? 20_000 : 0) };
    try {
      const slow = await send(slowContact);
      // The server has the slow message and holds its answer: the worker waits on it.
      await expectEventually(() => expect(sink.holding).toBe(1), { timeoutMs: 10_000 });
      const behind = await Promise.all(others.map((c) => send(c)));
      for (const b of behind) await expectEventually(async () => expect(await status(b.id)).toBe('sent'), { timeoutMs: 10_000 });
      expect(await status(slow.id)).toBe('queued');
      sink.release();
      await expectEventually(async () => expect(await status(slow.id)).toBe('sent'));
    } finally {
      sink.rules = {};
      sink.release();
    }
  });

  test('sends accepted together are recorded together, each exactly once: its status, touchpoint, ledger row, counter and event', async () => {
    const owner = h.userId;
    const hourly = async () =>
      (
        await h.db.query<{ n: number }>(`SELECT coalesce(sum(emails_sent), 0)::int AS n FROM engagement_hourly WHERE workspace_id = $1 AND user_id = $2`, [
          h.workspaceId,
          owner,
        ])
      ).rows[0]!.n;
    const before = await hourly();
    const contacts = await Promise.all(Array.from({ length: 24 }, (_, n) => h.contact(`together-${n}@example.com`, { owner_id: owner })));
    // Held, then released at once: the server accepts them together, and they finish together.
    const queued = await withHeldDeliveries(h.db, () => Promise.all(contacts.map((c) => send(c))));
    await releaseHeld(h.db);
    for (const q of queued) await expectEventually(async () => expect(await status(q.id)).toBe('sent'));
    const ids = queued.map((q) => String(q.id));
    const count = async (sql: string) => (await h.db.query<{ n: number }>(sql, [h.workspaceId, ids])).rows[0]!.n;
    expect(await count(`SELECT count(*)::int AS n FROM touchpoints WHERE workspace_id = $1 AND source = 'sent_email' AND source_id = ANY($2::uuid[])`)).toBe(24);
    expect(await count(`SELECT count(*)::int AS n FROM engagement_ledger WHERE workspace_id = $1 AND kind = 'sent_email' AND source_id = ANY($2::uuid[])`)).toBe(24);
    expect(await count(`SELECT count(*)::int AS n FROM deliveries WHERE workspace_id = $1 AND state = 'done' AND sent_email_id = ANY($2::uuid[])`)).toBe(24);
    expect(await hourly()).toBe(before + 24);
    for (const q of queued) expect(sink.countOf(String(q.message_id))).toBe(1);
    await expectEventually(() => {
      const sent = h.eventsOf(MessagingEvents.EmailSent).filter((e) => ids.includes((e.data as { sent_email_id: string }).sent_email_id));
      expect(sent.map((e) => (e.data as { sent_email_id: string }).sent_email_id).sort()).toEqual([...ids].sort());
    });
  });

  test('a message handed over when its worker died, before the answer, is delivered again with the same Message-ID, never taken as delivered', async () => {
    const contactId = await h.contact('crash@example.com');
    const held = await withHeldDeliveries(h.db, () => send(contactId));
    // As a worker killed after its end of data leaves it: committed, one attempt, the lease run out.
    await h.db.query(
      `UPDATE deliveries SET state = 'committed', committed_at = now(), provider = 'smtp', attempts = 1, next_attempt_at = now() - interval '1 second'
        WHERE workspace_id = $1 AND sent_email_id = $2`,
      [h.workspaceId, held.id],
    );
    await expectEventually(async () => expect(await status(held.id)).toBe('sent'));
    expect(sink.countOf(String(held.message_id))).toBe(1);
    expect(await h.messaging.service.sentEmails.get(h.workspaceId, String(held.id))).toMatchObject({
      attempts: 2,
      last_error: expect.stringMatching(/no answer was recorded .*sent again with the same Message-ID/),
      next_attempt_at: null,
    });
  });

  test('the inbound SMTP listener records a reply and a bounce sent by a standard SMTP client', async () => {
    const contactId = await h.contact('smtp-in@example.com');
    const queued = await send(contactId);
    await expectEventually(async () => expect(await status(queued.id)).toBe('sent'));
    let port = 0;
    const abort = new AbortController();
    const listening = inboundSmtpWorker({
      inbound: h.messaging.service.inbound,
      address: '127.0.0.1:0',
      log: createLogger('test', 'silent'),
      maxBytes: 1024 * 1024,
      onListening: (p) => (port = p),
    }).run(abort.signal);
    try {
      await expectEventually(() => expect(port).toBeGreaterThan(0));
      const client = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      await client.sendMail({
        from: 'smtp-in@example.com',
        to: 'replies@127.0.0.1',
        subject: 'Re: Hello',
        text: 'Sounds good',
        inReplyTo: String(queued.message_id),
        references: [String(queued.message_id)],
        messageId: '<reply-over-smtp@example.com>',
      });
      await expectEventually(async () => {
        const events = await h.messaging.service.emailEvents.list(h.workspaceId, {
          limit: 10,
          sort: [{ field: 'occurred_at', direction: 'desc' }],
          filters: [{ field: 'sent_email_id', value: String(queued.id) }],
        });
        expect(events.data.map((e) => e.event_type)).toContain('reply');
      });
      client.close();
    } finally {
      abort.abort();
      await listening;
    }
  });

  if (backend.name === 'postgres') {
    test('two replicas deliver every send exactly once', async () => {
      const replica = await h.replica();
      const contactId = await h.contact('many@example.com');
      const before = sink.received.length;
      const queued = [];
      for (let i = 0; i < 60; i++) queued.push(await (i % 2 ? replica.service : h.messaging.service).sends.queue(ctx(), { contact_id: contactId, subject: `n${i}`, body: 'x' }));
      await expectEventually(async () => {
        const { rows } = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sent_emails WHERE workspace_id = $1 AND contact_id = $2 AND status = 'sent'`, [
          h.workspaceId,
          contactId,
        ]);
        expect(rows[0]!.n).toBe(60);
      }, { timeoutMs: 30_000 });
      for (const q of queued) expect(sink.countOf(String(q.message_id))).toBe(1);
      expect(sink.received.length - before).toBe(60);
    });
  }
});

/**
 * Runs `queue` while the deliveries it writes are held back (due in a day), so a test can act on
 * a queued send before any worker may take it; `releaseHeld` makes them due again.
 */
async function withHeldDeliveries<T>(db: SqlClient, queue: () => Promise<T>): Promise<T> {
  await db.query(`CREATE OR REPLACE FUNCTION hold_delivery() RETURNS trigger AS $$ BEGIN NEW.next_attempt_at := now() + interval '1 day'; RETURN NEW; END $$ LANGUAGE plpgsql`);
  await db.query(`DROP TRIGGER IF EXISTS hold_delivery ON deliveries`);
  await db.query(`CREATE TRIGGER hold_delivery BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION hold_delivery()`);
  try {
    return await queue();
  } finally {
    await db.query(`DROP TRIGGER IF EXISTS hold_delivery ON deliveries`);
  }
}

async function releaseHeld(db: SqlClient): Promise<void> {
  await db.query(`UPDATE deliveries SET next_attempt_at = now() WHERE state <> 'done' AND next_attempt_at > now() + interval '1 hour'`);
}
