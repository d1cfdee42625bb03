import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createMailClassifier, InboundError, stripQuoted, type InboundMail } from './mail-classifier';

const parser = createMailClassifier({ mailDomain: 'mail.example.com' });
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name));
const parse = (name: string, envelopeRecipients?: string[]) => parser.parse(fixture(name), envelopeRecipients ? { envelopeRecipients } : {});
const id = (suffix: string) => `0195a3c2-7b1e-7d4a-9f3b-2c8e5a1d4f${suffix}`;
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InboundError);
  return error as InboundError;
};

describe('inbound parser: bounces', () => {
  it('reads a Gmail bounce (5.1.1) as hard, matched by its VERP recipient and the returned Message-ID', async () => {
    const mail = await parse('gmail-bounce-5.1.1.eml');
    expect(mail).toMatchObject({
      kind: 'bounce',
      severity: 'hard',
      recipient: {
        finalRecipient: 'no.such.person@example.org',
        action: 'failed',
        status: '5.1.1',
        diagnosticCode: '550 5.1.1 <no.such.person@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
      },
      sentEmailIds: [id('01')],
      originalMessageId: `<${id('01')}@mail.example.com>`,
      from: { address: 'mailer-daemon@googlemail.com', name: 'Mail Delivery Subsystem' },
      subject: 'Delivery Status Notification (Failure)',
    });
  });

  it('reads an Exchange Online NDR (5.1.10) as hard, matched by the returned headers when no VERP was used', async () => {
    const mail = await parse('outlook-ndr-5.1.10.eml');
    expect(mail).toMatchObject({
      kind: 'bounce',
      severity: 'hard',
      recipient: {
        finalRecipient: 'carol.former@contoso.com',
        originalRecipient: 'carol.former@contoso.com',
        status: '5.1.10',
        diagnosticCode: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
      },
      sentEmailIds: [id('02')],
      originalMessageId: `<${id('02')}@mail.example.com>`,
    });
  });

  it('reads a Postfix bounce (5.1.1) as hard', async () => {
    const mail = await parse('postfix-bounce-5.1.1.eml');
    expect(mail).toMatchObject({
      kind: 'bounce',
      severity: 'hard',
      recipient: { finalRecipient: 'dave@example.net', status: '5.1.1', remoteMta: 'mailstore1.example.net' },
      sentEmailIds: [id('03')],
    });
  });

  it('reads a Postfix mailbox-full failure (4.2.2) as soft, and takes the SMTP envelope recipient first', async () => {
    const mail = await parse('postfix-bounce-4.2.2-mailbox-full.eml', [`bounces+${id('99')}@MAIL.EXAMPLE.COM`]);
    expect(mail).toMatchObject({
      kind: 'bounce',
      severity: 'soft',
      recipient: { action: 'failed', status: '4.2.2', diagnosticCode: '452 4.2.2 <erin@example.net>: Mailbox full' },
      originalMessageId: `<${id('04')}@mail.example.com>`,
    });
    expect((mail as Extract<InboundMail, { kind: 'bounce' }>).sentEmailIds).toEqual([id('99'), id('04')]);
  });

  it('reads a delay notice as delayed, which is not a bounce', async () => {
    const mail = await parse('postfix-delayed.eml');
    expect(mail).toMatchObject({
      kind: 'delayed',
      recipients: [{ finalRecipient: 'frank@slow.example', action: 'delayed', status: '4.4.1' }],
      sentEmailIds: [id('05')],
    });
  });

  it('still reads a bounce truncated in the middle of its report', async () => {
    const mail = await parse('truncated-bounce.eml');
    expect(mail).toMatchObject({ kind: 'bounce', severity: 'hard', recipient: { status: '5.1.1' }, sentEmailIds: [id('03')] });
  });

  it('ignores a VERP address or Message-ID of another domain', async () => {
    const raw = fixture('postfix-bounce-5.1.1.eml').toString('utf8').replaceAll('mail.example.com', 'mail.other.example');
    expect(await parser.parse(raw)).toMatchObject({ kind: 'bounce', sentEmailIds: [], originalMessageId: `<${id('03')}@mail.other.example>` });
    const bare = fixture('postfix-bounce-5.1.1.eml').toString('utf8').replace(/^(Message-ID|To|Return-Path|X-Postfix-Sender): .*\n/gm, '');
    expect(await parser.parse(bare)).toMatchObject({ kind: 'unmatched', reason: 'bounce that names no message of ours' });
  });

  it('grades a failure without a usable Status by its SMTP code, and unknown as soft', async () => {
    const base = fixture('postfix-bounce-5.1.1.eml').toString('utf8');
    const noStatus = base.replace('Status: 5.1.1\n', '');
    expect(await parser.parse(noStatus)).toMatchObject({ kind: 'bounce', severity: 'hard' });
    const nothing = noStatus.replace(/Diagnostic-Code: smtp; 550 5\.1\.1 <dave@example\.net>: Recipient address\n {4}rejected: User unknown in local recipient table\n/, '');
    expect(await parser.parse(nothing)).toMatchObject({ kind: 'bounce', severity: 'soft', recipient: { action: 'failed' } });
  });

  it('reads a base64-encoded delivery-status part', async () => {
    const base = fixture('postfix-delayed.eml').toString('utf8');
    const [head, report, rest] = base.split(/(?<=Content-Type: message\/delivery-status\n\n)([\s\S]*?)(?=\n--4Z7kTt6wQrz5vXy)/);
    const encoded = `${head!.replace('Content-Type: message/delivery-status\n', 'Content-Type: message/delivery-status\nContent-Transfer-Encoding: base64\n')}${Buffer.from(report!).toString('base64').replace(/.{76}/g, '$&\n')}${rest}`;
    expect(await parser.parse(encoded)).toMatchObject({ kind: 'delayed', recipients: [{ status: '4.4.1' }] });
  });
});

