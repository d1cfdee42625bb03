import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { SmtpConfig } from './integration-config';

/**
 * A connection to a workspace's SMTP server, as the directory opens one (the integration check,
 * the set-password mail): the client and defaults messaging sends with, each of nodemailer's
 * timeouts at `timeoutMs`, and nodemailer's own log off, since it would print the conversation,
 * AUTH included. The host is the user's: callers bound the whole exchange as well.
 */
export function integrationTransport(config: SmtpConfig, password: string, timeoutMs: number, tls?: ConnectionOptions) {
  return nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure,
    ...(config.username ? { auth: { user: config.username, pass: password } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    logger: false,
    debug: false,
    ...(tls ? { tls } : {}),
  });
}
