import * as grpc from '@grpc/grpc-js';
import {
  type ApiRecord,
  type CallOptions,
  type ContextApi,
  CrmError,
  IDEMPOTENCY_FINGERPRINT_METADATA,
  IDEMPOTENCY_KEY_METADATA,
  IDEMPOTENT_REPLAYED_METADATA,
  type ListRequestMessage,
  type Operation,
  type RawListParams,
  type ResourceRoute,
  type ResourceSpec,
  type ServiceClient,
  createServiceClient,
  isUuid,
  messageToCreateAnswer,
  messageToRecord,
  parseListQuery,
  rpcName,
  recordDecodersOf,
  toListRequest,
  toStruct,
  validateWrite,
} from '@crm/kit';
import type { RecordDecoders } from '@crm/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../plugins/auth';

export type { Operation };
/** The calls a resource's owning service answers: requests in message shapes (see kit/resource-rpc), answers as API records. */
export interface ResourceClient {
  list(request: ListRequestMessage, options: CallOptions): Promise<{ data: ApiRecord[]; page?: { next_cursor: string; has_more: boolean } | null }>;
  get(request: { workspace_id: string; id: string }, options: CallOptions): Promise<ApiRecord>;
  create(request: { workspace_id: string; fields: unknown; actor_user_id: string }, options: CallOptions): Promise<ApiRecord>;
  update(request: { workspace_id: string; id: string; fields: unknown; actor_user_id: string }, options: CallOptions): Promise<ApiRecord>;
  delete(request: { workspace_id: string; id: string }, options: CallOptions): Promise<unknown>;
}

/**
 * A bounded context as the gateway sees it: how to reach its service and the routes it serves.
 * Routes only wrap the client in closures, so describing them (OpenAPI) needs no connection.
 */
export interface ServiceContext {
  readonly name: string;
  connect(address: string): ServiceClient<unknown>;
  routes(client: ServiceClient<unknown>, deadlineMs: number): ResourceRouteOptions[];
}

/** Moved to kit (one home with the webhooks service's bodies); re-exported for the gateway's tests. */
export { recordDecodersOf } from '@crm/kit';

/** The generic operations of a route, called by the RPC names of the generated definition. */
export function resourceClient<D>(client: ServiceClient<D>, route: ResourceRoute): ResourceClient {
  const { spec } = route;
  // Compiled on the first call: describing the routes (OpenAPI) needs no client.
  let decoders: RecordDecoders | undefined | null = null;
  const decodersOf = () => {
    if (decoders === null) decoders = recordDecodersOf((client.channel.constructor as unknown as { service: grpc.ServiceDefinition }).service, spec);
    return decoders;
  };
  const call = (operation: Operation, request: unknown, options: CallOptions, deserialize?: (bytes: Buffer) => unknown) =>
    // The route table's types guarantee the method (see kit/context-api); the message is the
    // declaration's generic shape.
    client.call(rpcName(spec, operation) as keyof D & string, request as never, deserialize ? { ...options, deserialize } : options) as Promise<never>;
  const asRecord = (operation: Operation) => async (request: unknown, options: CallOptions) => {
    const fast = decodersOf();
    return fast ? call(operation, request, options, fast.record) : messageToRecord(spec, await call(operation, request, options));
  };
  return {
    async list(request, options) {
      const fast = decodersOf();
      if (fast) return call('list', request, options, fast.page);
      const response = (await call('list', request, options)) as { data: object[]; page?: { next_cursor: string; has_more: boolean } | null };
      return { data: response.data.map((message) => messageToRecord(spec, message)), page: response.page };
    },
    get: asRecord('get'),
    // A create answer field (a secret shown once) is no field of the record the fast decoder reads.
    create: spec.createAnswerFields ? async (request, options) => messageToCreateAnswer(spec, await call('create', request, options)) : asRecord('create'),
    update: asRecord('update'),
    delete: (request, options) => call('delete', request, options),
  };
}

/** Routes a context answers under another context's resource (a view of its own data about it). */
export interface RoutesUnder {
  spec: ResourceSpec;
  routes: readonly CustomRoute[];
}

/**
 * A context from its contract's route table, with the custom routes it adds under its resources,
 * and those it answers under other contexts' resources (`under`: messaging's timeline of a contact).
 */
export function serviceContext<D extends grpc.ServiceDefinition, Routes extends readonly ResourceRoute[]>(
  api: ContextApi<D, Routes>,
  custom?: (client: ServiceClient<D>, deadlineMs: number) => Partial<Record<Routes[number]['spec']['name'], readonly CustomRoute[]>>,
  under?: (client: ServiceClient<D>, deadlineMs: number) => readonly RoutesUnder[],
): ServiceContext {
  return {
    name: api.name,
    connect: (address) => createServiceClient(api.service(), address) as ServiceClient<unknown>,
    routes(untyped, deadlineMs) {
      const client = untyped as ServiceClient<D>;
      const extra = (custom?.(client, deadlineMs) ?? {}) as Partial<Record<string, readonly CustomRoute[]>>;
      const own: ResourceRouteOptions[] = api.routes.map((route) => ({
        spec: route.spec,
        scope: route.scope,
        client: resourceClient(client, route),
        operations: route.operations,
        deadlineMs,
        routes: extra[route.spec.name],
      }));
      // No generic operation: only the custom routes, below the other context's resource path.
      const foreign: ResourceRouteOptions[] = (under?.(client, deadlineMs) ?? []).map(({ spec, routes }) => ({
        spec,
        client: resourceClient(client, { spec, operations: [] }),
        operations: [],
        deadlineMs,
        routes,
      }));
      return [...own, ...foreign];
    },
  };
}

