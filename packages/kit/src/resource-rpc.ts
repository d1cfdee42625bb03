import { CrmError } from './errors';
import { fromStruct, type ProtoStruct, toStruct } from './grpc';
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

export function recordToMessage(spec: ResourceSpec, record: ApiRecord): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (spec.fields[key]) {
      if (value !== null && value !== undefined) message[key] = value;
    } else {
      custom[key] = value;
    }
  }
  message.custom_fields = toStruct(custom);
  return message;
}

export function messageToRecord(spec: ResourceSpec, message: Record<string, unknown>): ApiRecord {
  const record: ApiRecord = {};
  for (const key of Object.keys(spec.fields)) {
    const value = message[key];
    record[key] = value === undefined ? null : value;
  }
  for (const [key, value] of Object.entries(fromStruct(message.custom_fields as ProtoStruct | undefined))) {
    if (!(key in record)) record[key] = value;
  }
  return record;
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
