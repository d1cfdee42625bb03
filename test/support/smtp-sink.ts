import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

/**
 * A real SMTP server for tests (smtp-server): it records every message it accepts with its
 * envelope, and can be told to refuse a sender, a recipient or a message the way real servers do
 * (550 user unknown, 451 try later), or to hold its answer to a message's end of data (a slow
 * server, or one held until the test releases it, so a test can kill the sender in that window).
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
  /** An error for the envelope sender, answered to MAIL FROM: `{code: 550, message}` refuses it for good, 451 for now. */
  mail?: (address: string) => { code: number; message: string } | undefined;
  /**
   * An error for a recipient: `{code: 550, message}` refuses it for good, 451 for now. May be
   * async: the RCPT command is answered once it settles (a test changes state at that moment).
   */
  rcpt?: (address: string) => { code: number; message: string } | undefined | Promise<{ code: number; message: string } | undefined>;
  /** An error for the whole message, answered after its end-of-data mark. */
  data?: (raw: Buffer) => { code: number; message: string } | undefined;
  /** How long the server takes to answer a message's end-of-data mark (a slow server), or per message. */
  delayMs?: number | ((raw: Buffer) => number);
  /**
   * Answers no end of data while true: every message that completes, and every one whose `delayMs`
   * runs out meanwhile, waits for `release()`. Set it to freeze the answers at a moment of the
   * test's choosing.
   */
  holdAnswers?: boolean;
  /**
   * What the server does with a message whose client went away while its answer was held (the
   * sender died between its end of data and the answer): `keep` it, as a server that queued it
   * before answering (the default; it is received once the hold ends), or `discard` it at once, as
   * one that had not (it is never received). RFC 5321 allows both.
   */
  lostAnswer?: (raw: Buffer) => 'keep' | 'discard';
}

/** A message whose answer the server holds back right now. */
export interface HeldMail extends ReceivedMail {
  /** Its client went away while it waited (the connection closed). */
  clientGone: boolean;
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
  /** Messages dropped because their client went away while the answer was held (`lostAnswer: discard`). */
  readonly discarded: ReceivedMail[];
  /** How many accepted messages carry this Message-ID. */
  countOf(messageId: string): number;
  /** How many messages' answers `delayMs` or `holdAnswers` hold back right now. */
  readonly holding: number;
  /** The messages whose answers are held back right now. */
  readonly held: HeldMail[];
  /** Answers every message held back now (the rules themselves stay as they are). */
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
  const discarded: ReceivedMail[] = [];
  /** The message each connection is in the middle of sending, by session id. */
  const inData = new Map<string, { from: string; to: string[]; chunks: Buffer[] }>();
  const sink = { rules };
  /** Messages whose answer is held, by session id (a session has one message at a time). */
  const held = new Map<string, { mail: HeldMail; raw: Buffer; finish: (how: 'answer' | 'discard') => void }>();
  /** Holds the answer for `ms` (none: until released), and longer while `holdAnswers` is set. */
  const hold = (sessionId: string, mail: HeldMail, raw: Buffer, ms: number | undefined) =>
    new Promise<'answer' | 'discard'>((resolve) => {
      const finish = (how: 'answer' | 'discard') => {
        clearTimeout(timer);
        held.delete(sessionId);
        resolve(how);
      };
      const timer = ms ? setTimeout(() => !sink.rules.holdAnswers && finish('answer'), ms) : undefined;
      held.set(sessionId, { mail, raw, finish });
    });
  const smtpError = (e: { code: number; message: string }) => Object.assign(new Error(e.message), { responseCode: e.code });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onMailFrom(address: SMTPServerAddress, _session, callback) {
      const refusal = sink.rules.mail?.(address.address);
      callback(refusal ? smtpError(refusal) : undefined);
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      Promise.resolve(sink.rules.rcpt?.(address.address)).then(
        (refusal) => callback(refusal ? smtpError(refusal) : undefined),
        (error: Error) => callback(error),
      );
    },
    // A client gone in the middle of DATA: what it sent is recorded as cut off, never as received.
    // One gone while its answer was held: the message is kept or discarded, as `lostAnswer` says.
    onClose(session) {
      const waiting = held.get(session.id);
      if (waiting) {
        waiting.mail.clientGone = true;
        if (sink.rules.lostAnswer?.(waiting.raw) === 'discard') waiting.finish('discard');
      }
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
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          messageId: header(raw, 'Message-ID'),
          subject: header(raw, 'Subject'),
        };
        const delay = typeof sink.rules.delayMs === 'function' ? sink.rules.delayMs(raw) : sink.rules.delayMs;
        if (delay || sink.rules.holdAnswers) {
          const how = await hold(session.id, { ...mail, clientGone: false }, raw, delay || undefined);
          if (how === 'discard') {
            discarded.push(mail);
            return callback(smtpError({ code: 451, message: '4.4.2 connection lost before the answer' }));
          }
        }
        const refusal = sink.rules.data?.(raw);
        if (refusal) return callback(smtpError(refusal));
        received.push(mail);
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
    discarded,
    countOf: (messageId) => received.filter((m) => m.messageId === messageId).length,
    get holding() {
      return held.size;
    },
    get held() {
      return [...held.values()].map((h) => h.mail);
    },
    release: () => {
      for (const h of [...held.values()]) h.finish('answer');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
