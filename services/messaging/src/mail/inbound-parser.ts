import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { isMailDomain, sentEmailIdFromMessageId, sentEmailIdFromVerp } from './mail-ids';

/**
 * One parser for all inbound mail (the SMTP listener on `INBOUND_SMTP_ADDR` and the internal gRPC
 * method both hand it raw RFC 5322 bytes). It only classifies and extracts; matching the ids it
 * returns against sent emails, recording events and suppressing addresses are the service's.
 *
 * Classification, first rule that applies:
 * 1. `bounce` / `delayed`: an RFC 3464 delivery status notification (top-level `multipart/report`
 *    with a `message/delivery-status` part). Any recipient with Action `failed` makes it a bounce:
 *    hard when a failed recipient's Status is 5.x.x, soft when 4.x.x (a mailbox-full expiry). A
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

export interface DsnRecipient {
  /** Final-Recipient address (the one that failed), without its `rfc822;` type. */
  finalRecipient?: string;
  originalRecipient?: string;
  /** Lower-cased Action: failed, delayed, delivered, relayed, expanded. */
  action: string;
  /** Enhanced status code (RFC 3463), such as `5.1.1`. */
  status?: string;
  /** Diagnostic-Code text after its type, such as `550 5.1.1 <a@b>: Recipient address rejected`. */
  diagnosticCode?: string;
  remoteMta?: string;
}

export type BounceSeverity = 'hard' | 'soft';

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

