import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { remainingMs, withDeadline } from './deadline';
import { type RequestIn, type RequestOut, type ResponseIn, type ResponseOut, type ServiceConstructor, serviceNameOf } from './context-api';
import {
  IDEMPOTENCY_FINGERPRINT_METADATA,
  IDEMPOTENCY_KEY_METADATA,
  IDEMPOTENCY_ORIGIN_METADATA,
  IDEMPOTENT_REPLAYED_METADATA,
  withIdempotencyKey,
} from './idempotency';
import { CrmError, DomainError, GRPC_STATUS_TO_CODE, grpcStatusOf, isErrorCode } from './errors';
import { newId } from './ids';
import type { Logger } from './logger';
import { recordRpcServed } from './metrics';
import { isBackingServiceUnavailable } from './unavailable';

/**
 * Failed calls carry `{code, message, details}` as JSON in this binary trailing metadata entry, so
 * callers get the domain code and validation details without parsing a message string.
 */
export const ERROR_METADATA_KEY = 'crm-error-bin';

/**
 * A service's handlers, typed from its generated definition: an async function of the request per
 * RPC, resolving with the response or throwing (a CrmError becomes its status and the
 * crm-error-bin trailer; anything else is `internal` with the cause only in the log).
 */
export type ServiceHandlers<D> = {
  [K in keyof D]: (request: RequestOut<D[K]>, call: grpc.ServerUnaryCall<RequestOut<D[K]>, ResponseIn<D[K]>>) => Promise<ResponseIn<D[K]>>;
};

/** A handler's failure as the caller sees it: a CrmError as it is, anything else `internal` with an error id (the cause stays in the log under that id). */
function callerError(error: unknown, log: Logger, method: string): CrmError {
  if (error instanceof CrmError) return error;
  const errorId = newId();
  if (isBackingServiceUnavailable(error)) {
    // A database or cache that is restarting, failing over or out of connections: the caller may
    // retry (503 with Retry-After at the gateway), and nothing was half-written (unavailable.ts).
    log.warn({ err: error, errorId, method }, 'a backing service is unavailable: answered UNAVAILABLE');
    return new CrmError('unavailable', `a backing service is unavailable; retry the request (error id ${errorId})`);
  }
  log.error({ err: error, errorId, method }, 'unexpected error in gRPC handler');
  return new CrmError('internal', `internal error (error id ${errorId})`);
}

const payloadOf = (crm: CrmError) =>
  JSON.stringify({ code: crm.code, reason: crm instanceof DomainError ? crm.reason : undefined, message: crm.message, details: crm.details });

/**
 * What a caller learns of a failure, as JSON: `{code, reason, message, details}`. The
 * crm-error-bin trailer carries it, and so does each failed item of a batch call.
 */
export function errorPayload(error: unknown, log: Logger, method: string): string {
  return payloadOf(callerError(error, log, method));
}

/** The domain error an `errorPayload` describes, or undefined when it is not one. */
export function errorFromPayload(payload: string | Buffer): CrmError | undefined {
  try {
    const parsed = JSON.parse(Buffer.isBuffer(payload) ? payload.toString('utf8') : payload) as {
      code?: unknown;
      reason?: unknown;
      message?: unknown;
      details?: unknown;
    };
    if (isErrorCode(parsed.code) && typeof parsed.message === 'string') {
      return CrmError.remote(parsed.code, parsed.message, parsed.details, parsed.reason);
    }
  } catch {
    // Not ours.
  }
  return undefined;
}

export function toServiceError(error: unknown, log: Logger, method: string): Partial<grpc.StatusObject> {
  const crm = callerError(error, log, method);
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(payloadOf(crm)));
  return { code: grpcStatusOf(crm), details: crm.message, metadata };
}

/**
 * Binds async handlers to grpc-js's callback API: each call runs under the caller's deadline and
 * the Idempotency-Key it carried (kit/idempotency), so every store and peer call below sees both.
 */
