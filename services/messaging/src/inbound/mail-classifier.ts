import { compile } from 'html-to-text';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { type DsnRecipient, type BounceSeverity, deliveryReport, dsnSeverity, isMailDomain, messageIdsIn, sentEmailIdFromMessageId, sentEmailIdFromVerp } from '../mail';

/**
 * One classifier for all inbound mail (the SMTP listener on `INBOUND_SMTP_ADDR` and the internal
 * gRPC method both hand it raw RFC 5322 bytes). It only classifies and extracts; matching the ids it
 * returns against sent emails, recording events and suppressing addresses are `ingest.ts`'s. A
 * report's fields are read by `mail/delivery-status.ts`, and graded by `mail/bounce-severity.ts`.
 *
 * Classification, first rule that applies:
 * 1. `bounce` / `delayed`: an RFC 3464 delivery status notification (top-level `multipart/report`
 *    with a `message/delivery-status` part). Any recipient with Action `failed` makes it a bounce,
 *    hard when any failed recipient is hard by `dsnSeverity` (5.x.x), else soft (4.x.x: a
 *    mailbox-full expiry). A
 *    report whose recipients are only `delayed` is `delayed`, which is not a bounce. A report with
 *    only positive actions (delivered, relayed, expanded) is `unmatched`. DSNs come first because
 *    they carry auto-reply markers and our Message-ID too.
 * 2. `auto_reply`: an RFC 3834 `Auto-Submitted` other than `no`, `X-Autoreply`, `X-Autorespond`,
 *    or `Precedence: auto_reply`; `Precedence: bulk|junk` also counts when the message answers one
 *    of our sends (people's mail clients never set Precedence, old vacation programs do; a
 *    newsletter sets it too, which is why it needs the link to a send). `X-Auto-Response-Suppress`
 *    is deliberately ignored: Exchange puts it on ordinary mail as a request to others.
 * 3. `reply`: `In-Reply-To` or `References` names at least one Message-ID.
 * 4. `unmatched`: everything else, and any of the above that names nothing to match it by.
 *
 * Every kind but `unmatched` carries what the service matches on: `sentEmailIds` (ids taken from
 * our own `<{uuid}@{MAIL_DOMAIN}>` Message-IDs and `bounces+{uuid}@{MAIL_DOMAIN}` VERP addresses,
 * strongest evidence first) and the raw Message-IDs, for sends whose Message-ID a provider rewrote.
 */

export interface InboundAddress {
  address: string;
  name: string;
}

interface InboundCommon {
  /** The inbound message's own Message-ID. */
  messageId?: string;
  from?: InboundAddress;
  /** Empty when the message has none. */
  subject: string;
  date?: Date;
}

export type InboundMail =
  | (InboundCommon & {
      kind: 'reply';
      /** Sent email ids named by In-Reply-To and References, the direct parent first. */
      sentEmailIds: string[];
      /** Every Message-ID in In-Reply-To and References, In-Reply-To's first. */
      referencedMessageIds: string[];
      text: string;
      /** Best-effort text without the quoted history ("On … wrote:", Outlook's header block, "> " lines). */
      replyText: string;
    })
  | (InboundCommon & {
      kind: 'auto_reply';
      /** From the VERP address it was sent to (RFC 3834 answers the return path), then the references. */
      sentEmailIds: string[];
      referencedMessageIds: string[];
      /** The markers that made it an auto-reply, as `header: value`. */
      markers: string[];
      text: string;
    })
  | (InboundCommon & {
      kind: 'bounce';
      severity: BounceSeverity;
      /** The failed recipient that decided the severity. */
      recipient: DsnRecipient;
      recipients: DsnRecipient[];
      /** VERP address first, then the returned original's Message-ID, then weaker hints. */
      sentEmailIds: string[];
      /** Message-ID of the returned original message (its headers part), when present. */
      originalMessageId?: string;
    })
  | (InboundCommon & {
      kind: 'delayed';
      recipients: DsnRecipient[];
      sentEmailIds: string[];
      originalMessageId?: string;
    })
  | (InboundCommon & { kind: 'unmatched'; reason: string });

export type InboundKind = InboundMail['kind'];

export type InboundErrorCode = 'empty' | 'too_large' | 'malformed' | 'invalid_option';

