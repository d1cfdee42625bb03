import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CrmError } from '@crm/kit';
import { expectEventually } from '@crm/kit/testing';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from './app';

/**
 * The client timeouts on a real socket (they live in Node's HTTP server, which app.inject never
 * reaches), with limits of a second or two so the suite stays quick. The end-to-end suite
 * test/e2e/slow-clients.e2e.test.ts runs the default limits under several hundred such clients.
 */
const TIMEOUTS = { headersMs: 1_000, requestMs: 2_000, keepAliveMs: 1_000 };
/** Node sweeps for expired requests once a second (slow-clients.ts), and schedules are loose. */
const SWEEP_MS = 1_000;
const SLACK_MS = 700;

let app: FastifyInstance;
let port: number;
/** The gateway's log lines, parsed. */
let logged: { level: number; msg: string }[];
/** Settles when a request to /slow has reached its handler. */
let slowReached: Promise<void>;

beforeEach(async () => {
  logged = [];
  let reached!: () => void;
  slowReached = new Promise<void>((resolve) => (reached = resolve));
  app = await buildApp({
    resolveKey: async () => {
      throw new CrmError('unauthorized', 'invalid API key');
    },
    resources: [],
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
    clientTimeouts: TIMEOUTS,
  });
  app.post('/upload', async (request) => ({ received: JSON.stringify(request.body).length }));
  app.post('/refused', { onRequest: async () => Promise.reject(new CrmError('forbidden', 'no')) }, async () => ({}));
  // Answers later than a client may take to send its request: the handler's time is the gateway's.
  app.get('/slow', async () => {
    reached();
    await new Promise((resolve) => setTimeout(resolve, TIMEOUTS.requestMs + 1_000));
    return { ok: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
afterEach(async () => {
  app.server.closeAllConnections();
  await app.close();
});

interface Outcome {
  /** Everything the server sent before it closed the connection. */
  received: string;
  /** From the first byte sent to the close. */
  ms: number;
}

/** Sends `head` at once, then `drip` one character every 200 ms, until the server closes. */
function trickle(head: string, drip: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    let sent = 0;
    const timer = setInterval(() => socket.write(drip[sent++ % drip.length]!), 200);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, ms: Date.now() - started });
    });
    setTimeout(() => reject(new Error(`still open after 10 s; received ${JSON.stringify(received)}`)), 10_000).unref();
  });
}

function expect408(outcome: Outcome, limitMs: number) {
  const [head, body] = outcome.received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(head).toMatch(/\r\nConnection: close\r\n/i);
  const requestId = /\r\nX-Request-Id: (\S+)/i.exec(head!)?.[1];
  expect(JSON.parse(body!)).toEqual({ error: { code: 'request_timeout', message: expect.any(String), request_id: requestId } });
  expect(outcome.ms).toBeGreaterThanOrEqual(limitMs - 50);
  expect(outcome.ms).toBeLessThan(limitMs + SWEEP_MS + SLACK_MS);
}

test('headers that do not arrive in time are answered 408 in the envelope, and the connection is closed', async () => {
  expect408(await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'abcdef'), TIMEOUTS.headersMs);
});

test('a body that does not arrive in time is answered 408, though its headers were prompt', async () => {
  const head = 'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"';
  expect408(await trickle(head, 'a'), TIMEOUTS.requestMs);
  // The body parser's abort is the client's doing: logged as such, not as an error of ours.
  await expectEventually(() =>
    expect(logged.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['request timed out: 408, connection closed', 'connection closed before the request body arrived']),
    ),
  );
  expect(logged.filter((line) => line.level >= 50)).toEqual([]);
});

test('a request answered before its body arrived gets no second answer: the connection is closed', async () => {
  const head = 'POST /refused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"';
  const outcome = await trickle(head, 'a');
  expect(outcome.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  expect(outcome.received).toMatch(/^HTTP\/1\.1 403 /);
  expect(outcome.ms).toBeLessThan(TIMEOUTS.requestMs + SWEEP_MS + SLACK_MS);
});

test('the time the gateway takes to answer does not count against the client', async () => {
  const response = await fetch(`http://127.0.0.1:${port}/slow`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ ok: true });
});

test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
  const outcome = await new Promise<Outcome>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve({ received, ms: Date.now() - started }));
  });
  expect(outcome.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(outcome.received).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
  expect(outcome.ms).toBeGreaterThanOrEqual(TIMEOUTS.keepAliveMs);
  // Node keeps a connection a second past the timeout it announces, so a client never reuses one
  // the server is closing.
  expect(outcome.ms).toBeLessThan(TIMEOUTS.keepAliveMs + 1_000 + SLACK_MS);
});

test('a request on an open connection while the gateway closes is refused 503 in the envelope', async () => {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.on('connect', resolve));
  const next = () => new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  // The first request is in flight when close begins; a second one arrives behind it.
  await slowReached;
  const closing = app.close();
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  let text = await next();
  while ((text.match(/HTTP\/1\.1 /g) ?? []).length < 2) text += await next();
  await closing;
  const [first, second] = text.split(/(?=HTTP\/1\.1 )/);
  expect(first).toMatch(/^HTTP\/1\.1 200 /);
  expect(second).toMatch(/^HTTP\/1\.1 503 /);
  expect(second).toMatch(/\r\nconnection: close\r\n/i);
  expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
  expect(JSON.parse(second!.split('\r\n\r\n')[1]!).error.code).toBe('unavailable');
  socket.destroy();
});

describe('what the HTTP parser refuses is answered in the envelope', () => {
  /** Sends raw bytes and collects the answer until the server closes. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
  const envelope = (received: string, status: string, code: string) => {
    const [head, body] = received.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status}\\r\\n`));
    const requestId = /\r\nX-Request-Id: (\S+)/i.exec(head!)?.[1];
    expect(JSON.parse(body!)).toEqual({ error: { code, message: expect.any(String), request_id: requestId } });
  };

  test('a request line and headers over 16 KiB: 431', async () => {
    envelope(await raw(`GET /v1/contacts?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), '431 Request Header Fields Too Large', 'invalid_request');
  });

  test('a client that keeps sending after its refusal, ignoring the close, is cut off within a second or so', async () => {
    const started = Date.now();
    const received = await new Promise<string>((resolve) => {
      // allowHalfOpen: it ignores the gateway's end of the connection and keeps its own side open.
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write(`GET /?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n`));
      let got = '';
      const timer = setInterval(() => socket.writable && socket.write('x'), 100);
      socket.on('data', (chunk) => (got += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve(got);
      });
    });
    // 431 or 400, as the parser meets the stream first; the answer in the envelope either way.
    expect(received).toMatch(/^HTTP\/1\.1 (431|400) /);
    expect(JSON.parse(received.split('\r\n\r\n')[1]!).error.code).toBe('invalid_request');
    expect(Date.now() - started).toBeLessThan(1_000 + SLACK_MS + 500);
  });

  test('bytes that are not HTTP: 400', async () => {
    envelope(await raw('NOT HTTP AT ALL\r\n\r\n'), '400 Bad Request', 'invalid_request');
    envelope(await raw('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'), '400 Bad Request', 'invalid_request');
  });
});
