import type * as grpc from '@grpc/grpc-js';
import { type ContextApi, type ResourceRoute, type RouteRpcs, rpcName } from './context-api';
import { CrmError } from './errors';
import { recordCodec } from './compiled-codec';
import { type GrpcServiceBinding, type ProtoStruct, type ServiceHandlers, bindService, fromStruct } from './grpc';
import type { Logger } from './logger';
import { isUuid } from './ids';
import { type ListQuery, type RawListParams, parseListQuery } from './list-query';
import type { ApiRecord } from './record-codec';
import type { ResourceSpec } from './resource';
import type { ResourceStore, WriteContext } from './resource-store';
import type { CallOptions, ServiceClient } from './grpc';
import { type RecordDecoders, compileRecordDecoders, typesOfMethod } from '@crm/proto';

/**
 * The generic seam between API records and their gRPC messages. A resource's message has one field
 * per declared field (proto3 `optional` where nullable) plus `custom_fields`, so conversion is driven
 * by the declaration alone.
 */
export interface ListRequestMessage {
  workspace_id: string;
  cursor?: string;
  limit?: number;
  sort?: string;
  since?: string;
  until?: string;
  q?: string;
  updated_since?: string;
  filters?: Record<string, string>;
}

const LIST_SCALARS = ['cursor', 'sort', 'since', 'until', 'q', 'updated_since'] as const;

/** Gateway side: the already-validated query parameters as a ListRequest. */
export function toListRequest(workspaceId: string, spec: ResourceSpec, raw: RawListParams): ListRequestMessage {
  const request: ListRequestMessage = { workspace_id: workspaceId, filters: {} };
  for (const key of LIST_SCALARS) {
    const value = raw[key];
    if (typeof value === 'string') request[key] = value;
  }
  if (typeof raw.limit === 'string') request.limit = Number(raw.limit);
  for (const key of Object.keys(spec.fields)) {
    const value = raw[key];
    if (typeof value === 'string') request.filters![key] = value;
  }
  return request;
}

/** Service side: the ListRequest parsed with the same strict rules the gateway applies. */
export function fromListRequest(spec: ResourceSpec, request: ListRequestMessage): ListQuery {
  const raw: RawListParams = { ...(request.filters ?? {}) };
  for (const key of LIST_SCALARS) if (request[key] !== undefined && request[key] !== null) raw[key] = request[key];
  if (request.limit !== undefined && request.limit !== null) raw.limit = String(request.limit);
  return parseListQuery(spec, raw);
}

export function requireUuid(value: string | undefined, name: string): string {
  if (!value || !isUuid(value)) throw CrmError.invalid(`${name} must be a UUID`, { parameter: name });
  return value.toLowerCase();
}

/** A record as its resource's message: declared fields that hold a value, the rest in `custom_fields`. */
export function recordToMessage(spec: ResourceSpec, record: ApiRecord): Record<string, unknown> {
  return recordCodec(spec).recordToMessage(record);
}

/** The record a resource's message carries: every declared field (absent → null), then the custom ones. */
export function messageToRecord(spec: ResourceSpec, message: object): ApiRecord {
  return recordCodec(spec).messageToRecord(message as Record<string, unknown>);
}

/**
 * A create's answer (a record with the resource's `createAnswerFields`, such as a secret shown once)
 * as the record's message: the record's fields as recordToMessage maps them, and each create answer
 * field that holds a value in its own proto field, never among the custom ones.
 */
export function createAnswerToMessage(spec: ResourceSpec, answer: ApiRecord): Record<string, unknown> {
  const extras = Object.keys(spec.createAnswerFields ?? {});
  if (!extras.length) return recordToMessage(spec, answer);
  const record = { ...answer };
  for (const name of extras) delete record[name];
  const message = recordToMessage(spec, record);
  for (const name of extras) if (answer[name] !== null && answer[name] !== undefined) message[name] = answer[name];
  return message;
}

/** The create's answer a message carries: its record (messageToRecord), then each create answer field it holds. */
export function messageToCreateAnswer(spec: ResourceSpec, message: object): ApiRecord {
  const record = messageToRecord(spec, message);
  for (const name of Object.keys(spec.createAnswerFields ?? {})) {
    const value = (message as Record<string, unknown>)[name];
    if (value !== null && value !== undefined) record[name] = value;
  }
  return record;
}

/**
 * A resource's answers read straight into records (@crm/proto's record-decoder), when its get and
 * list answers have the shape that module reads; otherwise undefined, and they are decoded as
 * messages and mapped by messageToRecord. The one home of "a gRPC answer as the API's record":
 * the gateway's routes and the webhooks service's bodies both use it.
 */
