import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expectEventually, installTestMetrics, pointsOf } from '@crm/kit/testing';
import { trace } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import Fastify, { type FastifyInstance } from 'fastify';
import { useTestTracing } from '../../packages/kit/src/events/event-bus.contract';
import { inRequestSpan, setRoute, tracedServerFactory } from './http-tracing';

// Before any instrument is used, so the gateway's metric binds to it.
const meter = installTestMetrics();
afterAll(() => meter.shutdown());
const exporter = useTestTracing();

let app: FastifyInstance;
let base: string;
const seenInside: Record<string, string | undefined> = {};

beforeAll(async () => {
  app = Fastify({ serverFactory: tracedServerFactory, keepAliveTimeout: 1_234 });
  app.addHook('onRequest', async (request) => setRoute(request.raw, request.routeOptions.url));
  app.addHook('onResponse', async (request) => {
    seenInside[`after ${request.url}`] = inRequestSpan(request.raw, () => trace.getActiveSpan()?.spanContext().traceId);
  });
  app.get('/things/:id', async (request) => {
    // The handler (and the gRPC calls it makes) runs inside the request's span.
    seenInside[request.url] = trace.getActiveSpan()?.spanContext().traceId;
    return { ok: true };
  });
  app.get('/broken', async () => {
    throw new Error('boom');
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app.close());

const durations = async () => pointsOf(await meter.collect(), 'http.server.request.duration');

test('the server keeps the timeouts Fastify was given', () => {
  expect(app.server.keepAliveTimeout).toBe(1_234);
});

test('a request is one server span, child of the trace the client sent, named by its route template', async () => {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const response = await fetch(`${base}/things/42?x=1`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
  expect(response.status).toBe(200);
  // The span ends when the response has been sent, which the client may see first.
  const [span] = await expectEventually(() => {
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    return exporter.getFinishedSpans();
  });
  expect(span).toMatchObject({
    name: 'GET /things/:id',
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': 'GET', 'http.route': '/things/:id', 'url.path': '/things/42', 'http.response.status_code': 200 },
  });
  expect(span!.spanContext().traceId).toBe(traceId);
  expect(span!.parentSpanContext?.spanId).toBe(parentId);
  expect(seenInside['/things/42?x=1']).toBe(traceId);
  expect(seenInside['after /things/42?x=1']).toBe(traceId);
});

test('a 5xx marks the span as an error; a path no route matched has no route, on the span or the metric', async () => {
  expect((await fetch(`${base}/broken`)).status).toBe(500);
  expect((await fetch(`${base}/nowhere/7`)).status).toBe(404);
  const spans = await expectEventually(() => {
    expect(exporter.getFinishedSpans()).toHaveLength(2);
    return exporter.getFinishedSpans();
  });
  expect(spans.find((s) => s.name === 'GET /broken')?.status.code).toBe(SpanStatusCode.ERROR);
  const unmatched = spans.find((s) => s.attributes['url.path'] === '/nowhere/7')!;
  expect(unmatched.name).toBe('GET');
  expect(unmatched.attributes['http.route']).toBeUndefined();
  const points = await durations();
  expect(points.find((p) => p.attributes['http.response.status_code'] === 500)?.attributes['http.route']).toBe('/broken');
  const notFound = points.find((p) => p.attributes['http.response.status_code'] === 404)!;
  expect(notFound.attributes).toEqual({ 'http.request.method': 'GET', 'http.response.status_code': 404 });
});

test('the duration metric counts each request by route template, method and status, never by path', async () => {
  const count = async () => (await durations()).find((p) => p.attributes['http.route'] === '/things/:id' && p.attributes['http.response.status_code'] === 200)?.value ?? 0;
  const before = await count();
  for (const id of ['a', 'b', 'c']) await fetch(`${base}/things/${id}`);
  await expectEventually(async () => expect((await count()) - before).toBe(3));
  for (const point of await durations()) expect(JSON.stringify(point.attributes)).not.toMatch(/things\/[abc]|42/);
});

test('a method the HTTP specification does not define is counted as _OTHER, so clients cannot mint series', async () => {
  const http = await import('node:http');
  await new Promise<void>((resolve, reject) => {
    const request = http.request(`${base}/things/1`, { method: 'PURGE' }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end();
  });
  await expectEventually(async () => {
    const methods = new Set((await durations()).map((p) => p.attributes['http.request.method']));
    expect(methods.has('PURGE')).toBe(false);
    expect(methods.has('_OTHER')).toBe(true);
  });
});

test('health probes make neither spans nor metric points', async () => {
  exporter.reset();
  const before = (await durations()).length;
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect(exporter.getFinishedSpans()).toEqual([]);
  expect((await durations()).length).toBe(before);
});
