import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type Logger, newId } from '@crm/kit';
import type { FastifyInstance } from 'fastify';

/**
 * How long a client has to send its request (gateway/README.md, "Slow clients"). Without these a
 * client that trickles its body a byte a second holds a connection for as long as it likes: Fastify
 * turns Node's request timeout off by default.
 */
export interface ClientTimeouts {
  /** The request line and headers, counted from the request's first byte. */
  headersMs: number;
  /** The whole request, body included; the time the gateway takes to answer does not count. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

export const DEFAULT_CLIENT_TIMEOUTS: ClientTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/**
 * Node enforces the two request timeouts from a sweep every `connectionsCheckingInterval` (30 s by
 * default, which lets a 10 s limit run to 40 s). A sweep a second keeps every limit within a second.
 */
const CHECK_INTERVAL_MS = 1_000;
/**
 * A connection answered with a client error other than a timeout is closed by the gateway this
 * long after the answer, or once its client has sent this much more: the rest of an oversized
 * request is read, so the client gets the answer rather than a reset, but not without end.
 */
const LINGER_MS = 1_000;
const MAX_DRAINED_BYTES = 2 * 1024 * 1024;

/**
 * Fastify's server options for these limits. Fastify's own client-error handler is replaced by one
 * that does nothing: answerSlowClients answers every client error, in the envelope.
 */
export function clientTimeoutOptions(timeouts: ClientTimeouts): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
  clientErrorHandler: () => void;
} {
  return {
    clientErrorHandler: () => undefined,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
  };
}

/**
 * Answers a request that ran out of time with 408 `request_timeout` in the error envelope, and
 * every other error of the HTTP parser (headers over 16 KiB: 431; malformed HTTP: 400) in the
 * envelope too, then closes the connection (Fastify's own handler is turned off by
 * clientTimeoutOptions).
 */
export function answerSlowClients(app: FastifyInstance, log: Logger): void {
  // The response of the request a connection is receiving, while that request is incomplete: once
  // its answer has started (a 401 sent before the body arrived), a 408 would be a second answer.
  const answering = new WeakMap<Socket, ServerResponse>();
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    answering.set(request.socket, response);
    response.once('finish', () => {
      if (request.complete && answering.get(request.socket) === response) answering.delete(request.socket);
    });
  });
  app.server.prependListener('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.destroyed) return;
    const answer = clientErrorAnswer(error);
    const answered = answering.get(socket)?.headersSent ?? false;
    const requestId = `req_${newId()}`;
    const remote = socket.remoteAddress;
    if (socket.writable && !answered) {
      const body = JSON.stringify({ error: { code: answer.code, message: answer.message, request_id: requestId } });
      const response =
        `HTTP/1.1 ${answer.status} ${answer.reason}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body}`;
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        // A slow client is cut off at once: what it still trickles is not waited for.
        socket.write(response);
        socket.destroy();
      } else {
        // end(), not destroy(): closing a socket with unread bytes (the rest of an oversized request)
        // makes the kernel send a reset, and the client may lose the answer before reading it. What
        // still arrives is read and dropped, for LINGER_MS at most and MAX_DRAINED_BYTES at most.
        socket.end(response);
        let drained = 0;
        socket.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > MAX_DRAINED_BYTES) socket.destroy();
        });
        socket.resume();
        setTimeout(() => socket.destroy(), LINGER_MS).unref();
      }
    } else {
      socket.destroy();
    }
    if (answered) log.info({ remote, reason: error.code }, 'client error after the answer: connection closed');
    else log.info({ requestId, status: answer.status, remote, reason: error.code }, `${answer.logged}: ${answer.status}, connection closed`);
  });
}

/**
 * What a client error Node's HTTP parser meets before any route (so before Fastify) is answered:
 * always the error envelope, never Node's or Fastify's own text.
 */
function clientErrorAnswer(error: NodeJS.ErrnoException): { status: number; reason: string; code: string; message: string; logged: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: 'request_timeout',
        message: 'the request did not arrive in time; send it again',
        logged: 'request timed out',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'invalid_request',
        message: 'the request line and headers are larger than 16 KiB',
        logged: 'request headers too large',
      };
    default:
      return { status: 400, reason: 'Bad Request', code: 'invalid_request', message: 'the request is not well-formed HTTP/1.1', logged: 'malformed HTTP request' };
  }
}
