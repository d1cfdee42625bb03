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

/** Fastify's server options for these limits. */
export function clientTimeoutOptions(timeouts: ClientTimeouts): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: CHECK_INTERVAL_MS },
  };
}

/**
 * Answers a request that ran out of time with 408 `request_timeout` in the error envelope, then
 * closes the connection. It runs ahead of Fastify's own client-error handler, which then finds the
 * socket destroyed and does nothing; every other client error (a malformed request, oversized
 * headers) is still Fastify's to answer.
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
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT' || socket.destroyed) return;
    const answered = answering.get(socket)?.headersSent ?? false;
    const requestId = `req_${newId()}`;
    const remote = socket.remoteAddress;
    if (socket.writable && !answered) {
      const body = JSON.stringify({
        error: { code: 'request_timeout', message: 'the request did not arrive in time; send it again', request_id: requestId },
      });
      socket.write(
        'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n\r\n${body}`,
      );
    }
    socket.destroy();
    if (answered) log.info({ remote }, 'request body timed out after its answer: connection closed');
    else log.info({ requestId, status: 408, remote }, 'request timed out: 408, connection closed');
  });
}
