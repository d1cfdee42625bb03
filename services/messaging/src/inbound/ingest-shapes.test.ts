import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { type SmtpSink, startSmtpSink } from '../../../../test/support/smtp-sink';
import { type MessagingHarness, openMessaging } from '../testing/harness';

/**
 * Inbound mail in the shapes people's mail actually takes is recorded, not only classified: an
 * auto-reply with no body, a reply with no Subject, a reply that is HTML only (inside
 * multipart/related, as clients send an HTML reply with an inline image).
 */
describe.each(sqlBackends())('inbound mail of every shape, recorded, on $name', (backend) => {
  let sink: SmtpSink;
  let h: MessagingHarness;
  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await openMessaging(backend, { SMTP_URL: sink.url, MAIL_DOMAIN: 'mail.example.com' });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  /** A send that went out, and the Message-ID an answer names. */
  async function sent(email: string): Promise<{ id: string; messageId: string }> {
    const contactId = await h.contact(email);
    const queued = await h.messaging.service.sends.queue({ workspaceId: h.workspaceId, actorUserId: h.userId }, { contact_id: contactId, subject: 'Quick question', body: '<p>Hi</p>' });
    await expectEventually(async () => expect((await h.messaging.service.sentEmails.get(h.workspaceId, String(queued.id))).status).toBe('sent'));
    return { id: String(queued.id), messageId: String(queued.message_id) };
  }
  const message = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`);
  const touchpoints = async (sendId: string) =>
    (
      await h.db.query<{ source: string; summary: string }>(
        `SELECT source, summary FROM touchpoints WHERE workspace_id = $1::uuid AND (source_id = $2::uuid OR source_id IN (SELECT id FROM email_events WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid))`,
        [h.workspaceId, sendId],
      )
    ).rows;
  const replies = async (sendId: string) =>
    (await h.db.query<{ detail: string | null }>(`SELECT detail FROM email_events WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid AND event_type = 'reply'`, [h.workspaceId, sendId])).rows;

  test('an auto-reply with no body at all is recorded as an automatic reply', async () => {
    const send = await sent('away@example.org');
    const result = await h.messaging.service.inbound.ingest(
      message(['From: away@example.org', 'To: ann@sender.example', 'Subject: Out of office', `In-Reply-To: ${send.messageId}`, 'Auto-Submitted: auto-replied', '']),
    );
    expect(result).toMatchObject({ kind: 'auto_reply', sentEmailId: send.id });
    expect(await touchpoints(send.id)).toContainEqual({ source: 'inbound_email', summary: 'Automatic reply: Out of office' });
    expect(await replies(send.id)).toEqual([]);
  });

  test('a reply without a Subject is a reply', async () => {
    const send = await sent('nosubject@example.org');
    const result = await h.messaging.service.inbound.ingest(
      message(['From: nosubject@example.org', 'To: ann@sender.example', `In-Reply-To: ${send.messageId}`, 'Content-Type: text/plain; charset=utf-8', '', 'Yes, Tuesday works.']),
    );
    expect(result).toMatchObject({ kind: 'reply', sentEmailId: send.id });
    expect(await replies(send.id)).toEqual([{ detail: 'Yes, Tuesday works.' }]);
  });

  test('a reply that is HTML only, inside multipart/related with an inline image, is a reply with its words', async () => {
    const send = await sent('html@example.org');
    const result = await h.messaging.service.inbound.ingest(
      message([
        'From: html@example.org',
        'To: ann@sender.example',
        'Subject: Re: Quick question',
        `In-Reply-To: ${send.messageId}`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/related; boundary="rel"',
        '',
        '--rel',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<html><body><div>Yes, <b>Tuesday</b> works.</div><img src="cid:logo@example.org"></body></html>',
        '--rel',
        'Content-Type: image/png',
        'Content-ID: <logo@example.org>',
        'Content-Transfer-Encoding: base64',
        '',
        'iVBORw0KGgo=',
        '--rel--',
      ]),
    );
    expect(result).toMatchObject({ kind: 'reply', sentEmailId: send.id });
    expect(await replies(send.id)).toEqual([{ detail: 'Yes, Tuesday works.' }]);
  });
});
