import type { ConnectionOptions } from 'node:tls';
import type { SmtpConfig } from './integration-config';
import { integrationTransport } from './smtp-transport';

/**
 * The mail that carries a set-password link, sent through the workspace's own SMTP server (its
 * enabled `smtp` integration, as messaging sends), by the same client with the same settings.
 */
export interface PasswordMail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
}

export interface PasswordMailer {
  /** Rejects when the server refuses the mail or does not take it within `timeoutMs`. */
  send(account: { config: SmtpConfig; password: string }, mail: PasswordMail, timeoutMs: number): Promise<void>;
}

export interface PasswordMailerOptions {
  /** TLS options for the connection: only tests set them (a certificate authority of their own). */
  tls?: ConnectionOptions;
}

export const DEFAULT_MAIL_TIMEOUT_MS = 10_000;

export function createPasswordMailer(options: PasswordMailerOptions = {}): PasswordMailer {
  return {
    async send({ config, password }, mail, timeoutMs) {
      const transport = integrationTransport(config, password, timeoutMs, options.tls);
      // nodemailer's timeouts restart with every byte; the host is the user's, so bound the whole.
      let timer: NodeJS.Timeout | undefined;
      const overall = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from ${config.host}:${config.port} within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text }), overall]);
      } finally {
        clearTimeout(timer);
        transport.close();
      }
    },
  };
}

/** The mail for a user's link: the same words for a first password and a reset. */
export function passwordMail(input: { from: PasswordMail['from']; to: string; fullName: string; workspaceName: string; link: string }): PasswordMail {
  return {
    from: input.from,
    to: input.to,
    subject: `Set your password for ${input.workspaceName}`,
    text: [
      `Hello ${input.fullName},`,
      '',
      `Open this link to set your password for ${input.workspaceName}. It works once, for 24 hours:`,
      '',
      input.link,
      '',
      'If you did not expect this message, ignore it: nothing changes until the link is used.',
      '',
    ].join('\n'),
  };
}
