import { domainToASCII } from 'node:url';
import MailComposer from 'nodemailer/lib/mail-composer';
import { isMailDomain, isSentEmailId, messageIdFor, verpAddressFor } from './mail-ids';
import { TRACKING_PATHS } from './tracking';

/**
 * Builds the raw RFC 5322 message of one send, exactly as the mail README fixes it (./README.md,
 * "message-builder.ts"):
 *
 * - `Message-ID: <{sent_email_id}@{MAIL_DOMAIN}>`, which replies and bounces name back;
 * - `multipart/alternative` with the text part first and the HTML part last (the preferred one);
 * - `List-Unsubscribe: <{PUBLIC_URL}/u/{token}>` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`
 *   (RFC 8058 one-click, which Gmail and Yahoo require of bulk senders);
 * - a follow-up in a thread: `In-Reply-To` (the previous message), `References` (the thread) and a
 *   `Re: ` subject, never `Re: Re: `;
 * - the envelope sender `bounces+{sent_email_id}@{MAIL_DOMAIN}` (VERP), or the From address with `verp: false`.
 *
 * No header is taken from the caller as text: every value is either validated (addresses, ids,
 * the token) or stripped of control characters (subject, display names) before nodemailer encodes it,
 * so nothing a contact or template supplies can end a header line and start another. The message
 * carries no Return-Path header: the receiving MTA writes it from MAIL FROM (RFC 5321 4.4).
 */

export interface MailAddress {
  address: string;
  /** Display name; control characters are replaced and runs of whitespace collapsed. */
  name?: string;
}

export interface MessageInput {
  /** The sent_email id (a uuid): the Message-ID, the VERP sender and the tracking tokens name it. */
  sentEmailId: string;
  /** `MAIL_DOMAIN`: the right-hand side of the Message-ID and of the VERP address. */
  mailDomain: string;
  /** `PUBLIC_URL`: where `/u/{token}` is served. */
  publicUrl: string;
  from: MailAddress;
  to: MailAddress;
  replyTo?: MailAddress;
  /** The rendered subject; `Re: ` is prefixed for a thread follow-up when it is not there already. */
  subject: string;
  /** The rendered HTML body, with links rewritten and the open pixel inserted when tracking. */
  html: string;
  /** The text alternative (body_text, or derived from the HTML by the renderer). */
  text: string;
  /** The send's unsubscribe token (`tracking.sign({kind: 'unsubscribe', …})`). */
  unsubscribeToken: string;
  /**
   * For a follow-up sent in a thread: the Message-IDs of the earlier messages, oldest first
   * (`messageIdFor(previousSentEmailId, MAIL_DOMAIN)` for ours, as stored for anyone else's).
   * The last is `In-Reply-To`; `References` lists them all, trimmed to the first and the last
   * nine when longer, as RFC 5322 3.6.4 allows.
   */
  thread?: { messageIds: readonly string[] };
  /** False sends with the From address as envelope sender (the integration's `verp: false`). Default true. */
  verp?: boolean;
  /** The Date header; now by default. */
  date?: Date;
}

export interface BuiltMessage {
  /** The complete message, CRLF line endings, ready for SMTP DATA or an `.eml` file. */
  raw: Buffer;
  /** `<{sent_email_id}@{MAIL_DOMAIN}>`, angle brackets included. */
  messageId: string;
  /** MAIL FROM and RCPT TO for the SMTP transaction. */
  envelope: { from: string; to: string[] };
}

export type MessageBuildErrorCode = 'invalid_address' | 'invalid_input';

