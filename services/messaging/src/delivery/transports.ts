import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { type Logger, redactSmtpSecret } from '@crm/kit';
import nodemailer from 'nodemailer';
import type { SenderDirectory, SmtpAccount } from '../sender-directory';

/**
 * Where a built message goes (gateway/README.md, Messaging, "Providers"): the workspace's own SMTP
 * server (its enabled `smtp` integration), else the deployment's `SMTP_URL`, else the `log`
 * provider, which writes the message exactly as it would be sent to
 * `CRM_DATA_DIR/mail/<workspace>/<id>.eml`. SMTP goes through nodemailer's pooled transport, one
 * pool per server, kept while it is used.
 */
export interface OutgoingMessage {
  workspaceId: string;
  sentEmailId: string;
  raw: Buffer;
  envelope: { from: string; to: string[] };
}

export interface Transport {
  readonly provider: 'smtp' | 'log';
  /**
   * The workspace's own server, when the message goes through its smtp integration: a failure
   * names it (`smtp integration <id> (<host>:<port>)`), since it is the workspace's to fix.
   */
  readonly via?: string;
  /**
   * Delivers the message. `beforeEnd` runs once the whole message has been handed over and only
   * its end-of-data mark remains: the caller commits "handed over" there (and may still refuse by
   * throwing, which abandons the transaction so the server discards the message).
   */
  send(message: OutgoingMessage, beforeEnd: () => Promise<void>): Promise<{ response: string }>;
}

export interface Transports {
  forWorkspace(workspaceId: string): Promise<Transport>;
  close(): void;
}

/** An SMTP failure as nodemailer reports it; `mail/bounce-severity.ts` `smtpRefusal` judges it. */
export interface SmtpFailure {
  /** The SMTP reply code, when the server answered. */
  code?: number;
  /** The command it answered: `RCPT TO` means the recipient was refused. */
  command?: string;
  message: string;
}

export function smtpFailure(error: unknown): SmtpFailure {
  const e = error as { responseCode?: number; command?: string; response?: string; message?: string; code?: string };
  const code = typeof e?.responseCode === 'number' ? e.responseCode : undefined;
  const text = (e?.response ?? e?.message ?? String(error)).replace(/\s+/g, ' ').trim().slice(0, 500);
  return { code, command: e?.command, message: text };
}

/**
 * A failed attempt as the send's `last_error` (and a bounce's `failure_reason`) tell it: the
 * server's answer or the connection error, the step it came at, and the workspace's integration
 * when it came through one: `451 4.3.0 try again later (at RCPT TO)`,
 * `through smtp integration … (smtp.example.com:587): getaddrinfo ENOTFOUND smtp.example.com (at connection)`.
 */
export function describeFailure(failure: SmtpFailure, via?: string): string {
  const step = failure.command && failure.command !== 'API' ? ` (at ${failure.command === 'CONN' ? 'connection' : failure.command})` : '';
  return `${via ? `through ${via}: ` : ''}${failure.message}${step}`;
}

/**
 * The message as a stream that holds back its end until `beforeEnd` has run. The SMTP connection
 * reads it only after the server accepted DATA; the second read comes once the whole message has
 * left for the server, and ending the stream is what makes the connection send the end-of-data
 * mark that completes the transaction.
 */
function heldBackMessage(raw: Buffer, beforeEnd: () => Promise<void>): Readable {
  let sent = false;
  let ending = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(raw);
      } else if (!ending) {
        ending = true;
        beforeEnd().then(
          () => this.push(null),
          (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
        );
      }
    },
  });
}

type Pool = ReturnType<typeof nodemailer.createTransport>;

interface PoolLike {
  send(mail: unknown, callback: (error: Error | null, info?: { response?: string }) => void): void;
}

/** The credentials a pool logs in with, taken out of every failure it reports (kit `redactSmtpSecret`). */
interface Credentials {
  username?: string;
  password?: string;
}

/**
 * A failure with the password taken out of every text a caller reads (`response`, `message`), so
 * neither a send's `last_error` nor a log line can carry it whatever the server echoed.
 */
function withoutSecret(error: Error, credentials: Credentials): Error {
  const e = error as Error & { response?: unknown };
  if (typeof e.response === 'string') e.response = redactSmtpSecret(e.response, credentials.username, credentials.password);
  e.message = redactSmtpSecret(e.message, credentials.username, credentials.password);
  return e;
}