export function implement<D>(handlers: ServiceHandlers<D>, log: Logger, service = 'unknown'): grpc.UntypedServiceImplementation {
  const bound: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers as Record<string, (req: unknown, call: unknown) => Promise<unknown>>)) {
    bound[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const started = performance.now();
      const served = (code: number) => recordRpcServed(service, name, code, (performance.now() - started) / 1000);
      const deadline = call.getDeadline();
      const metadataValue = (key: string) => {
        const value = call.metadata.get(key)[0];
        return value === undefined ? undefined : String(value);
      };
      const run = withIdempotencyKey(
        {
          key: metadataValue(IDEMPOTENCY_KEY_METADATA),
          fingerprint: metadataValue(IDEMPOTENCY_FINGERPRINT_METADATA),
          origin: metadataValue(IDEMPOTENCY_ORIGIN_METADATA),
        },
        () => withDeadline(deadline instanceof Date ? deadline.getTime() : deadline, () => handler(call.request, call)),
      );
      run.result.then(
        (response) => {
          // The replay marker travels in the response headers, not the trailers: OpenTelemetry's
          // gRPC instrumentation (0.223) wraps unary callbacks as (err, value) and drops trailers.
          if (run.replayed()) {
            const headers = new grpc.Metadata();
            headers.set(IDEMPOTENT_REPLAYED_METADATA, 'true');
            call.sendMetadata(headers);
          }
          served(grpc.status.OK);
          callback(null, response);
        },
        (error: unknown) => {
          const failure = toServiceError(error, log, name);
          served(failure.code ?? grpc.status.UNKNOWN);
          callback(failure);
        },
      );
    };
  }
  return bound;
}

/** A service ready to be served: its handlers bound to its generated definition. */
export function bindService<D extends grpc.ServiceDefinition>(definition: D, handlers: ServiceHandlers<D>, log: Logger): GrpcServiceBinding {
  const missing = Object.keys(definition).filter((method) => !(method in (handlers as object)));
  if (missing.length) throw new Error(`${serviceNameOf(definition)}: no handler for ${missing.join(', ')}`);
  const name = serviceNameOf(definition);
  return { name, definition, implementation: implement(handlers, log, name) };
}

/** Rebuilds the domain error from a failed call: our metadata when present, else the bare status. */
export function fromServiceError(error: grpc.ServiceError): CrmError {
  const raw = error.metadata?.get(ERROR_METADATA_KEY)?.[0];
  const carried = raw === undefined ? undefined : errorFromPayload(raw);
  if (carried) return carried;
  const code = GRPC_STATUS_TO_CODE[error.code as grpc.status] ?? 'internal';
  const message =
    code === 'unavailable'
      ? 'a backing service is unavailable; retry shortly'
      : code === 'timeout'
        ? 'a backing service did not answer in time'
        : code === 'internal'
          ? 'internal error'
          : error.details || code;
  return new CrmError(code, message);
}

export interface CallOptions {
  /** Time the callee has; default the caller's own deadline when it runs under one, else 10 s. */
  deadlineMs?: number;
  metadata?: grpc.Metadata;
  /** Propagates the caller's deadline and cancellation when a service calls another. */
  parent?: grpc.ServerUnaryCall<unknown, unknown>;
  /** Receives the response headers of a successful call (e.g. the idempotent-replay marker). */
  onResponseMetadata?: (metadata: grpc.Metadata) => void;
  /**
   * Reads the response's bytes instead of the method's own deserializer (the gateway reads
   * resource answers straight into records: @crm/proto's record-decoder).
   */
  deserialize?: (bytes: Buffer) => unknown;
}

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * What a call's deserializer hands grpc-js: the answer in a box the call empties once it resolves.
 * grpc-js keeps the message it received, and the callback it was given, in the call's listeners,
 * and those stay reachable from the call's HTTP/2 stream until a full garbage collection (V8's
 * young-generation collections keep whatever Node's stream handles reach). Held through the
 * message, or through the callback's promise, every answer would outlive the collections that
 * should free it, be copied, then promoted to the old generation to wait for a full collection. So
 * the box is emptied, and the callback lets go of its promise, once the call has settled
 * (packages/kit/README.md, "The request path's own cost").
 */
interface Answer {
  value: unknown;
}

