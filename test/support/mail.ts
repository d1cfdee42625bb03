import nodemailer, { type SendMailOptions } from 'nodemailer';

/**
 * What end-to-end tests do with mail as its recipients and their servers would: read the tracking
 * tokens of a delivered message, send a reply or a DSN to the inbound listener with a standard
 * SMTP client, and unsubscribe in one click (RFC 8058).
 */

/** The delivered message's text, quoted-printable soft breaks undone. */
export const mailText = (raw: Buffer) => raw.toString('utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');

/** The signed token of the message's open pixel (`o`), first tracked link (`c`) or unsubscribe link (`u`). */
export const tokenIn = (raw: Buffer, kind: 'o' | 'c' | 'u') => new RegExp(`/${kind === 'u' ? 'u' : `t/${kind}`}/([A-Za-z0-9_-]+)`).exec(mailText(raw))?.[1];

/** Sends messages to the inbound SMTP listener on loopback with nodemailer, as any mail server would. */
export async function sendToInbound(port: number, ...mails: SendMailOptions[]): Promise<void> {
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    for (const mail of mails) await smtp.sendMail(mail);
  } finally {
    smtp.close();
  }
}

/** A delivery status notification (RFC 3464) for a send, addressed to its VERP return path. */
export function dsnFor(sentEmailId: string, recipient: string, options: { mailDomain: string; action?: string; status?: string }): SendMailOptions {
  const to = `bounces+${sentEmailId}@${options.mailDomain}`;
  return {
    envelope: { from: '', to: [to] },
    raw: [
      'From: MAILER-DAEMON@mx.example.com',
      `To: ${to}`,
      'Subject: Undelivered Mail Returned to Sender',
      `Message-ID: <dsn-${sentEmailId}@mx.example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Delivery failed.',
      '--b',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.example.com',
      '',
      `Final-Recipient: rfc822; ${recipient}`,
      `Action: ${options.action ?? 'failed'}`,
      `Status: ${options.status ?? '5.1.1'}`,
      'Diagnostic-Code: smtp; 550 5.1.1 user unknown',
      '',
      '--b--',
      '',
    ].join('\r\n'),
  };
}

/** The one-click unsubscribe of a delivered message, through the gateway's public path. */
export const unsubscribeOneClick = (baseUrl: string, raw: Buffer) =>
  fetch(`${baseUrl}/u/${tokenIn(raw, 'u')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
