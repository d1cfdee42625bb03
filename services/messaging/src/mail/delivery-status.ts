import type { ParsedMail } from 'mailparser';
import { messageIdsIn } from './mail-ids';

/**
 * The machine-readable parts of an RFC 3464 delivery status notification, read from the raw MIME
 * structure of a `multipart/report`: the per-recipient fields (Action, Status, Diagnostic-Code, …)
 * and the returned original's headers. Reading only: what the report means (bounce, delay, which
 * send) is the inbound classifier's (`inbound/mail-classifier.ts`), how bad it is
 * `bounce-severity.ts`'s.
 */

const REPORT_STATUS_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const RETURNED_HEADERS_TYPES = new Set(['text/rfc822-headers', 'message/rfc822', 'message/global', 'message/global-headers']);
const MAX_MIME_PARTS = 64;

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

export interface DeliveryReport {
  recipients: DsnRecipient[];
  originalMessageId?: string;
  /** Weaker sources of ids: X-Original-Message-ID, X-Postfix-Sender, the original's Return-Path. */
  hints: string[];
}

/**
 * The machine-readable parts of a DSN, read from the raw MIME structure: mailparser folds
 * `message/delivery-status` into the text and drops it as a part, so it cannot give us the fields.
 */
export function deliveryReport(bytes: Buffer, parsed: ParsedMail): DeliveryReport | undefined {
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
