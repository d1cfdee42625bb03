/**
 * The gateway's HTTP server spans and its `http.server.request.duration` metric, recorded here
 * rather than by `@opentelemetry/instrumentation-http`. With OpenTelemetry off the gateway answered
 * a read 0.2 to 0.3 ms sooner at p50 (of 1.8) with a fifth more throughput, while leaving out the
 * gRPC instrumentation alone changed nothing (test/bench/HISTORY.md, 2026-11-26, "Gateway: the
 * floor, leases, and what is left"): the HTTP instrumentation patches every server, binds each
 * request's emitters to the context and computes a dozen attributes per request. This does the
 * part the gateway needs, around the one server Fastify builds (`serverFactory`):
 *
 * - the W3C trace context a client sends is the parent; every hook, handler, upstream gRPC call
 *   (whose instrumentation injects it) and log line of the request runs inside the request's span;
 * - the span is named `METHOD /route/template` once the router matched, and carries the method,
 *   path, route, status code, and an error status for a 5xx; without a tracer provider (no
 *   exporter) it is a non-recording span that only carries the client's ids on;
 * - the metric has the route template (never the path), the method (unknown ones as `_OTHER`, so a
 *   client cannot mint series) and the status code;
 * - `/healthz` and `/readyz` get neither: probes would flood the traces and the metric.
 */
import * as http from 'node:http';
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { recordHttpServed } from '@crm/kit';

const tracer = trace.getTracer('crm.gateway');
const UNTRACED_PATHS = new Set(['/healthz', '/readyz']);
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

interface RequestSpan {
  span: Span;
  context: Context;
  method: string;
  started: number;
  route?: string;
}

const spans = new WeakMap<http.IncomingMessage, RequestSpan>();

/** The route template the router matched (`/v1/contacts/:id`), for the request's span and metric. */
export function setRoute(request: http.IncomingMessage, route: string | undefined): void {
  const traced = spans.get(request);
  if (traced && route) traced.route = route;
}

/**
 * Runs `fn` inside the request's span, for what runs after the response (the request's log line,
 * written from the response's events).
 */
export function inRequestSpan<T>(request: http.IncomingMessage, fn: () => T): T {
  const traced = spans.get(request);
  return traced ? context.with(traced.context, fn) : fn();
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function finish(traced: RequestSpan, response: http.ServerResponse): void {
  const { span, route, method } = traced;
  const status = response.statusCode;
  if (span.isRecording()) {
    if (route) {
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  recordHttpServed(method, route, status, (performance.now() - traced.started) / 1000);
}

/** Fastify's request handler inside a span of its own (see the file's comment). */
export function traceRequests(handler: http.RequestListener): http.RequestListener {
  return (request, response) => {
    const path = pathOf(request.url ?? '/');
    if (UNTRACED_PATHS.has(path)) return handler(request, response);
    const method = KNOWN_METHODS.has(request.method ?? '') ? request.method! : '_OTHER';
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' } },
      parent,
    );
    const traced: RequestSpan = { span, context: trace.setSpan(parent, span), method, started: performance.now() };
    spans.set(request, traced);
    // Emitted once the response is sent, or when the connection closed before it was.
    response.once('close', () => finish(traced, response));
    context.with(traced.context, handler, undefined, request, response);
  };
}

/**
 * Fastify's `serverFactory`: the HTTP/1.1 server Fastify would build (with its timeouts), its
 * requests traced.
 */
export function tracedServerFactory(
  handler: http.RequestListener,
  options: { http?: http.ServerOptions; keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number },
): http.Server {
  const server = http.createServer(options.http ?? {}, traceRequests(handler));
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
  if (options.maxRequestsPerSocket && options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}