export interface ResourceRouteOptions {
  spec: ResourceSpec;
  /** The scope resource of its operations: the spec's name unless the route table says otherwise. */
  scope?: string;
  client: ResourceClient;
  operations: readonly Operation[];
  /** Deadline for each call to the owning service. */
  deadlineMs: number;
  /** Operations beyond the generic five (e.g. a pool's bulk members), under the resource's path. */
  routes?: readonly CustomRoute[];
}

/**
 * A route a context adds under one of its resources. It declares its scope like the generic
 * operations, so authentication, rate limits and the scope check apply unchanged; methods the path
 * does not offer answer 405 with an Allow header.
 */
export interface CustomRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the resource's path, e.g. `/:id/members`. */
  path: string;
  scope: string;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** The route's OpenAPI 3.1 operation object, for the generated description. */
  openapi?: Record<string, unknown>;
  /** Records the route answers with that no route of their own describes (their schemas are added). */
  describes?: readonly ResourceSpec[];
}

export const OPERATION_METHODS: Record<Operation, { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; item: boolean; action: 'read' | 'write' | 'delete' }> = {
  list: { method: 'GET', item: false, action: 'read' },
  get: { method: 'GET', item: true, action: 'read' },
  create: { method: 'POST', item: false, action: 'write' },
  update: { method: 'PATCH', item: true, action: 'write' },
  delete: { method: 'DELETE', item: true, action: 'delete' },
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scope an operation requires; the auth hook enforces it before the handler runs. */
    scope?: string;
  }
}

export function pathId(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!isUuid(id)) throw CrmError.invalid(`path parameter id must be a UUID, got "${id.slice(0, 64)}"`, { parameter: 'id' });
  return id.toLowerCase();
}

export function noQuery(request: FastifyRequest): void {
  const names = Object.keys(request.query as object);
  if (names.length) throw CrmError.invalid(`unknown query parameter ${names[0]}`, { parameter: names[0] });
}

export function requireBody(request: FastifyRequest): unknown {
  if (request.body === undefined || request.body === null) {
    throw CrmError.validation([{ field: '(body)', message: 'a JSON object body is required' }]);
  }
  return request.body;
}

/** Per-call options: the deadline, and the Idempotency-Key (with its fingerprint) of a write. */
export function upstreamCallOptions(request: FastifyRequest, reply: FastifyReply, deadlineMs: number): CallOptions {
  const claim = request.idempotency;
  if (!claim) return { deadlineMs };
  const metadata = new grpc.Metadata();
  metadata.set(IDEMPOTENCY_KEY_METADATA, claim.key);
  metadata.set(IDEMPOTENCY_FINGERPRINT_METADATA, claim.fingerprint);
  return {
    deadlineMs,
    metadata,
    onResponseMetadata: (metadata) => {
      if (metadata.get(IDEMPOTENT_REPLAYED_METADATA)[0] === 'true') reply.header('Idempotent-Replayed', 'true');
    },
  };
}

/**
 * Registers a resource's operations from its declaration, and the custom routes under it. Every
 * route declares its scope; the handler validates input with the same declaration the service
 * uses, then calls the service. Returns the methods registered per URL, so the caller answers the
 * others with 405.
 */
export function registerResourceRoutes(app: FastifyInstance, prefix: string, options: ResourceRouteOptions): Map<string, Set<string>> {
  const { spec, client, deadlineMs } = options;
  const base = `${prefix}/${spec.name}`;
  const call = (request: FastifyRequest, reply: FastifyReply): CallOptions => upstreamCallOptions(request, reply, deadlineMs);
  const principalOf = (request: FastifyRequest): Principal => request.principal!;
  const offered = new Map<string, Set<string>>();
  const register = (method: string, url: string, scope: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => {
    app.route({ method, url, config: { scope }, handler });
    offered.set(url, (offered.get(url) ?? new Set()).add(method));
  };

  const handlers: Record<Operation, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>> = {
    async list(request, reply) {
      const raw = request.query as RawListParams;
      parseListQuery(spec, raw);
      const response = await client.list(toListRequest(principalOf(request).workspaceId, spec, raw), call(request, reply));
      return {
        data: response.data,
        next_cursor: response.page?.next_cursor || null,
        has_more: response.page?.has_more ?? false,
      };
    },
    async get(request, reply) {
      const id = pathId(request);
      noQuery(request);
      return { data: await client.get({ workspace_id: principalOf(request).workspaceId, id }, call(request, reply)) };
    },
    async create(request, reply) {
      noQuery(request);
      const body = requireBody(request);
      validateWrite(spec, body, 'create');
      const principal = principalOf(request);
      const created = await client.create(
        { workspace_id: principal.workspaceId, fields: toStruct(body as Record<string, unknown>), actor_user_id: principal.userId ?? '' },
        call(request, reply),
      );
      reply.status(201);
      return { data: created };
    },
    async update(request, reply) {
      const id = pathId(request);
      noQuery(request);
      const body = requireBody(request);
      validateWrite(spec, body, 'update');
      const principal = principalOf(request);
      const updated = await client.update(
        { workspace_id: principal.workspaceId, id, fields: toStruct(body as Record<string, unknown>), actor_user_id: principal.userId ?? '' },
        call(request, reply),
      );
      return { data: updated };
    },
    async delete(request, reply) {
      const id = pathId(request);
      noQuery(request);
      await client.delete({ workspace_id: principalOf(request).workspaceId, id }, call(request, reply));
      return reply.status(204).send();
    },
  };

  for (const operation of options.operations) {
    const { method, item, action } = OPERATION_METHODS[operation];
    register(method, item ? `${base}/:id` : base, `${options.scope ?? spec.name}:${action}`, handlers[operation]);
  }
  for (const route of options.routes ?? []) register(route.method, `${base}${route.path}`, route.scope, route.handler);
  return offered;
}
