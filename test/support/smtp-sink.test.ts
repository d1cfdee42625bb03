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