/** Input that is not an email at all (everything that is one is classified instead), or a bad option. */
export class InboundError extends Error {
  override readonly name = 'InboundError';
  constructor(
    readonly code: InboundErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface MailClassifierOptions {
  /** `MAIL_DOMAIN`: the domain of our Message-IDs and VERP addresses. */
  mailDomain: string;
  /**
   * Larger input is refused before parsing. Bounces, auto-replies and replies are small; 10 MiB
   * keeps a reply with a modest attachment while bounding the memory one message can take.
   */
  maxBytes?: number;
}

export interface InboundContext {
  /** RCPT TO addresses of the SMTP transaction, when the mail came over SMTP: the surest VERP source. */
  envelopeRecipients?: readonly string[];
}

export interface MailClassifier {
  /** Classifies one raw message. Rejects only with `InboundError`. */
  parse(raw: Buffer | string, context?: InboundContext): Promise<InboundMail>;
}

export const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;

// Headers a delivery agent writes with the envelope recipient, in the order they are trusted.
const RECIPIENT_HEADERS = ['delivered-to', 'x-original-to', 'envelope-to', 'x-envelope-to', 'to', 'cc'];
// At least one of these makes the input an RFC 5322 message rather than text or noise.
const CORE_HEADERS = new Set([
  'from', 'to', 'cc', 'date', 'subject', 'message-id', 'in-reply-to', 'references', 'content-type',
  'mime-version', 'received', 'return-path', 'delivered-to', 'auto-submitted', 'sender', 'reply-to',
]);
export function createMailClassifier(options: MailClassifierOptions): MailClassifier {
  if (!isMailDomain(options.mailDomain)) throw new InboundError('invalid_option', 'mailDomain must be a host name');
  const mailDomain = options.mailDomain;
  const maxBytes = options.maxBytes ?? DEFAULT_INBOUND_MAX_BYTES;

  return {
    async parse(raw, context = {}) {
      const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      if (!Buffer.isBuffer(bytes)) throw new InboundError('malformed', 'the message must be bytes or a string');
      if (bytes.length === 0 || (bytes.length <= 4096 && bytes.toString('latin1').trim() === '')) {
        throw new InboundError('empty', 'the message is empty');
      }
      if (bytes.length > maxBytes) throw new InboundError('too_large', `the message is larger than ${maxBytes} bytes`);

      let parsed: ParsedMail;
      try {
        parsed = await simpleParser(bytes, { skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
      } catch (error) {
        throw new InboundError('malformed', `the message cannot be parsed: ${(error as Error).message}`);
      }
      const headers = rawHeaders(parsed);
      if (![...headers.keys()].some((name) => CORE_HEADERS.has(name))) {
        throw new InboundError('malformed', 'the input has no RFC 5322 header fields');
      }
      try {
        return classify(bytes, parsed, headers, context, mailDomain);
      } catch (error) {
        // classify is written not to throw; this keeps a surprise typed all the same.
        throw new InboundError('malformed', `the message cannot be classified: ${(error as Error).message}`);
      }
    },
  };
}

function classify(
  bytes: Buffer,
  parsed: ParsedMail,
  headers: Map<string, string[]>,
  context: InboundContext,
  mailDomain: string,
): InboundMail {
  const common = commonFields(parsed);
  const verpIds = unique([
    ...(context.envelopeRecipients ?? []).map((a) => sentEmailIdFromVerp(a, mailDomain)),
    ...RECIPIENT_HEADERS.flatMap((name) => (headers.get(name) ?? []).flatMap((v) => verpIdsIn(v, mailDomain))),
  ]);
  const inReplyTo = messageIdsIn((headers.get('in-reply-to') ?? []).join(' '));
  const references = messageIdsIn((headers.get('references') ?? []).join(' '));
  // In-Reply-To names the direct parent; References runs oldest first, so it is read backwards.
  const referencedMessageIds = unique([...inReplyTo, ...references.reverse()]);
  const referencedIds = unique(referencedMessageIds.map((id) => sentEmailIdFromMessageId(id, mailDomain)));

  const report = deliveryReport(bytes, parsed);
  if (report) {
    const sentEmailIds = unique([
      ...verpIds,
      report.originalMessageId && sentEmailIdFromMessageId(report.originalMessageId, mailDomain),
      ...report.hints.flatMap((hint) => [sentEmailIdFromMessageId(hint, mailDomain), ...verpIdsIn(hint, mailDomain)]),
      ...referencedIds,
    ]);
    const linked = sentEmailIds.length > 0 || report.originalMessageId !== undefined;
    const failed = report.recipients.filter((r) => r.action === 'failed');
    if (failed.length > 0) {
      if (!linked) return { ...common, kind: 'unmatched', reason: 'bounce that names no message of ours' };
      const graded = failed.map((recipient) => ({ recipient, severity: dsnSeverity(recipient) }));
      const decisive = graded.find((g) => g.severity === 'hard') ?? graded[0]!;
      return {
        ...common,
        kind: 'bounce',
        severity: decisive.severity,
        recipient: decisive.recipient,
        recipients: report.recipients,
        sentEmailIds,
        ...(report.originalMessageId ? { originalMessageId: report.originalMessageId } : {}),
      };
    }
    if (report.recipients.some((r) => r.action === 'delayed')) {
      if (!linked) return { ...common, kind: 'unmatched', reason: 'delay notice that names no message of ours' };
      return {
        ...common,
        kind: 'delayed',
        recipients: report.recipients,
        sentEmailIds,
        ...(report.originalMessageId ? { originalMessageId: report.originalMessageId } : {}),
      };
    }
    return {
      ...common,
      kind: 'unmatched',
      reason: report.recipients.length ? 'delivery report without failure or delay' : 'delivery report without recipients',
    };
  }

  const text = bodyText(parsed);
  const linkedIds = unique([...verpIds, ...referencedIds]);
  const markers = autoReplyMarkers(headers, linkedIds.length > 0 || referencedMessageIds.length > 0);
  if (markers.length > 0) {
    if (linkedIds.length === 0 && referencedMessageIds.length === 0) {
      return { ...common, kind: 'unmatched', reason: 'auto-reply that names no message' };
    }
    return { ...common, kind: 'auto_reply', sentEmailIds: linkedIds, referencedMessageIds, markers, text };
  }

  if (referencedMessageIds.length > 0) {
    return { ...common, kind: 'reply', sentEmailIds: referencedIds, referencedMessageIds, text, replyText: stripQuoted(text) };
  }
  return { ...common, kind: 'unmatched', reason: 'neither a reply, an auto-reply nor a delivery report' };
}

/**
 * Text a mail without a text part (or with an empty one) still has its words in its HTML:
 * mailparser derives text from a lone HTML part, but not from one inside multipart/related (an
 * HTML reply with an inline image), which is how many clients send HTML-only mail.
 */
const htmlToText = compile({ wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }, { selector: 'a', options: { ignoreHref: true } }] });
function bodyText(parsed: ParsedMail): string {
  if (parsed.text?.trim()) return parsed.text;
  return typeof parsed.html === 'string' && parsed.html ? htmlToText(parsed.html) : (parsed.text ?? '');
}

function commonFields(parsed: ParsedMail): InboundCommon {
  const from = firstAddress(parsed.from);
  return {
    ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
    ...(from ? { from } : {}),
    subject: parsed.subject ?? '',
    ...(parsed.date && !Number.isNaN(parsed.date.getTime()) ? { date: parsed.date } : {}),
  };
}

function firstAddress(value: AddressObject | AddressObject[] | undefined): InboundAddress | undefined {
  const first = (Array.isArray(value) ? value[0] : value)?.value.find((a) => a.address);
  return first?.address ? { address: first.address, name: first.name ?? '' } : undefined;
}

/** Raw header values by lower-cased name, unfolded, in order; mailparser's structured values vary by header. */
function rawHeaders(parsed: ParsedMail): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  for (const { key, line } of parsed.headerLines) {
    const colon = line.indexOf(':');
    const value = (colon < 0 ? '' : line.slice(colon + 1)).replace(/\r?\n[ \t]+/g, ' ').trim();
    headers.set(key, [...(headers.get(key) ?? []), value]);
  }
  return headers;
}

function autoReplyMarkers(headers: Map<string, string[]>, answersUs: boolean): string[] {
  const markers: string[] = [];
  for (const value of headers.get('auto-submitted') ?? []) {
    const token = value.split(';')[0]!.trim().toLowerCase();
    if (token && token !== 'no') markers.push(`auto-submitted: ${token}`);
  }
  for (const name of ['x-autoreply', 'x-autorespond', 'x-autoreply-from', 'x-mail-autoreply']) {
    for (const value of headers.get(name) ?? []) if (value.trim().toLowerCase() !== 'no') markers.push(`${name}: ${value.trim()}`);
  }
  for (const name of ['precedence', 'x-precedence']) {
    for (const value of headers.get(name) ?? []) {
      const token = value.trim().toLowerCase();
      if (token === 'auto_reply' || ((token === 'bulk' || token === 'junk') && answersUs)) markers.push(`${name}: ${token}`);
    }
  }
  return markers;
}

function verpIdsIn(value: string, mailDomain: string): string[] {
  return [...value.matchAll(/[^\s<>,;:"()]+@[^\s<>,;:"()]+/g)].flatMap((m) => {
    const id = sentEmailIdFromVerp(m[0], mailDomain);
    return id ? [id] : [];
  });
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0))];
}

