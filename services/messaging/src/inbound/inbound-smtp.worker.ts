import type { Logger, Worker } from '@crm/kit';
import { SMTPServer } from 'smtp-server';
import { CrmError, withStoredTrace } from '@crm/kit';
import type { Inbound } from './ingest';

/**
 * The inbound SMTP listener on INBOUND_SMTP_ADDR (host:port): where replies, auto-replies and
 * bounces arrive, forwarded by the workspace's mail system or addressed to the VERP return path.
 * It accepts any recipient (it relays nothing: every message is only read), answers 250 once the
 * message is recorded, 550 for a message that is not mail at all, and 451 (try again later) when
 * recording fails, so the sending server keeps the message and retries.
 */
export function inboundSmtpWorker(options: { inbound: Inbound; address: string; log: Logger; maxBytes: number; onListening?: (port: number) => void }): Worker {
  const { inbound, log, maxBytes } = options;
  const host = options.address.slice(0, options.address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  const port = Number(options.address.slice(options.address.lastIndexOf(':') + 1));
  return {
    name: 'inbound-smtp',
    async run(signal) {
      const server = new SMTPServer({
        name: 'crm-inbound',
        banner: 'CRM inbound mail',
        authOptional: true,
        disabledCommands: ['AUTH', 'STARTTLS'],
        size: maxBytes,
        logger: false,
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= maxBytes) chunks.push(chunk);
          });
          stream.on('end', () => {
            if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded || size > maxBytes) {
              callback(Object.assign(new Error(`message larger than ${maxBytes} bytes`), { responseCode: 552 }));
              return;
            }
            const recipients = session.envelope.rcptTo.map((r) => r.address);
            // A trace of its own per message received, its queries and events within it.
            withStoredTrace({}, 'receive email', { 'network.protocol.name': 'smtp' }, () => inbound.ingest(Buffer.concat(chunks), recipients)).then(
              () => callback(),
              (error: unknown) => {
                if (error instanceof CrmError && error.code === 'invalid_request') {
                  callback(Object.assign(new Error(error.message), { responseCode: 550 }));
                } else {
                  log.error({ err: error }, 'inbound mail could not be recorded; the sender will retry');
                  callback(Object.assign(new Error('temporary failure, try again later'), { responseCode: 451 }));
                }
              },
            );
          });
        },
      });
      server.on('error', (error) => log.warn({ err: error }, 'inbound SMTP listener error'));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const bound = server.server.address();
      options.onListening?.(typeof bound === 'object' && bound ? bound.port : port);
      log.info({ address: `${host}:${typeof bound === 'object' && bound ? bound.port : port}` }, 'inbound SMTP listening');
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