/** The user and password of an `smtp://user:pass@host` relay, percent-decoded as nodemailer reads them. */
function urlCredentials(url: string): Credentials {
  try {
    const parsed = new URL(url);
    return { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
  } catch {
    return {};
  }
}

function smtpTransport(pool: Pool, credentials: Credentials, via?: string): Transport {
  const inner = (pool as unknown as { transporter: PoolLike }).transporter;
  return {
    provider: 'smtp',
    ...(via ? { via } : {}),
    send(message, beforeEnd) {
      return new Promise((resolve, reject) => {
        // What nodemailer's pool reads of a mail: its envelope, its id and a fresh stream per try
        // (the pool retries a message on another connection when not a byte of it was read).
        const mail = {
          data: {},
          message: {
            getEnvelope: () => message.envelope,
            messageId: () => message.sentEmailId,
            getHeader: () => '',
            createReadStream: () => heldBackMessage(message.raw, beforeEnd),
          },
        };
        inner.send(mail, (error, info) => (error ? reject(withoutSecret(error, credentials)) : resolve({ response: info?.response ?? '' })));
      });
    },
  };
}

const logFile = (mailDir: string, workspaceId: string, sentEmailId: string) => path.join(mailDir, workspaceId, `${sentEmailId}.eml`);

/**
 * The `log` provider's hand-over mirrors SMTP's: the whole message is written to `<id>.eml.tmp`
 * first, `beforeEnd` commits, and the rename is the end-of-data mark. A worker that dies between
 * the commit and the rename leaves the send to go again, as over SMTP: writing it again leaves the
 * same one file.
 */
function logTransport(mailDir: string): Transport {
  return {
    provider: 'log',
    async send(message, beforeEnd) {
      const file = logFile(mailDir, message.workspaceId, message.sentEmailId);
      await mkdir(path.dirname(file), { recursive: true });
      // Written whole or not at all; writing it again after a crash leaves the same one file.
      await writeFile(`${file}.tmp`, message.raw);
      try {
        await beforeEnd();
      } catch (error) {
        await rm(`${file}.tmp`, { force: true });
        throw error;
      }
      await rename(`${file}.tmp`, file);
      return { response: `written to ${file}` };
    },
  };
}

export interface TransportsOptions {
  senders: SenderDirectory;
  /** The deployment's relay, `smtp://` or `smtps://` with credentials; unset means the log provider. */
  smtpUrl?: string;
  /** `CRM_DATA_DIR/mail`. */
  mailDir: string;
  log: Logger;
  /** Connections per SMTP server. */
  maxConnections?: number;
}

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createTransports(options: TransportsOptions): Transports {
  const pools = new Map<string, { version: string; pool: Pool; transport: Transport }>();
  const maxConnections = options.maxConnections ?? 5;
  const log = logTransport(options.mailDir);

  const pooled = (key: string, version: string, make: () => Pool, credentials: Credentials, via?: string): Transport => {
    const existing = pools.get(key);
    if (existing && existing.version === version) return existing.transport;
    existing?.pool.close();
    const pool = make();
    const transport = smtpTransport(pool, credentials, via);
    pools.set(key, { version, pool, transport });
    return transport;
  };

  const accountPool = (account: SmtpAccount): Pool =>
    nodemailer.createTransport({
      pool: true,
      host: account.host,
      port: account.port,
      secure: account.secure,
      ...(account.username ? { auth: { user: account.username, pass: account.password } } : {}),
      maxConnections,
      maxMessages: 100,
      ...SMTP_TIMEOUTS,
    });

  return {
    async forWorkspace(workspaceId) {
      const account = await options.senders.smtpAccount(workspaceId);
      if (account) {
        const via = `smtp integration ${account.integrationId} (${account.host}:${account.port})`;
        const credentials = { username: account.username, password: account.password };
        return pooled(`integration:${account.integrationId}`, account.version, () => accountPool(account), credentials, via);
      }
      if (options.smtpUrl) {
        const url = options.smtpUrl;
        const make = () => nodemailer.createTransport({ url, pool: true, maxConnections, maxMessages: 100, ...SMTP_TIMEOUTS });
        return pooled('smtp_url', url, make, urlCredentials(url));
      }
      return log;
    },
    close() {
      for (const { pool } of pools.values()) pool.close();
      pools.clear();
    },
  };
}
