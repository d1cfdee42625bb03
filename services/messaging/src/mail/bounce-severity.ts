/**
 * How bad a refusal is, the one rule for both ways a refusal reaches us: an RFC 3464 delivery
 * status notification that comes back as inbound mail, and an SMTP reply to our own delivery.
 *
 * A `hard` bounce suppresses the address for good, so it needs explicit evidence that the address
 * itself does not take mail: a permanent (5.x.x) status in a DSN, or a 5xx reply to RCPT TO. A
 * `soft` bounce ends the send without suppressing anyone: a DSN's transient (4.x.x) status on a
 * failed recipient (the sender gave up retrying, a full mailbox), a 5xx reply to MAIL FROM or DATA
 * (the message or the sender was refused, not the address), or no evidence at all. A 4xx reply, no
 * reply (a lost connection), or a 5xx before the mail transaction (the greeting, EHLO, STARTTLS,
 * AUTH: our own server or credentials, not this message) is no bounce yet: the delivery worker
 * tries again.
 */
export type BounceSeverity = 'hard' | 'soft';

/** What a refusal during our own delivery comes to: a bounce of that severity, or another try. */
export type SmtpRefusal = BounceSeverity | 'retry';

/** The enhanced status code (RFC 3463), such as `5.1.1`, that a reply or Diagnostic-Code text carries, if any. */
export function enhancedStatusIn(text: string | undefined): string | undefined {
  return /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(text ?? '')?.[1];
}

/**
 * A failed DSN recipient: its Status class decides (5 hard, 4 soft). Without a usable Status the
 * SMTP reply code at the start of the Diagnostic-Code decides (5xx hard). Anything else is soft.
 */
export function dsnSeverity(recipient: { status?: string; diagnosticCode?: string }): BounceSeverity {
  const statusClass = recipient.status?.[0];
  if (statusClass === '5') return 'hard';
  if (statusClass === '4') return 'soft';
  const code = /^\s*([45])\d\d\b/.exec(recipient.diagnosticCode ?? '')?.[1];
  return code === '5' ? 'hard' : 'soft';
}

/** A reply code 500 to 599: the server refused for good, and this message will not be taken on a retry. */
export const isPermanentReply = (code: number | undefined): boolean => code !== undefined && code >= 500 && code < 600;

/** The commands of the mail transaction itself: a refusal there is about this message. */
const TRANSACTION_COMMAND = /^(MAIL|RCPT|DATA)\b/i;

/**
 * An SMTP refusal of our own delivery, judged by its reply code and the command it answered: 5xx at
 * RCPT TO is hard (the address does not take mail), 5xx at MAIL FROM or DATA (the DATA command or
 * the end of data) soft, and 4xx, no reply at all, or 5xx to any command outside the mail
 * transaction (the greeting, EHLO, STARTTLS, AUTH: the server or our credentials refused us, which
 * a fixed integration cures) a retry. The enhanced status in the text is recorded (`statusCode`,
 * else the reply code) but does not change the verdict: the reply code and the command are what
 * the server committed to.
 */
export function smtpRefusal(reply: { code?: number; command?: string; text?: string }): { verdict: SmtpRefusal; statusCode?: string } {
  const statusCode = enhancedStatusIn(reply.text) ?? (reply.code === undefined ? undefined : String(reply.code));
  const command = reply.command ?? '';
  if (!isPermanentReply(reply.code) || !TRANSACTION_COMMAND.test(command)) return { verdict: 'retry', ...(statusCode ? { statusCode } : {}) };
  return { verdict: /^RCPT/i.test(command) ? 'hard' : 'soft', ...(statusCode ? { statusCode } : {}) };
}
