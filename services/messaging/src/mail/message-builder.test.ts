import fc from 'fast-check';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { buildMessage, headerText, MessageBuildError, type MessageInput } from './message-builder';
import { createTrackingTokens } from './tracking';

const ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const PREVIOUS = '0190a1b2-0000-7e5f-8a9b-0c1d2e3f4a5b';
const tokens = createTrackingTokens({ secret: 'test-secret-of-at-least-16-bytes' });
const unsubscribeToken = tokens.sign({ kind: 'unsubscribe', sentEmailId: ID });

const base = (): MessageInput => ({
  sentEmailId: ID,
  mailDomain: 'mail.example.com',
  publicUrl: 'https://crm.example.com/',
  from: { address: 'ann@sender.example', name: 'Ann Owner' },
  to: { address: 'bob@example.org', name: 'Bob Contact' },
  subject: 'Quick question, Bob',
  html: '<p>Hello <b>Bob</b>,</p><p>Are you free on Tuesday?</p>',
  text: 'Hello Bob,\n\nAre you free on Tuesday?',
  unsubscribeToken,
  date: new Date('2025-03-04T10:00:00Z'),
});

const parse = async (input: MessageInput) => {
  const built = await buildMessage(input);
  return { built, parsed: await simpleParser(built.raw) };
};
const headerLine = (parsed: ParsedMail, key: string) => parsed.headerLines.find((h) => h.key === key)?.line.replace(/\r\n[ \t]/g, ' ');
const firstAddress = (value: AddressObject | AddressObject[] | undefined) => (Array.isArray(value) ? value[0] : value)?.value[0];
// Header names of the top-level header block only, one entry per line that starts a header.
const topHeaderNames = (raw: Buffer) =>
  raw
    .toString('utf8')
    .split('\r\n\r\n')[0]!
    .split('\r\n')
    .filter((line) => !/^[ \t]/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
const EXPECTED_HEADERS = [
  'content-type',
  'date',
  'from',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'message-id',
  'mime-version',
  'subject',
  'to',
];

describe('buildMessage', () => {
  it('builds the message mail/README.md describes and mailparser reads it back', async () => {
    const { built, parsed } = await parse(base());
    expect(built.messageId).toBe(`<${ID}@mail.example.com>`);
    expect(built.envelope).toEqual({ from: `bounces+${ID}@mail.example.com`, to: ['bob@example.org'] });
    expect(parsed.messageId).toBe(`<${ID}@mail.example.com>`);
    expect(parsed.subject).toBe('Quick question, Bob');
    expect(firstAddress(parsed.from)).toEqual({ address: 'ann@sender.example', name: 'Ann Owner' });
    expect(firstAddress(parsed.to)).toEqual({ address: 'bob@example.org', name: 'Bob Contact' });
    expect(headerLine(parsed, 'list-unsubscribe')).toBe(`List-Unsubscribe: <https://crm.example.com/u/${unsubscribeToken}>`);
    expect(headerLine(parsed, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(parsed.date?.toISOString()).toBe('2025-03-04T10:00:00.000Z');
    expect((parsed.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    expect(parsed.html).toBe(base().html);
    expect(parsed.text).toBe(base().text);
    expect(parsed.inReplyTo).toBeUndefined();
    expect(parsed.references).toBeUndefined();
    expect(topHeaderNames(built.raw).sort()).toEqual(EXPECTED_HEADERS);
    expect(built.raw.toString('utf8')).not.toMatch(/[^\r]\n/);
    expect(built.raw.toString('utf8')).not.toMatch(/^Return-Path:/im);
  });

  it('puts a follow-up in its thread with one Re:', async () => {
    const previous = `<${PREVIOUS}@mail.example.com>`;
    const { parsed } = await parse({ ...base(), thread: { messageIds: ['<first@mail.example.com>', previous] } });
    expect(parsed.inReplyTo).toBe(previous);
    expect(parsed.references).toEqual(['<first@mail.example.com>', previous]);
    expect(parsed.subject).toBe('Re: Quick question, Bob');
    for (const subject of ['Re: Quick question', 'RE: Quick question', 're:Quick question']) {
      const { parsed: again } = await parse({ ...base(), subject, thread: { messageIds: [previous] } });
      expect(again.subject).toBe(subject);
    }
  });

  it('trims a long thread to the first and the last nine references', async () => {
    const ids = Array.from({ length: 15 }, (_, i) => `<m${i}@mail.example.com>`);
    const { parsed } = await parse({ ...base(), thread: { messageIds: ids } });
    expect(parsed.references).toEqual([ids[0], ...ids.slice(6)]);
    expect(parsed.inReplyTo).toBe(ids[14]);
  });

  it('uses the From address as envelope sender with verp: false', async () => {
    const built = await buildMessage({ ...base(), verp: false });
    expect(built.envelope).toEqual({ from: 'ann@sender.example', to: ['bob@example.org'] });
  });

  it('adds Reply-To when asked', async () => {
    const { parsed } = await parse({ ...base(), replyTo: { address: 'replies@sender.example' } });
    expect(firstAddress(parsed.replyTo)).toEqual({ address: 'replies@sender.example', name: '' });
  });

  it('encodes non-ASCII subjects, names and bodies', async () => {
    const { parsed } = await parse({
      ...base(),
      subject: 'Ünïcödé ✓ 日本語の件名',
      to: { address: 'zoë@exämple.org', name: 'Zoë "Z" Müller, PhD' },
      html: '<p>Grüße 👋</p>',
      text: 'Grüße 👋',
    });
    expect(parsed.subject).toBe('Ünïcödé ✓ 日本語の件名');
    expect(firstAddress(parsed.to)?.name).toBe('Zoë "Z" Müller, PhD');
    expect(parsed.html).toBe('<p>Grüße 👋</p>');
    expect(parsed.text).toBe('Grüße 👋');
  });

  it('cannot be made to inject a header through the subject or a name', async () => {
    const { built, parsed } = await parse({
      ...base(),
      subject: 'Hi\r\nBcc: victim@example.net\r\n\r\n<script>',
      to: { address: 'bob@example.org', name: 'Bob\r\nBcc: victim@example.net' },
      from: { address: 'ann@sender.example', name: 'Ann\nX-Injected: yes' },
    });
    expect(topHeaderNames(built.raw).sort()).toEqual(EXPECTED_HEADERS);
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.subject).toBe('Hi Bcc: victim@example.net <script>');
    expect(firstAddress(parsed.to)).toEqual({ address: 'bob@example.org', name: 'Bob Bcc: victim@example.net' });
    expect(built.envelope.to).toEqual(['bob@example.org']);
  });

  it.each([
    ['to', { address: 'bob@example.org\r\nBcc: victim@example.net' }],
    ['to', { address: 'bob@example.org, victim@example.net' }],
    ['to', { address: '"quoted local"@example.org' }],
    ['to', { address: 'no-at-sign' }],
    ['to', { address: 'bob@' }],
    ['to', { address: 'bob@exa mple.org' }],
    ['from', { address: '<ann@sender.example>' }],
  ])('refuses the address %s %j', async (field, address) => {
    await expect(buildMessage({ ...base(), [field]: address })).rejects.toMatchObject({ code: 'invalid_address', field });
  });

  it('refuses ids, domains, tokens and URLs that could reach a header unchecked', async () => {
    const cases: [Partial<MessageInput>, string][] = [
      [{ sentEmailId: 'x\r\nBcc: a@b' }, 'sentEmailId'],
      [{ mailDomain: 'mail.example.com>\r\nX: y' }, 'mailDomain'],
      [{ unsubscribeToken: 'tok>\r\nBcc: a@b.c' }, 'unsubscribeToken'],
      [{ publicUrl: 'javascript:alert(1)' }, 'publicUrl'],
      [{ publicUrl: 'https://crm.example.com/?a=b' }, 'publicUrl'],
      [{ thread: { messageIds: ['<a@b>\r\nBcc: x@y'] } }, 'thread.messageIds[0]'],
      [{ thread: { messageIds: ['not an id'] } }, 'thread.messageIds[0]'],
    ];
    for (const [patch, field] of cases) {
      const error = await buildMessage({ ...base(), ...patch }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessageBuildError);
      expect(error).toMatchObject({ field });
    }
  });

  it('keeps a path prefix of PUBLIC_URL in the unsubscribe link', async () => {
    const { parsed } = await parse({ ...base(), publicUrl: 'https://example.com/crm/' });
    expect(headerLine(parsed, 'list-unsubscribe')).toBe(`List-Unsubscribe: <https://example.com/crm/u/${unsubscribeToken}>`);
  });

  it('round-trips any subject and display name, and never adds a header', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: fc.constantFrom('a', ' ', '\r', '\n', '\t', ':', '"', '<', '>', ',', ';', '=', '?', 'é', '日', '\\'), maxLength: 80 }),
    );
    await fc.assert(
      fc.asyncProperty(text, text, async (subject, name) => {
        const { built, parsed }: { built: { raw: Buffer }; parsed: ParsedMail } = await parse({ ...base(), subject, to: { address: 'bob@example.org', name } });
        expect(topHeaderNames(built.raw).filter((h) => h !== 'subject').sort()).toEqual(EXPECTED_HEADERS.filter((h) => h !== 'subject'));
        expect(parsed.subject ?? '').toBe(headerText(subject));
        expect(firstAddress(parsed.to)).toEqual({ address: 'bob@example.org', name: headerText(name) });
      }),
      { numRuns: 150 },
    );
  });
});