// Where a reply's own text ends: the attribution line of Gmail, Apple Mail and Thunderbird (also
// wrapped over two lines, and in a few languages), Outlook's separator or header block, or the
// classic "Original Message" rule.
const QUOTE_STARTS = [
  /^(?:On|Le|Am|El|Il|Op|Em|Den|På)\s[^\n]{0,300}?(?:\n[^\n]{0,300}?)?(?:wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev)\s*:\s*$/m,
  /^-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original)\s*-{2,}\s*$/im,
  /^_{10,}\s*\n(?:From|De|Von|Da|Van):/m,
  /^(?:From|De|Von):\s[^\n]+\n(?:Sent|Date|Envoyé|Gesendet|Enviado):\s/m,
];

/** The reply's own words: the text up to its quoted history, without trailing "> " lines. */
export function stripQuoted(text: string): string {
  const normalized = text.replace(/\r\n/g, '\n');
  let end = normalized.length;
  for (const pattern of QUOTE_STARTS) {
    const match = pattern.exec(normalized);
    if (match && match.index < end) end = match.index;
  }
  const lines = normalized.slice(0, end).split('\n');
  while (lines.length > 0 && /^\s*(?:>.*)?$/.test(lines[lines.length - 1]!)) lines.pop();
  return lines.join('\n').trim();
}