/** Calls a unary method and resolves with its response and response headers, or rejects with a CrmError. */
export function unaryWithMetadata<Req, Res>(
  client: grpc.Client,
  method: string,
  request: Req,
  options: CallOptions = {},
): Promise<{ response: Res; metadata: grpc.Metadata }> {
  const definition = (client.constructor as { service?: grpc.ServiceDefinition }).service?.[method];
  if (!definition) throw new Error(`no gRPC method ${method}`);
  const read = options.deserialize ?? definition.responseDeserialize;
  const callOptions: grpc.CallOptions = {
    deadline: Date.now() + (options.deadlineMs ?? remainingMs() ?? DEFAULT_DEADLINE_MS),
    ...(options.parent ? { parent: options.parent, propagate_flags: grpc.propagate.DEFAULTS } : {}),
  };
  return new Promise((resolve, reject) => {
    let settle: { resolve: typeof resolve; reject: typeof reject } | undefined = { resolve, reject };
    let metadata = new grpc.Metadata();
    const done = (error: grpc.ServiceError | null, answer?: Answer) => {
      const settled = settle;
      if (!settled) return;
      settle = undefined;
      if (error) return settled.reject(fromServiceError(error));
      const response = answer!.value as Res;
      answer!.value = undefined;
      settled.resolve({ response, metadata });
    };
    const call = client.makeUnaryRequest<Req, Answer>(
      definition.path,
      definition.requestSerialize,
      (bytes: Buffer) => ({ value: read(bytes) }),
      request,
      options.metadata ?? new grpc.Metadata(),
      callOptions,
      done,
    );
    // Response headers arrive before the message, so they are known when the callback runs.
    call.on('metadata', (received: grpc.Metadata) => {
      metadata = received;
    });
  });
}

/** Calls a unary method and resolves with its response, or rejects with a CrmError. */
export async function unary<Req, Res>(client: grpc.Client, method: string, request: Req, options: CallOptions = {}): Promise<Res> {
  const { response, metadata } = await unaryWithMetadata<Req, Res>(client, method, request, options);
  options.onResponseMetadata?.(metadata);
  return response;
}

/** A call of a typed client: the generic options, and a key that makes a write safe to repeat. */
export interface ServiceCallOptions extends CallOptions {
  /**
   * The caller's idempotency key for this write (kit/idempotency): a repeat with the same key and
   * request repeats the answer, never the effect. Sent with the client's origin.
   */
  idempotencyKey?: string;
}

/**
 * A client of one service, typed from its generated definition: `call('GetContact', request)`
 * accepts only the definition's methods and their message types. Calls made while handling a
 * request carry that request's remaining deadline, and the active trace context (the gRPC
 * instrumentation propagates it).
 */
export interface ServiceClient<D> {
  readonly channel: grpc.Client;
  /** The calling service its idempotency keys are sent with (a batch call carries it in its body). */
  readonly origin?: string;
  call<K extends keyof D & string>(method: K, request: RequestIn<D[K]>, options?: ServiceCallOptions): Promise<ResponseOut<D[K]>>;
  close(): void;
}

export interface ServiceClientOptions {
  /** The calling service, sent with idempotency keys so its key space is its own. */
  origin?: string;
}

export function createServiceClient<D extends grpc.ServiceDefinition>(
  ctor: ServiceConstructor<D>,
  address: string,
  clientOptions: ServiceClientOptions = {},
): ServiceClient<D> {
  const channel = createClient(ctor, address);
  return {
    channel,
    ...(clientOptions.origin ? { origin: clientOptions.origin } : {}),
    call(method, request, options = {}) {
      if (!(method in ctor.service)) throw new Error(`${serviceNameOf(ctor.service)} has no method ${method}`);
      let metadata = options.metadata;
      if (options.idempotencyKey !== undefined) {
        metadata = metadata?.clone() ?? new grpc.Metadata();
        metadata.set(IDEMPOTENCY_KEY_METADATA, options.idempotencyKey);
        metadata.set(IDEMPOTENCY_FINGERPRINT_METADATA, requestFingerprint(method, request));
        if (clientOptions.origin) metadata.set(IDEMPOTENCY_ORIGIN_METADATA, clientOptions.origin);
      }
      return unary(channel, method, request, { ...options, metadata });
    },
    close: () => channel.close(),
  };
}

