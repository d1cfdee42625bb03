import type { ConnectionOptions } from 'node:tls';
import { redactSmtpSecret } from '@crm/kit';
import type { SmtpConfig } from './integration-config';
import { integrationTransport } from './smtp-transport';

/**
 * Whether an `smtp` integration's server takes the integration's credentials: the same conversation
 * messaging opens before it sends (connect, EHLO, STARTTLS when the server offers it, AUTH with the
 * username and the secret when a username is set), through the same client (nodemailer) with the
 * same defaults, so `connected` means messaging can sign in, and nothing more is claimed.
 *
 * The host is the user's: the whole check is bounded by `timeoutMs`, whatever the server does.
 */
export interface CheckOutcome {
  status: 'connected' | 'error';
  /** What failed, readable and never carrying the secret; null when connected. */
  reason: string | null;
}

export interface SmtpCheck {
  /** The longest one check takes; past it, it ends in error. */
  readonly timeoutMs: number;
  /** `signal` ends the check at once (the process is stopping), in error. */
  check(config: SmtpConfig, password: string, signal?: AbortSignal): Promise<CheckOutcome>;
}

export interface SmtpCheckOptions {
  timeoutMs?: number;
  /**
   * TLS options for the connection. Only tests set them (a certificate authority of their own);
   * otherwise the system's trust applies, as it does when messaging sends.
   */
  tls?: ConnectionOptions;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
/** The longest `status_reason` kept (the declaration's maxLength). */
const MAX_REASON = 500;

export function createSmtpCheck(options: SmtpCheckOptions = {}): SmtpCheck {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  return {
    timeoutMs,
    async check(config, password, signal) {
      const transport = integrationTransport(config, password, timeoutMs, options.tls);
      // Each of nodemailer's timeouts restarts with every byte: a server that answers slowly
      // enough could hold the check open for ever without this bound on the whole of it.
      let timer: NodeJS.Timeout | undefined;
      let stop: (() => void) | undefined;
      const overall = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from ${config.host}:${config.port} within ${timeoutMs} ms`)), timeoutMs);
        stop = () => reject(new Error('the check was stopped'));
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
      });
      try {
        await Promise.race([transport.verify(), overall]);
        return { status: 'connected', reason: null };
      } catch (error) {
        return { status: 'error', reason: failureReason(error, config, password) };
      } finally {
        clearTimeout(timer);
        if (stop) signal?.removeEventListener('abort', stop);
        transport.close();
      }
    },
  };
}

/**
 * nodemailer's message for a failed check ("connect ECONNREFUSED 127.0.0.1:2525", "Invalid login:
 * 535 5.7.8 authentication failed", "getaddrinfo ENOTFOUND smtp.example.invalid"), on one line,
 * with the secret taken out in every form AUTH sends it (a server may echo what it was sent).
 */
export function failureReason(error: unknown, config: Pick<SmtpConfig, 'username'>, password: string): string {
  // Not `instanceof Error`: errors raised by Node's own modules may come from another realm.
  const own = (error as { message?: unknown } | null)?.message;
  const message = typeof own === 'string' && own ? own : String(error);
  let text = message.replace(/[\u0000-\u001F\u007F]+/g, ' ').replace(/\s+/g, ' ').trim();
  // OpenSSL's own lines name its source files; its reason is the part a reader can act on.
  const openssl = /:SSL routines:[^:]*:([^:]+):/.exec(text);
  if (openssl) text = `TLS failed: ${openssl[1]}`;
  // Node's advice about its own flags is for whoever runs Node, not for the integration's owner.
  text = text.replace(/; if the root CA is installed locally, try running Node\.js with --use-system-ca$/, '');
  text = redactSmtpSecret(text, config.username, password);
  return (text || 'the check failed').slice(0, MAX_REASON);
}

