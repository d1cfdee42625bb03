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
      return toMessage(await store.create(writer(request), fromStruct(request.fields)));
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