/** What a service-chosen key promises: this method with this request (keys sorted). */
export function requestFingerprint(method: string, request: unknown): string {
  return createHash('sha256').update(JSON.stringify([method, canonicalJson(request)])).digest('base64url');
}

/** A JSON value with object keys in order, so two equal requests print alike. */
export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonicalJson((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * Channel settings for service clients: fail fast while a peer is down and reconnect quickly, and
 * an HTTP/2 window (per call and per connection) that lets a service send whole answers to a busy
 * caller. HTTP/2's default, 64 KiB for the whole connection, is less than ten list pages in
 * flight: the service would send what the window allows and wait for the caller to read and
 * acknowledge it (packages/kit/README.md, "The request path's own cost"). A caller reads every
 * answer whole anyway, up to `grpc.max_receive_message_length`.
 */
export const CLIENT_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc-node.flow_control_window': 8 * 1024 * 1024,
  // Calls take every address the target resolves to in turn. A Kubernetes Service without a
  // cluster IP (infra/k8s/base) resolves to every ready pod: each caller spreads its calls over the
  // replicas, where one virtual IP would pin all of them to the pod its one connection reached.
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * Server settings. A connection lives at most 5 minutes; then the server sends GOAWAY, takes no new
 * call on it, and gives the calls under way 2 minutes to finish (none here streams; the gateway's
 * deadline is 5 s by default). Callers resolve their target again when they reconnect, so replicas
 * added since are found and share the load.
 */
export const SERVER_CHANNEL_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_connection_age_ms': 5 * 60_000,
  'grpc.max_connection_age_grace_ms': 2 * 60_000,
};

export type ClientConstructor<T> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => T;

export function createClient<T extends grpc.Client>(Ctor: ClientConstructor<T>, address: string): T {
  return new Ctor(address, grpc.credentials.createInsecure(), CLIENT_CHANNEL_OPTIONS);
}

export interface GrpcServiceBinding {
  /** Fully-qualified service name, reported by grpc.health.v1. */
  name: string;
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  readonly port: number;
  readonly address: string;
  readonly health: HealthImplementation;
  /**
   * Reports the server and each of its services SERVING or NOT_SERVING over grpc.health.v1 (what
   * the readiness probes ask). Ignored once shutdown has begun: a stopping server stays NOT_SERVING.
   */
  setServing(serving: boolean): void;
  /**
   * Reports one more grpc.health.v1 name SERVING or NOT_SERVING: a dependency's (EVENT_BUS_HEALTH),
   * which an operator or a test may ask and readiness does not. NOT_SERVING once shutdown has begun.
   */
  setStatus(name: string, serving: boolean): void;
  shutdown(graceMs?: number): Promise<void>;
}

/** Starts a gRPC server with the given services and grpc.health.v1, reporting them SERVING. */
export async function startGrpcServer(address: string, services: GrpcServiceBinding[]): Promise<RunningGrpcServer> {
  const server = new grpc.Server(SERVER_CHANNEL_OPTIONS);
  const health = new HealthImplementation({ '': 'SERVING' });
  health.addToServer(server);
  for (const service of services) {
    server.addService(service.definition, service.implementation);
    health.setStatus(service.name, 'SERVING');
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const host = address.slice(0, address.lastIndexOf(':'));
  let stopping = false;
  const others = new Set<string>();
  const report = (status: 'SERVING' | 'NOT_SERVING') => {
    health.setStatus('', status);
    for (const service of services) health.setStatus(service.name, status);
  };
  return {
    port,
    address: `${host}:${port}`,
    health,
    setServing(serving) {
      if (!stopping) report(serving ? 'SERVING' : 'NOT_SERVING');
    },
    setStatus(name, serving) {
      others.add(name);
      health.setStatus(name, serving && !stopping ? 'SERVING' : 'NOT_SERVING');
    },
    async shutdown(graceMs = 5_000) {
      stopping = true;
      report('NOT_SERVING');
      for (const name of others) health.setStatus(name, 'NOT_SERVING');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

export { type ProtoStruct, type ProtoValue, fromProtoValue, fromStruct, toProtoValue, toStruct } from './proto-values';
