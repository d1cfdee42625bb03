import { simpleParser } from 'mailparser';
import { createMailClassifier } from './mail-classifier';
import { buildMessage } from '../mail/message-builder';
import { createTemplateRenderer } from '../mail/template-renderer';
import { createTrackingTokens, insertOpenPixel, rewriteLinks, trackingUrl } from '../mail/tracking';

// The modules as the service chains them for one send, and what comes back.
describe('one send through the mail core', () => {
  const renderer = createTemplateRenderer({ workers: 1 });
  afterAll(() => renderer.close());

  it('renders, tracks, builds, and recognises the reply and the bounce it gets', async () => {
    const sentEmailId = '0195a3c2-7b1e-7d4a-9f3b-2c8e5a1d4fff';
    const mailDomain = 'mail.example.com';
    const publicUrl = 'https://crm.example.com';
    const tokens = createTrackingTokens({ secret: 'test-secret-of-at-least-16-bytes' });

    const rendered = await renderer.render(
      { subject: 'Quick question, {{ first_name }}', body: '<html><body><p>Hi {{ first_name }}, see <a href="https://example.com/pricing?a=1&amp;b=2">pricing</a>.</p></body></html>' },
      { first_name: 'Bob <3' },
    );
    const { html: linked, links } = rewriteLinks(rendered.html, { publicUrl, sentEmailId, tokens });
    const html = insertOpenPixel(linked, trackingUrl(publicUrl, 'open', tokens.sign({ kind: 'open', sentEmailId })));
    const built = await buildMessage({
      sentEmailId,
      mailDomain,
      publicUrl,
      from: { address: 'ann@sender.example', name: 'Ann Owner' },
      to: { address: 'bob@example.org' },
      subject: rendered.subject,
      html,
      text: rendered.text,
      unsubscribeToken: tokens.sign({ kind: 'unsubscribe', sentEmailId }),
    });

    const sent = await simpleParser(built.raw);
    expect(sent.subject).toBe('Quick question, Bob <3');
    expect(sent.html).toContain('Hi Bob &lt;3, see <a href="https://crm.example.com/t/c/');
    expect(links).toEqual(['https://example.com/pricing?a=1&b=2']);
    const click = /\/t\/c\/([A-Za-z0-9_-]+)/.exec(sent.html as string)![1]!;
    expect(tokens.verify('click', click)).toEqual({ kind: 'click', sentEmailId, linkIndex: 0 });
    const open = /\/t\/o\/([A-Za-z0-9_-]+)/.exec(sent.html as string)![1]!;
    expect(tokens.verify('open', open)).toEqual({ kind: 'open', sentEmailId });
    expect(sent.text).toBe('Hi Bob <3, see pricing [https://example.com/pricing?a=1&b=2].');

    const inbound = createMailClassifier({ mailDomain });
    const reply = [
      'From: Bob <bob@example.org>',
      'To: Ann Owner <ann@sender.example>',
      `Subject: Re: ${sent.subject}`,
      `In-Reply-To: ${built.messageId}`,
      `References: ${built.messageId}`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Yes, Tuesday works.',
      '',
    ].join('\r\n');
    expect(await inbound.parse(reply)).toMatchObject({ kind: 'reply', sentEmailIds: [sentEmailId], replyText: 'Yes, Tuesday works.' });

    const bounce = [
      'From: MAILER-DAEMON@mx.example.org (Mail Delivery System)',
      `To: ${built.envelope.from}`,
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'It failed.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.org',
      '',
      'Final-Recipient: rfc822; bob@example.org',
      'Action: failed',
      'Status: 5.1.1',
      '',
      '--b',
      'Content-Type: text/rfc822-headers',
      '',
      built.raw.toString('utf8').split('\r\n\r\n')[0],
      '',
      '--b--',
      '',
    ].join('\r\n');
    expect(await inbound.parse(bounce, { envelopeRecipients: [built.envelope.from] })).toMatchObject({
      kind: 'bounce',
      severity: 'hard',
      sentEmailIds: [sentEmailId],
      originalMessageId: built.messageId,
    });
  });
});