export function recordDecodersOf(service: grpc.ServiceDefinition, spec: ResourceSpec): RecordDecoders | undefined {
  const get = service[rpcName(spec, 'get')];
  const list = service[rpcName(spec, 'list')];
  const record = get && typesOfMethod(get.path)?.response;
  const page = list && typesOfMethod(list.path)?.response;
  if (!record || !page) return undefined;
  const fields = Object.entries(spec.fields).map(([name, field]) => ({ name, json: field.type === 'json', legacy: field.legacyProtoField }));
  return compileRecordDecoders(record, page, fields);
}

/**
 * Reads one record of `spec` from its owning context over `client` (its Get RPC) as the API returns
 * it, decoded the way the gateway decodes it (recordDecodersOf, else messageToRecord). A NotFound
 * answer is a CrmError like any other.
 */
export function recordReader(client: ServiceClient<unknown>, spec: ResourceSpec) {
  let decoders: RecordDecoders | undefined | null = null;
  const decodersOf = () => {
    if (decoders === null) decoders = recordDecodersOf((client.channel.constructor as unknown as { service: grpc.ServiceDefinition }).service, spec);
    return decoders;
  };
  const method = rpcName(spec, 'get') as never;
  return async (workspaceId: string, id: string, options: CallOptions = {}): Promise<ApiRecord> => {
    const request = { workspace_id: workspaceId, id } as never;
    const fast = decodersOf();
    const answer = await (client as ServiceClient<Record<string, grpc.MethodDefinition<unknown, unknown>>>).call(method, request, fast ? { ...options, deserialize: fast.record } : options);
    return fast ? (answer as ApiRecord) : messageToRecord(spec, answer as object);
  };
}

interface WriteRequestMessage {
  workspace_id: string;
  id?: string;
  fields?: ProtoStruct | null;
  actor_user_id?: string;
}

/**
 * The five generic RPCs of a resource bound to its store. Handlers only translate messages;
 * validation and rules live in the store. Responses are the resource's message shape.
 */
export function resourceHandlers(store: ResourceStore) {
  const { spec } = store;
  const toMessage = (record: ApiRecord) => recordToMessage(spec, record);
  const writer = (request: WriteRequestMessage): WriteContext => ({
    workspaceId: requireUuid(request.workspace_id, 'workspace_id'),
    actorUserId: request.actor_user_id || undefined,
  });
  return {
    async list(request: ListRequestMessage) {
      const page = await store.list(requireUuid(request.workspace_id, 'workspace_id'), fromListRequest(spec, request));
      return { data: page.data.map(toMessage), page: { next_cursor: page.nextCursor ?? '', has_more: page.hasMore } };
    },
    async get(request: { workspace_id: string; id: string }) {
      return toMessage(await store.get(requireUuid(request.workspace_id, 'workspace_id'), requireUuid(request.id, 'id')));
    },
    async create(request: WriteRequestMessage) {
      return createAnswerToMessage(spec, await store.create(writer(request), fromStruct(request.fields)));
    },
    async update(request: WriteRequestMessage) {
      return toMessage(await store.update(writer(request), requireUuid(request.id, 'id'), fromStruct(request.fields)));
    },
    async delete(request: { workspace_id: string; id: string }) {
      await store.delete({ workspaceId: requireUuid(request.workspace_id, 'workspace_id') }, requireUuid(request.id, 'id'));
      return {};
    },
  };
}

/** A store for each resource of a route table, by resource name. */
export type StoresOf<Routes extends readonly ResourceRoute[]> = { readonly [K in Routes[number]['spec']['name']]: ResourceStore };

/**
 * A context's gRPC service: the generic RPCs of every route bound to its store, plus the context's
 * own RPCs. Both halves are typed from the generated definition: `custom` must implement exactly
 * the RPCs the route table does not cover, so an RPC added to the proto without a handler, or a
 * route whose RPC the proto lacks, does not compile.
 */
export function bindContext<D extends grpc.ServiceDefinition, Routes extends readonly ResourceRoute[]>(
  api: ContextApi<D, Routes>,
  stores: StoresOf<Routes>,
  custom: Omit<ServiceHandlers<D>, RouteRpcs<Routes[number]>>,
  log: Logger,
): GrpcServiceBinding {
  const generic: Record<string, unknown> = {};
  for (const route of api.routes) {
    const store = (stores as Record<string, ResourceStore>)[route.spec.name];
    if (!store) throw new Error(`${api.name}: no store for ${route.spec.name}`);
    const handlers = resourceHandlers(store);
    for (const operation of route.operations) generic[rpcName(route.spec, operation)] = handlers[operation];
  }
  // The route table's types guarantee these keys; their messages are the declarations' shape,
  // which each context's parity test holds against the proto.
  return bindService(api.service().service, { ...generic, ...custom } as ServiceHandlers<D>, log);
}
