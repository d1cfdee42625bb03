import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import { createMailClassifier, type InboundMail } from './mail-classifier';

/**
 * Real replies and auto-replies (the fixtures), their headers kept and their bodies rebuilt in the
 * shapes mail clients and servers produce: no body, no Subject, HTML only, alternative parts,
 * attachments, related parts, quoted-printable and base64, UTF-8 and Latin-1, LF or CRLF, folded
 * headers, a missing closing boundary. Each still classifies as its original did, with the same
 * sends named, and its words are still read.
 */

const parser = createMailClassifier({ mailDomain: 'mail.example.com' });
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

const REAL_MESSAGES = ['gmail-reply.eml', 'outlook-reply.eml', 'gmail-vacation-auto-reply.eml', 'outlook-out-of-office.eml', 'autoresponder-precedence.eml'];

/** The header block's fields, each with its folded lines, without the ones that describe the body. */
function headerFields(raw: string, dropSubject: boolean): string[] {
  const end = raw.search(/\r?\n\r?\n/);
  const lines = raw.slice(0, end < 0 ? raw.length : end).split(/\r?\n/);
  const fields: string[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += `\n${line}`;
    else fields.push(line);
  }
  const bodyHeaders = /^(content-type|content-transfer-encoding|mime-version|content-disposition)\s*:/i;
  return fields.filter((field) => !bodyHeaders.test(field) && !(dropSubject && /^subject\s*:/i.test(field)));
}

type Encoding = '8bit' | 'quoted-printable' | 'base64';
type Charset = 'utf-8' | 'iso-8859-1';
type Shape = 'bare' | 'plain' | 'html' | 'alternative' | 'mixed' | 'related';

