import * as net from 'node:net';
import { expectEventually } from '@crm/kit/testing';
import { startSmtpSink } from './smtp-sink';

/** A sender that dies in the middle of DATA: the sink records the message as cut off, not received. */
test('a client gone before the end-of-data mark leaves a cut-off message, and no received one', async () => {
  const sink = await startSmtpSink();
  const socket = net.connect(sink.port, '127.0.0.1');
  try {
    let heard = '';
    socket.on('data', (chunk) => (heard += chunk.toString()));
    socket.on('error', () => undefined);
    const waitFor = (code: string) => expectEventually(async () => expect(heard).toMatch(new RegExp(`^${code} `, 'm')));
    await waitFor('220');
    for (const [line, code] of [['EHLO test', '250'], ['MAIL FROM:<a@example.com>', '250'], ['RCPT TO:<b@example.com>', '250'], ['DATA', '354']] as const) {
      heard = '';
      socket.write(`${line}\r\n`);
      await waitFor(code);
    }
    socket.write('Message-ID: <cut@example.com>\r\nSubject: half\r\n\r\nthe whole body, but not its mark\r\n');
    // The sink has the bytes before the client goes (a reset could otherwise drop them unread); it
    // holds back the last few until it knows they are not the end-of-data mark.
    await expectEventually(() => expect(sink.receiving.map(String)).toEqual([expect.stringContaining('the whole body, but not')]));
    socket.destroy();
    await expectEventually(async () => expect(sink.cutOff.map((m) => m.messageId)).toEqual(['<cut@example.com>']));
    expect(sink.received).toEqual([]);
    expect(sink.countOf('<cut@example.com>')).toBe(0);
  } finally {
    socket.destroy();
    await sink.close();
  }
});

/** A sender that dies after its end of data while the sink holds the answer: the sink keeps or discards the message, as told. */
test.each([
  ['keep', 'kept'],
  ['discard', 'discarded'],
] as const)('a client gone while its answer is held (lostAnswer: %s): the message is %s', async (fate) => {
  const sink = await startSmtpSink({ holdAnswers: true, lostAnswer: () => fate });
  const socket = net.connect(sink.port, '127.0.0.1');
  try {
    let heard = '';
    socket.on('data', (chunk) => (heard += chunk.toString()));
    socket.on('error', () => undefined);
    const waitFor = (code: string) => expectEventually(async () => expect(heard).toMatch(new RegExp(`^${code} `, 'm')));
    await waitFor('220');
    for (const [line, code] of [['EHLO test', '250'], ['MAIL FROM:<a@example.com>', '250'], ['RCPT TO:<b@example.com>', '250'], ['DATA', '354']] as const) {
      heard = '';
      socket.write(`${line}\r\n`);
      await waitFor(code);
    }
    heard = '';
    socket.write('Message-ID: <held@example.com>\r\nSubject: whole\r\n\r\nthe whole body and its mark\r\n.\r\n');
    await expectEventually(() => expect(sink.held.map((m) => [m.messageId, m.clientGone])).toEqual([['<held@example.com>', false]]));
    expect(heard).toBe(''); // no answer while held
    socket.destroy();
    if (fate === 'discard') {
      await expectEventually(() => expect(sink.discarded.map((m) => m.messageId)).toEqual(['<held@example.com>']));
      expect(sink.holding).toBe(0);
    } else {
      await expectEventually(() => expect(sink.held.map((m) => m.clientGone)).toEqual([true]));
      expect(sink.received).toEqual([]);
      sink.release();
      await expectEventually(() => expect(sink.countOf('<held@example.com>')).toBe(1));
    }
    expect(sink.countOf('<held@example.com>')).toBe(fate === 'keep' ? 1 : 0);
  } finally {
    socket.destroy();
    await sink.close();
  }
});
