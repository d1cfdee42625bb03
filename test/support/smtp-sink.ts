import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/**
 * A real SMTP server for tests (smtp-server): it records every message it accepts with its
 * envelope, and can be told to refuse a recipient or a message the way real servers do (550 user
 * unknown, 451 try later), or to hang up mid-transaction.
 */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
  /** The Message-ID header, angle brackets included. */
  messageId?: string;
  subject?: string;
}

export interface SinkRules {
  /**
   * An error for a recipient: `{code: 550, message}` refuses it for good, 451 for now. May be
   * async: the RCPT command is answered once it settles (a test changes state at that moment).
   */
  rcpt?: (address: string) => { code: number; message: string } | undefined | Promise<{ code: number; message: string } | undefined>;
  /** An error for the whole message, answered after its end-of-data mark. */
  data?: (raw: Buffer) => { code: number; message: string } | undefined;
  /** How long the server takes to answer a message's end-of-data mark (a slow server), or per message. */
  delayMs?: number | ((raw: Buffer) => number);
}

export interface SmtpSink {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>` (no TLS, no auth). */
  readonly url: string;
  readonly received: ReceivedMail[];
  /**
   * Messages whose client hung up in the middle of DATA, before the end-of-data mark (a sender
   * killed mid-message): the bytes as far as they came. The server kept none of them.
   */
  readonly cutOff: ReceivedMail[];
  /** The bytes of each message still in DATA (no end-of-data mark yet), as far as they have come. */
  readonly receiving: Buffer[];
  rules: SinkRules;
  /** How many accepted messages carry this Message-ID. */
  countOf(messageId: string): number;
  /** Messages whose answer `delayMs` holds back right now. */
  readonly holding: number;
  /** Answers every message held back by `delayMs` now (the rule itself stays as it is). */
  release(): void;
  close(): Promise<void>;
}

const header = (raw: Buffer, name: string): string | undefined => {
  const head = raw.toString('utf8', 0, Math.min(raw.length, 64 * 1024)).split(/\r?\n\r?\n/)[0] ?? '';
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head);
  return match?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim();
};

export async function startSmtpSink(rules: SinkRules = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const cutOff: ReceivedMail[] = [];
  /** The message each connection is in the middle of sending, by session id. */
  const inData = new Map<string, { from: string; to: string[]; chunks: Buffer[] }>();
  const sink = { rules };
  const held = new Set<() => void>();
  const holdFor = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        held.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      held.add(done);
    });
  const smtpError = (e: { code: number; message: string }) => Object.assign(new Error(e.message), { responseCode: e.code });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      Promise.resolve(sink.rules.rcpt?.(address.address)).then(
        (refusal) => callback(refusal ? smtpError(refusal) : undefined),
        (error: Error) => callback(error),
      );
    },
    // A client gone in the middle of DATA: what it sent is recorded as cut off, never as received.
    onClose(session) {
      const partial = inData.get(session.id);
      if (!partial) return;
      inData.delete(session.id);
      const raw = Buffer.concat(partial.chunks);
      cutOff.push({ from: partial.from, to: partial.to, raw, messageId: header(raw, 'Message-ID'), subject: header(raw, 'Subject') });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      inData.set(session.id, { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), chunks });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        inData.delete(session.id);
        const raw = Buffer.concat(chunks);
        const delay = typeof sink.rules.delayMs === 'function' ? sink.rules.delayMs(raw) : sink.rules.delayMs;
        if (delay) await holdFor(delay);
        const refusal = sink.rules.data?.(raw);
        if (refusal) return callback(smtpError(refusal));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: header(raw, 'Message-ID'),
          subject: header(raw, 'Subject'),
        });
        callback();
      });
    },
  });
  // A client that dies mid-conversation (a process killed with SIGKILL) resets its connection:
  // the server reports it as an error event, which is the client's doing, not the test's failure.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    cutOff,
    get receiving() {
      return [...inData.values()].map((message) => Buffer.concat(message.chunks));
    },
    get rules() {
      return sink.rules;
    },
    set rules(value: SinkRules) {
      sink.rules = value;
    },
    countOf: (messageId) => received.filter((m) => m.messageId === messageId).length,
    get holding() {
      return held.size;
    },
    release: () => {
      for (const done of [...held]) done();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