export interface InboundParserOptions {
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

export interface InboundParser {
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
const REPORT_STATUS_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const RETURNED_HEADERS_TYPES = new Set(['text/rfc822-headers', 'message/rfc822', 'message/global', 'message/global-headers']);
const MAX_MIME_PARTS = 64;

export function createInboundParser(options: InboundParserOptions): InboundParser {
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
      const graded = failed.map((recipient) => ({ recipient, severity: severityOf(recipient) }));
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

  const text = parsed.text ?? '';
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

function severityOf(recipient: DsnRecipient): BounceSeverity {
  const statusClass = recipient.status?.[0];
  if (statusClass === '5') return 'hard';
  if (statusClass === '4') return 'soft';
  // No usable Status: fall back to the SMTP reply code. Unknown stays soft, because a hard bounce
  // suppresses the address for good and the evidence for that should be explicit.
  const code = /^\s*([45])\d\d\b/.exec(recipient.diagnosticCode ?? '')?.[1];
  return code === '5' ? 'hard' : 'soft';
}

interface DeliveryReport {
  recipients: DsnRecipient[];
  originalMessageId?: string;
  /** Weaker sources of ids: X-Original-Message-ID, X-Postfix-Sender, the original's Return-Path. */
  hints: string[];
}

/**
 * The machine-readable parts of a DSN, read from the raw MIME structure: mailparser folds
 * `message/delivery-status` into the text and drops it as a part, so it cannot give us the fields.
 */
function deliveryReport(bytes: Buffer, parsed: ParsedMail): DeliveryReport | undefined {
  const contentType = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  if (contentType?.value?.toLowerCase() !== 'multipart/report') return undefined;
  const reportType = contentType.params?.['report-type']?.toLowerCase();
  if (reportType !== undefined && reportType !== 'delivery-status') return undefined;
  const boundary = contentType.params?.['boundary'];
  if (!boundary) return undefined;

  const parts = mimeParts(bodyOf(bytes.toString('latin1')), boundary);
  const statusPart = parts.find((p) => REPORT_STATUS_TYPES.has(p.contentType));
  if (!statusPart) return undefined;
  const fields = fieldBlocks(decodePart(statusPart).toString('utf8'));
  const perMessage = fields.find((block) => !block.has('action') && !block.has('final-recipient')) ?? new Map<string, string>();
  const recipients = fields
    .filter((block) => block.has('action') || block.has('final-recipient'))
    .map((block) => {
      const status = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(block.get('status') ?? '')?.[1];
      const recipient: DsnRecipient = { action: (block.get('action') ?? '').trim().toLowerCase() };
      const finalRecipient = typedValue(block.get('final-recipient'));
      const originalRecipient = typedValue(block.get('original-recipient'));
      const diagnosticCode = typedValue(block.get('diagnostic-code'));
      const remoteMta = typedValue(block.get('remote-mta'));
      if (finalRecipient) recipient.finalRecipient = stripAngles(finalRecipient);
      if (originalRecipient) recipient.originalRecipient = stripAngles(originalRecipient);
      if (status) recipient.status = status;
      if (diagnosticCode) recipient.diagnosticCode = diagnosticCode;
      if (remoteMta) recipient.remoteMta = remoteMta;
      return recipient;
    });

  const returned = parts.find((p) => RETURNED_HEADERS_TYPES.has(p.contentType));
  const returnedHeaders = returned ? headerFields(headerBlockOf(decodePart(returned).toString('utf8'))) : new Map<string, string>();
  const originalMessageId = messageIdsIn(returnedHeaders.get('message-id') ?? '')[0];
  const hints = [
    perMessage.get('x-original-message-id'),
    typedValue(perMessage.get('x-postfix-sender')),
    returnedHeaders.get('return-path'),
  ].filter((hint): hint is string => typeof hint === 'string' && hint.length > 0);
  return { recipients, ...(originalMessageId ? { originalMessageId } : {}), hints };
}

interface MimePart {
  contentType: string;
  transferEncoding: string;
  body: string;
}

/** The body of a message or part in latin1 (one char per byte): everything after the first blank line. */
function bodyOf(source: string): string {
  const match = /\r?\n\r?\n/.exec(source);
  return match ? source.slice(match.index + match[0].length) : '';
}

function headerBlockOf(source: string): string {
  const match = /\r?\n\r?\n/.exec(source);
  return match ? source.slice(0, match.index) : source;
}

/** The direct children of a multipart body; a missing closing boundary (truncation) ends the last part at the end. */
function mimeParts(body: string, boundary: string): MimePart[] {
  const delimiter = `--${boundary}`;
  const lines = body.split(/\r?\n/);
  const parts: string[][] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === `${delimiter}--`) break;
    if (trimmed === delimiter) {
      if (current) parts.push(current);
      current = [];
      if (parts.length >= MAX_MIME_PARTS) break;
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(current);
  return parts.map((partLines) => {
    const source = partLines.join('\n');
    const headers = headerFields(headerBlockOf(source));
    // A part that starts with a blank line has no headers: RFC 2045 defaults apply.
    const hasHeaders = !/^\r?\n/.test(source) && headers.size > 0;
    return {
      contentType: (headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase(),
      transferEncoding: (headers.get('content-transfer-encoding') ?? '7bit').trim().toLowerCase(),
      body: hasHeaders ? bodyOf(source) : source.replace(/^\r?\n/, ''),
    };
  });
}

function decodePart(part: MimePart): Buffer {
  if (part.transferEncoding === 'base64') return Buffer.from(part.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (part.transferEncoding === 'quoted-printable') {
    const unwrapped = part.body.replace(/=\r?\n/g, '');
    return Buffer.from(unwrapped.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  }
  return Buffer.from(part.body, 'latin1');
}

/** Header-style fields of one block, unfolded, by lower-cased name (the first occurrence wins). */
function headerFields(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  let name: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && name) {
      fields.set(name, `${fields.get(name)} ${line.trim()}`);
      continue;
    }
    const match = /^([!-9;-~]+):(.*)$/.exec(line);
    if (!match) {
      name = undefined;
      continue;
    }
    name = match[1]!.toLowerCase();
    if (fields.has(name)) name = undefined;
    else fields.set(name, match[2]!.trim());
  }
  return fields;
}

/** The blocks of a delivery-status body: one per-message block, then one per recipient. */
function fieldBlocks(content: string): Map<string, string>[] {
  return content
    .split(/\r?\n(?:[ \t]*\r?\n)+/)
    .map((block) => headerFields(block.replace(/^\s*\n/, '')))
    .filter((block) => block.size > 0);
}

/** `rfc822; a@b` → `a@b`; `smtp; 550 …` → `550 …`. */
function typedValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  const result = (semicolon < 0 ? value : value.slice(semicolon + 1)).trim();
  return result || undefined;
}

function stripAngles(value: string): string {
  return value.replace(/^<(.*)>$/, '$1').trim();
}

function messageIdsIn(value: string): string[] {
  return [...value.matchAll(/<[^<>\s]+@[^<>\s]+>/g)].map((m) => m[0]);
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