/** A message that cannot be built from its input; `field` names the offending input. */
export class MessageBuildError extends Error {
  override readonly name = 'MessageBuildError';
  constructor(
    readonly code: MessageBuildErrorCode,
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const MAX_REFERENCES = 10;

export async function buildMessage(input: MessageInput): Promise<BuiltMessage> {
  if (!isSentEmailId(input.sentEmailId)) throw new MessageBuildError('invalid_input', 'sentEmailId', 'must be a uuid');
  if (!isMailDomain(input.mailDomain)) throw new MessageBuildError('invalid_input', 'mailDomain', 'must be a host name');
  if (!/^[A-Za-z0-9_-]{16,512}$/.test(input.unsubscribeToken)) {
    throw new MessageBuildError('invalid_input', 'unsubscribeToken', 'must be a tracking token');
  }
  const publicUrl = checkPublicUrl(input.publicUrl);
  const from = checkAddress(input.from, 'from');
  const to = checkAddress(input.to, 'to');
  const replyTo = input.replyTo ? checkAddress(input.replyTo, 'replyTo') : undefined;
  const thread = (input.thread?.messageIds ?? []).map((id, i) => checkMessageId(id, `thread.messageIds[${i}]`));

  let subject = headerText(input.subject);
  if (thread.length > 0 && !/^re\s*:/i.test(subject)) subject = subject ? `Re: ${subject}` : 'Re:';

  const messageId = messageIdFor(input.sentEmailId, input.mailDomain);
  const envelope = {
    from: input.verp === false ? from.address : verpAddressFor(input.sentEmailId, input.mailDomain),
    to: [to.address],
  };
  const references = thread.length > MAX_REFERENCES ? [thread[0]!, ...thread.slice(-(MAX_REFERENCES - 1))] : thread;

  const node = new MailComposer({
    from,
    to,
    ...(replyTo ? { replyTo } : {}),
    subject,
    messageId,
    date: input.date ?? new Date(),
    ...(thread.length > 0 ? { inReplyTo: thread[thread.length - 1], references } : {}),
    text: input.text,
    html: input.html,
    headers: {
      'List-Unsubscribe': `<${publicUrl}${TRACKING_PATHS.unsubscribe}${input.unsubscribeToken}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    envelope,
    newline: 'win',
    // Content is given inline; a path or URL in it must never be read from disk or fetched.
    disableFileAccess: true,
    disableUrlAccess: true,
  }).compile();
  const raw = await node.build();
  return { raw, messageId, envelope };
}

/**
 * Text for an unstructured header: control characters (CR and LF among them) become spaces and
 * whitespace runs collapse, so a value is always one line of what it said.
 */
export function headerText(value: string): string {
  return value
    .replace(/[\x00-\x1f\x7f\u0085\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// A dot-atom local part (RFC 5322 atext, plus UTF-8 for SMTPUTF8 mailboxes). Quoted local parts
// are legal but so rare in practice that refusing them costs less than parsing them safely.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uffff-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uffff-]+)*$/;

function checkAddress(value: MailAddress, field: string): { address: string; name?: string } {
  const address = typeof value?.address === 'string' ? value.address.trim() : '';
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const asciiDomain = at > 0 ? domainToASCII(domain) : '';
  if (at <= 0 || address.length > 254 || local.length > 64 || !LOCAL_PART.test(local) || !asciiDomain || !isMailDomain(asciiDomain)) {
    throw new MessageBuildError('invalid_address', field, 'is not a valid email address');
  }
  const name = typeof value.name === 'string' ? headerText(value.name) : '';
  return name ? { address, name } : { address };
}

function checkMessageId(value: string, field: string): string {
  const match = /^\s*<?([^<>\s@]+@[^<>\s@]+)>?\s*$/.exec(value);
  if (!match || /[\x00-\x1f\x7f]/.test(match[1]!)) throw new MessageBuildError('invalid_input', field, 'is not a Message-ID');
  return `<${match[1]}>`;
}

function checkPublicUrl(value: string): string {
  const url = URL.parse(value);
  if (!url) throw new MessageBuildError('invalid_input', 'publicUrl', 'must be an absolute http(s) URL');
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) {
    throw new MessageBuildError('invalid_input', 'publicUrl', 'must be an http(s) origin, optionally with a path');
  }
  return url.href.replace(/\/+$/, '');
}