interface Variation {
  message: string;
  dropSubject: boolean;
  text: string;
  shape: Shape;
  encoding: Encoding;
  charset: Charset;
  crlf: boolean;
  truncated: boolean;
  foldIds: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One leaf part: its headers and its encoded content. */
function leaf(type: string, content: string, v: Variation): string[] {
  // Latin-1 only carries what it can represent; anything else goes as UTF-8, as a client would.
  const charset = v.charset === 'iso-8859-1' && /^[\u0000-\u00ff]*$/.test(content) ? 'iso-8859-1' : 'utf-8';
  const bytes = Buffer.from(content, charset === 'utf-8' ? 'utf8' : 'latin1');
  const body =
    v.encoding === 'base64'
      ? (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\n')
      : v.encoding === 'quoted-printable'
        ? qpWrap(qpEncode(bytes), 76)
        : // 8bit: the bytes themselves, one character per byte (the message is assembled as bytes).
          bytes.toString('latin1');
  return [`Content-Type: ${type}; charset="${charset}"`, `Content-Transfer-Encoding: ${v.encoding}`, '', body];
}

function multipart(subtype: string, boundary: string, parts: string[][], truncated: boolean): string[] {
  const lines = [`Content-Type: multipart/${subtype}; boundary="${boundary}"`, '', 'This is a multi-part message in MIME format.'];
  for (const part of parts) lines.push(`--${boundary}`, ...part);
  if (!truncated) lines.push(`--${boundary}--`, '');
  return lines;
}

/** The raw message's bytes: each line a string of one character per byte. */
function build(v: Variation): Buffer {
  let fields = headerFields(Buffer.from(fixture(v.message), 'utf8').toString('latin1'), v.dropSubject);
  if (v.foldIds) fields = fields.map((field) => field.replace(/^(In-Reply-To|References):\s*/i, (_m, name: string) => `${name}:\n\t`));
  const html = `<html><body><div>${escapeHtml(v.text).replace(/\n/g, '<br>')}</div></body></html>`;
  const attachment = ['Content-Type: application/pdf; name="terms.pdf"', 'Content-Disposition: attachment; filename="terms.pdf"', 'Content-Transfer-Encoding: base64', '', randomBytes(300).toString('base64')];
  const image = ['Content-Type: image/png', 'Content-ID: <logo@example.org>', 'Content-Transfer-Encoding: base64', '', randomBytes(120).toString('base64')];
  const alternative = () => multipart('alternative', 'alt-b0undary', [leaf('text/plain', v.text, v), leaf('text/html', html, v)], false);
  const body: string[] =
    v.shape === 'bare'
      ? ['', v.text]
      : v.shape === 'plain'
        ? leaf('text/plain', v.text, v)
        : v.shape === 'html'
          ? leaf('text/html', html, v)
          : v.shape === 'alternative'
            ? multipart('alternative', 'alt-b0undary', [leaf('text/plain', v.text, v), leaf('text/html', html, v)], v.truncated)
            : v.shape === 'mixed'
              ? multipart('mixed', 'mix-b0undary', [alternative(), attachment], v.truncated)
              : multipart('related', 'rel-b0undary', [leaf('text/html', html, v), image], v.truncated);
  const lines = [...fields, 'MIME-Version: 1.0', ...body];
  return Buffer.from(lines.join('\n').replace(/\r?\n/g, v.crlf ? '\r\n' : '\n'), 'latin1');
}

const words = fc.constantFrom('Yes', 'Tuesday', 'works', 'merci', 'beaucoup', 'zurück', 'mañana', 'ça', 'va', 'Grüße', 'señor', '10:30', 'ok', '😀', 'déjà-vu');
const text = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\n') },
  { weight: 4, arbitrary: fc.array(fc.array(words, { minLength: 1, maxLength: 8 }).map((line) => line.join(' ')), { minLength: 1, maxLength: 4 }).map((lines) => lines.join('\n')) },
);
const variation: fc.Arbitrary<Variation> = fc.record({
  message: fc.constantFrom(...REAL_MESSAGES),
  dropSubject: fc.boolean(),
  text,
  shape: fc.constantFrom<Shape>('bare', 'plain', 'html', 'alternative', 'mixed', 'related'),
  encoding: fc.constantFrom<Encoding>('8bit', 'quoted-printable', 'base64'),
  charset: fc.constantFrom<Charset>('utf-8', 'iso-8859-1'),
  crlf: fc.boolean(),
  truncated: fc.boolean(),
  foldIds: fc.boolean(),
});

const squash = (value: string) => value.replace(/\s+/g, ' ').trim();
const matching = (mail: InboundMail) => ({ kind: mail.kind, sentEmailIds: 'sentEmailIds' in mail ? mail.sentEmailIds : [] });

describe('inbound mail of every shape', () => {
  const originals = new Map<string, { kind: string; sentEmailIds: string[] }>();
  const subjects = new Map<string, string>();
  beforeAll(async () => {
    for (const name of REAL_MESSAGES) {
      const mail = await parser.parse(fixture(name));
      originals.set(name, matching(mail));
      subjects.set(name, mail.subject);
    }
  });

  test('the real messages are replies and auto-replies that name a send', () => {
    expect([...originals.values()].map((o) => o.kind).sort()).toEqual(['auto_reply', 'auto_reply', 'auto_reply', 'reply', 'reply']);
    for (const original of originals.values()) expect(original.sentEmailIds.length).toBeGreaterThan(0);
  });

  test('a rebuilt body keeps the message what it was, and its words are read', async () => {
    await fc.assert(
      fc.asyncProperty(variation, async (v) => {
        // A message without a Content-Type is US-ASCII text (RFC 2045): only ASCII goes bare.
        const shape = v.shape === 'bare' && !/^[\u0000-\u007f]*$/.test(v.text) ? 'plain' : v.shape;
        const mail = await parser.parse(build({ ...v, shape }));
        expect(matching(mail)).toEqual(originals.get(v.message));
        expect(mail.subject).toBe(v.dropSubject ? '' : subjects.get(v.message));
        if ((mail.kind === 'reply' || mail.kind === 'auto_reply') && squash(v.text)) {
          expect(squash(mail.text)).toContain(squash(v.text));
        }
      }),
      { numRuns: 300 },
    );
  });
});
