import { SMTPServer } from 'smtp-server';
import { createTestCertificate } from './test-certificate';

/**
 * A real SMTP server for the directory's integration checks and mail (smtp-server): it offers
 * STARTTLS with a certificate the test trusts (`ca`), and AUTH only once the connection is
 * encrypted, taking one username and password and answering anything else `535 5.7.8
 * authentication failed`. It keeps every message it accepts. It can be stopped and started again
 * on the same port, as a server that goes down and comes back.
 */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent: headers and body. */
  raw: string;
}

export interface TestSmtpServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The certificate to trust, as a client's `tls.ca`. */
  readonly ca: string;
  /** The logins accepted so far, each over TLS (AUTH is not offered before STARTTLS). */
  readonly logins: number;
  /** The messages accepted so far, in order. */
  readonly messages: readonly ReceivedMail[];
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export async function startTestSmtpServer(account: { username: string; password: string }): Promise<TestSmtpServer> {
  const { key, cert } = createTestCertificate();
  let logins = 0;
  const messages: ReceivedMail[] = [];
  let port = 0;
  let server: SMTPServer | undefined;

  const listen = async () => {
    const next = new SMTPServer({
      key,
      cert,
      logger: false,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, session, callback) {
        if (session.secure && auth.username === account.username && auth.password === account.password) {
          logins++;
          return callback(null, { user: auth.username });
        }
        return callback(Object.assign(new Error('5.7.8 authentication failed'), { responseCode: 535 }));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const envelope = session.envelope;
          messages.push({
            from: envelope.mailFrom ? envelope.mailFrom.address : '',
            to: envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    // A client that drops its connection is the client's doing, not the test's failure.
    next.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      next.server.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    const address = next.server.address();
    port = typeof address === 'object' && address ? address.port : port;
    server = next;
  };

  await listen();
  return {
    host: '127.0.0.1',
    get port() {
      return port;
    },
    ca: cert,
    get logins() {
      return logins;
    },
    messages,
    async stop() {
      const running = server;
      server = undefined;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
    start: listen,
  };
}
