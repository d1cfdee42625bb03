import { type Counter, type Histogram, context, metrics } from '@opentelemetry/api';
import { RPCType, getRPCMetadata } from '@opentelemetry/core';

/**
 * The process's instruments, after the OpenTelemetry semantic conventions for HTTP and RPC:
 * durations in seconds, attributes of bounded cardinality only (a route template, never a path; a
 * method name; a status code; never an id or a workspace). Created on first use, so they bind to the
 * meter provider `startTelemetry` installed (without one, they record nothing).
 */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let instruments: { rpc: Histogram; refusals: Counter } | undefined;
function get() {
  if (instruments) return instruments;
  const meter = metrics.getMeter('crm');
  instruments = {
    rpc: meter.createHistogram('rpc.server.duration', {
      unit: 's',
      description: 'Duration of gRPC calls a service answered.',
      advice: { explicitBucketBoundaries: BUCKETS },
    }),
    refusals: meter.createCounter('crm.refusals', { description: 'Requests refused by a rate limit or a send quota.' }),
  };
  return instruments;
}

/**
 * The matched route template (`/v1/contacts/:id`) of the HTTP request being handled: the HTTP
 * instrumentation puts it on the request's span and on `http.server.request.duration`. A request
 * no route matched keeps none, so unknown paths never become series of their own.
 */
export function setHttpRoute(route: string | undefined): void {
  const rpc = getRPCMetadata(context.active());
  if (route && rpc?.type === RPCType.HTTP) rpc.route = route;
}

/** One gRPC call served: `code` is the gRPC status code (0 = OK). */
export function recordRpcServed(service: string, method: string, code: number, seconds: number): void {
  get().rpc.record(seconds, { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method, 'rpc.grpc.status_code': code });
}

/** A request refused by a limit: `rate_limit` (per key or workspace) or `send_quota`. */
export function countRefusal(kind: 'rate_limit' | 'send_quota'): void {
  get().refusals.add(1, { 'crm.refusal': kind });
}