describe('inbound parser: auto-replies', () => {
  it('reads a Gmail vacation responder (Auto-Submitted: auto-replied) as an auto-reply, not a reply', async () => {
    const mail = await parse('gmail-vacation-auto-reply.eml');
    expect(mail).toMatchObject({
      kind: 'auto_reply',
      markers: ['auto-submitted: auto-replied'],
      sentEmailIds: [id('06')],
      from: { address: 'grace@example.com', name: 'Grace Hopper' },
    });
    expect((mail as { text: string }).text).toMatch(/^Thanks for your email\. I'm out of the office/);
  });

  it('reads an Outlook automatic reply (auto-generated) as an auto-reply', async () => {
    const mail = await parse('outlook-out-of-office.eml');
    expect(mail).toMatchObject({ kind: 'auto_reply', markers: ['auto-submitted: auto-generated'], sentEmailIds: [id('07')] });
    expect((mail as { text: string }).text).toContain('Irène Dupont');
  });

  it('reads an autoresponder sent to the return path (X-Autorespond, Precedence: auto_reply)', async () => {
    const mail = await parse('autoresponder-precedence.eml');
    expect(mail).toMatchObject({
      kind: 'auto_reply',
      markers: ["x-autorespond: Thank you for contacting Ivy's Bakery", 'precedence: auto_reply', 'x-precedence: auto_reply'],
      sentEmailIds: [id('0b')],
      referencedMessageIds: [],
    });
  });

  it('counts Precedence: bulk only on mail that answers one of ours', async () => {
    expect(await parse('newsletter-unmatched.eml')).toMatchObject({ kind: 'unmatched' });
    const answer = `In-Reply-To: <${id('08')}@mail.example.com>\nPrecedence: bulk\n${fixture('reply-without-from.eml').toString('utf8').split('\n').slice(1).join('\n')}`;
    expect(await parser.parse(answer)).toMatchObject({ kind: 'auto_reply', markers: ['precedence: bulk'], sentEmailIds: [id('08')] });
  });

  it('does not take Auto-Submitted: no or X-Auto-Response-Suppress for an auto-reply', async () => {
    const raw = fixture('gmail-reply.eml').toString('utf8').replace('MIME-Version: 1.0\n', 'MIME-Version: 1.0\nAuto-Submitted: no\nX-Auto-Response-Suppress: All\n');
    expect(await parser.parse(raw)).toMatchObject({ kind: 'reply' });
  });
});

describe('inbound parser: replies', () => {
  it('reads a Gmail reply, its referenced ids and its own words', async () => {
    const mail = await parse('gmail-reply.eml');
    expect(mail).toMatchObject({
      kind: 'reply',
      sentEmailIds: [id('08')],
      referencedMessageIds: [`<${id('08')}@mail.example.com>`],
      from: { address: 'bob.contact@gmail.com', name: 'Bob Contact' },
      subject: 'Re: Quick question, Bob',
      messageId: '<CAH7r2kVf+Xq8sWn0p3Lm9zQ4dT6yB1cJ5oE2uA7gR9hN3wK8iQ@mail.gmail.com>',
      replyText: 'Hi Ann,\n\nTuesday works for me. How about 3pm CET?\n\nBob',
    });
    expect((mail as { date: Date }).date.toISOString()).toBe('2025-03-04T14:11:56.000Z');
    expect((mail as { text: string }).text).toContain('> Are you free for a quick call on Tuesday?');
  });

  it('reads an Outlook reply to a follow-up, the direct parent first', async () => {
    const mail = await parse('outlook-reply.eml');
    expect(mail).toMatchObject({
      kind: 'reply',
      sentEmailIds: [id('0a'), id('09')],
      referencedMessageIds: [`<${id('0a')}@mail.example.com>`, `<${id('09')}@mail.example.com>`],
      replyText: "Hi Ann,\n\nSorry for the slow reply. Let's talk next week, Wednesday morning suits me.\n\nBest,\nJudy",
    });
  });

  it('reads a reply that names only foreign Message-IDs, for the service to match against stored ones', async () => {
    const raw = fixture('gmail-reply.eml').toString('utf8').replaceAll(`<${id('08')}@mail.example.com>`, '<0100018f2a@email.amazonses.com>');
    expect(await parser.parse(raw)).toMatchObject({ kind: 'reply', sentEmailIds: [], referencedMessageIds: ['<0100018f2a@email.amazonses.com>'] });
  });

  it('reads a reply that lacks From, Date, Subject and Message-ID', async () => {
    const mail = await parse('reply-without-from.eml');
    expect(mail).toEqual({
      kind: 'reply',
      subject: '',
      sentEmailIds: [id('08')],
      referencedMessageIds: [`<${id('08')}@mail.example.com>`],
      text: 'sounds good\n',
      replyText: 'sounds good',
    });
  });
});

describe('inbound parser: everything else', () => {
  it('leaves unrelated mail unmatched', async () => {
    expect(await parse('newsletter-unmatched.eml')).toMatchObject({
      kind: 'unmatched',
      reason: 'neither a reply, an auto-reply nor a delivery report',
      from: { address: 'digest@news.example' },
    });
  });

  it('refuses binary garbage, text without headers and empty input with a typed error', async () => {
    expect(await refusal(parse('binary-garbage.eml'))).toMatchObject({ code: 'malformed' });
    expect(await refusal(parse('missing-headers.eml'))).toMatchObject({ code: 'malformed' });
    expect(await refusal(parser.parse(Buffer.alloc(0)))).toMatchObject({ code: 'empty' });
    expect(await refusal(parser.parse(' \r\n\r\n '))).toMatchObject({ code: 'empty' });
    expect(await refusal(parser.parse(42 as unknown as Buffer))).toMatchObject({ code: 'malformed' });
  });

  it('refuses input over the size limit before parsing it', async () => {
    const small = createMailClassifier({ mailDomain: 'mail.example.com', maxBytes: 1024 });
    expect(await refusal(small.parse(fixture('gmail-bounce-5.1.1.eml')))).toMatchObject({ code: 'too_large' });
    expect(() => createMailClassifier({ mailDomain: 'not a domain' })).toThrow(InboundError);
  });

  it('classifies or refuses with a typed error, whatever the bytes', async () => {
    const pieces = fc.oneof(
      fc.constantFrom(
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\n',
        'In-Reply-To: <0195a3c2-7b1e-7d4a-9f3b-2c8e5a1d4f08@mail.example.com>\n',
        'Auto-Submitted: auto-replied\n',
        'To: bounces+0195a3c2-7b1e-7d4a-9f3b-2c8e5a1d4f03@mail.example.com\n',
        '\n--b\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; x@y\nAction: failed\nStatus: 5.1.1\n',
        '\n--b--\n',
        '\n\n',
      ),
      fc.string(),
      fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a).toString('latin1')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { maxLength: 12 }), async (parts) => {
        const raw = Buffer.from(parts.join(''), 'latin1');
        const outcome = await parser.parse(raw).then(
          (mail) => mail.kind,
          (error: unknown) => (error instanceof InboundError ? error.code : 'untyped'),
        );
        expect(['reply', 'auto_reply', 'bounce', 'delayed', 'unmatched', 'empty', 'malformed']).toContain(outcome);
      }),
      { numRuns: 300 },
    );
  });
});

describe('stripQuoted', () => {
  it('cuts at the usual attribution lines and keeps text that only looks similar', () => {
    expect(stripQuoted('Yes.\n\nOn Tue, Mar 4, 2025 at 11:00 AM Ann Owner <\nann@sender.example> wrote:\n> hi')).toBe('Yes.');
    expect(stripQuoted('Oui.\n\nLe mar. 4 mars 2025 à 11:00, Ann <ann@sender.example> a écrit :\n> hi')).toBe('Oui.');
    expect(stripQuoted('Sure\n\n-----Original Message-----\nFrom: Ann')).toBe('Sure');
    expect(stripQuoted('Sure\n\nFrom: Ann Owner <ann@sender.example>\nSent: Tuesday\nTo: Judy')).toBe('Sure');
    expect(stripQuoted('On second thought, no.\nThanks')).toBe('On second thought, no.\nThanks');
    expect(stripQuoted('> only quoted\n> text')).toBe('');
  });
});
