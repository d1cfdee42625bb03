import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as protobuf from 'protobufjs';
import { type Encoder, compileEncoder } from './encoder';
import type { ProtoGrpcType as CommonProto } from './gen/common';
import type { ProtoGrpcType as DirectoryProto } from './gen/directory';
import type { ProtoGrpcType as PeopleProto } from './gen/people';
import type { ProtoGrpcType as ActivitiesProto } from './gen/activities';
import type { ProtoGrpcType as MessagingProto } from './gen/messaging';
import type { ProtoGrpcType as FlowsProto } from './gen/flows';
import type { ProtoGrpcType as WebhooksProto } from './gen/webhooks';
import type { EventCatalogOutput } from './gen/event-catalog';

export type { Contact, Contact__Output } from './gen/crm/people/v1/Contact';
export type { ListContactsResponse__Output } from './gen/crm/people/v1/ListContactsResponse';
export type { PeopleServiceClient, PeopleServiceDefinition, PeopleServiceHandlers } from './gen/crm/people/v1/PeopleService';
export type { Organization, Organization__Output } from './gen/crm/people/v1/Organization';
export type { Pool, Pool__Output } from './gen/crm/people/v1/Pool';
export type { PoolContact, PoolContact__Output } from './gen/crm/people/v1/PoolContact';
export type { PoolMembersRequest, PoolMembersRequest__Output } from './gen/crm/people/v1/PoolMembersRequest';
export type { AddPoolMembersResponse, AddPoolMembersResponse__Output } from './gen/crm/people/v1/AddPoolMembersResponse';
export type { RemovePoolMembersResponse, RemovePoolMembersResponse__Output } from './gen/crm/people/v1/RemovePoolMembersResponse';
export type { ListRequest, ListRequest__Output } from './gen/crm/common/v1/ListRequest';
export type { WriteRequest__Output } from './gen/crm/common/v1/WriteRequest';
export type { GetRequest__Output } from './gen/crm/common/v1/GetRequest';
export type { DeleteRequest__Output } from './gen/crm/common/v1/DeleteRequest';
export type { PageInfo } from './gen/crm/common/v1/PageInfo';
export type { Struct, Struct__Output } from './gen/google/protobuf/Struct';
export type { Value, Value__Output } from './gen/google/protobuf/Value';
export type { DirectoryServiceClient, DirectoryServiceDefinition, DirectoryServiceHandlers } from './gen/crm/directory/v1/DirectoryService';
export type { AuthenticateResponse__Output } from './gen/crm/directory/v1/AuthenticateResponse';
export type { Workspace, Workspace__Output } from './gen/crm/directory/v1/Workspace';
export type { User, User__Output } from './gen/crm/directory/v1/User';
export type { Integration, Integration__Output } from './gen/crm/directory/v1/Integration';
export type { CreatedApiKey, CreatedApiKey__Output } from './gen/crm/directory/v1/CreatedApiKey';
export type { CommonProto, DirectoryProto, PeopleProto };
export type { ActivitiesProto };
export type { WebhooksProto };
export type { WebhooksServiceClient, WebhooksServiceHandlers } from './gen/crm/webhooks/v1/WebhooksService';
export type { WebhookEndpoint__Output } from './gen/crm/webhooks/v1/WebhookEndpoint';
export type {
  ActivitiesServiceClient,
  ActivitiesServiceDefinition,
  ActivitiesServiceHandlers,
} from './gen/crm/activities/v1/ActivitiesService';
export type { Task, Task__Output } from './gen/crm/activities/v1/Task';
export type { CallLog, CallLog__Output } from './gen/crm/activities/v1/CallLog';
export type { Meeting, Meeting__Output } from './gen/crm/activities/v1/Meeting';
export type { CreateEnrollmentTaskRequest__Output } from './gen/crm/activities/v1/CreateEnrollmentTaskRequest';
export type { MessagingProto };
export type { MessagingServiceClient, MessagingServiceDefinition } from './gen/crm/messaging/v1/MessagingService';
export type { SentEmail, SentEmail__Output } from './gen/crm/messaging/v1/SentEmail';
export type { QueueSendRequest, QueueSendRequest__Output } from './gen/crm/messaging/v1/QueueSendRequest';
export type { QueueSendItem } from './gen/crm/messaging/v1/QueueSendItem';
export type { QueueSendsRequest__Output } from './gen/crm/messaging/v1/QueueSendsRequest';
export type { SendingIntegration__Output } from './gen/crm/directory/v1/SendingIntegration';
export type { FlowsProto };
export type { FlowsServiceClient, FlowsServiceDefinition } from './gen/crm/flows/v1/FlowsService';

/** Folder holding the `.proto` sources (`crm/<context>/v1/*.proto`). */
export const protoRoot = path.resolve(__dirname, '..');

/**
 * Loader options shared by every client and server, and by the type generator (`npm run gen`):
 * snake_case field names as in the JSON API, 64-bit integers and enums as strings, proto3
 * `optional` fields absent when unset.
 */
export const loaderOptions: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoRoot],
};

const cache = new Map<string, grpc.GrpcObject>();

function load(file: string): grpc.GrpcObject {
  let loaded = cache.get(file);
  if (!loaded) {
    const definition = protoLoader.loadSync(file, loaderOptions);
    useCompiledEncoders(definition, file);
    loaded = grpc.loadPackageDefinition(definition);
    cache.set(file, loaded);
  }
  return loaded;
}

/** The types of a file as protobufjs reads them with the loader's options and include path. */
export function loadTypes(file: string): protobuf.Root {
  const root = new protobuf.Root();
  const resolve = root.resolvePath.bind(root);
  root.resolvePath = (origin, target) => {
    const inRoot = path.join(protoRoot, target);
    return !path.isAbsolute(target) && fs.existsSync(inRoot) ? inRoot : resolve(origin, target);
  };
  root.loadSync(path.join(protoRoot, file), { keepCase: true });
  root.resolveAll();
  return root;
}

const encoders = new Map<string, Encoder | undefined>();
const encoderOf = (type: protobuf.Type) => {
  if (!encoders.has(type.fullName)) encoders.set(type.fullName, compileEncoder(type));
  return encoders.get(type.fullName);
};
const methodTypes = new Map<string, { request: protobuf.Type; response: protobuf.Type }>();

/** The protobufjs types of a loaded method's request and response, by its path (`/crm.people.v1.PeopleService/GetContact`). */
export function typesOfMethod(methodPath: string): { request: protobuf.Type; response: protobuf.Type } | undefined {
  return methodTypes.get(methodPath);
}

/**
 * Every request and response of the file's services is serialized by the compiled encoder
 * (./encoder) where one compiles; protobufjs's serializer stays for the rest. Decoding stays
 * protobufjs's (a compiled decoder of the same objects was measured no faster); the gateway reads
 * resource answers with ./record-decoder, from the types recorded here per method.
 */
function useCompiledEncoders(definition: protoLoader.PackageDefinition, file: string): void {
  const root = loadTypes(file);
  for (const [name, entry] of Object.entries(definition)) {
    if (!('format' in entry) && typeof entry === 'object') {
      const service = root.lookupService(name);
      for (const [method, rpc] of Object.entries(entry as protoLoader.ServiceDefinition)) {
        const resolved = service.methods[method]!;
        resolved.resolve();
        methodTypes.set(rpc.path, { request: resolved.resolvedRequestType!, response: resolved.resolvedResponseType! });
        const request = encoderOf(resolved.resolvedRequestType!);
        const response = encoderOf(resolved.resolvedResponseType!);
        if (request) rpc.requestSerialize = request;
        if (response) rpc.responseSerialize = response;
      }
    }
  }
}

export const loadDirectory = (): DirectoryProto => load('crm/directory/v1/directory.proto') as unknown as DirectoryProto;
export const loadPeople = (): PeopleProto => load('crm/people/v1/people.proto') as unknown as PeopleProto;
export const loadActivities = (): ActivitiesProto =>
  load('crm/activities/v1/activities.proto') as unknown as ActivitiesProto;
export const loadMessaging = (): MessagingProto => load('crm/messaging/v1/messaging.proto') as unknown as MessagingProto;
export const loadFlows = (): FlowsProto => load('crm/flows/v1/flows.proto') as unknown as FlowsProto;
export const loadWebhooks = (): WebhooksProto => load('crm/webhooks/v1/webhooks.proto') as unknown as WebhooksProto;

// The event catalog (crm/events/v1/<context>-events.proto): subject constants per producing context,
// generated from the `subject` option of each message, and the payload type of every subject.
export { ActivitiesEvents, FlowsEvents, MessagingEvents, PeopleEvents } from './gen/event-catalog';
export { type RecordDecoders, type RecordField, compileRecordDecoders } from './record-decoder';
export type { FlowStep__Output as FlowStep } from './gen/crm/events/v1/FlowStep';

/** Every subject of the catalog. */
export type EventSubject = keyof EventCatalogOutput;

type WireKey<T> = { [K in keyof T]: K extends `_${string}` ? never : K }[keyof T];
/**
 * A generated message as it travels in JSON: scalar fields are present, optional fields and
 * message fields may be absent or null (proto3 JSON leaves them out; some producers write null).
 * The loader's oneof markers (`_field`) are not part of the wire shape.
 */
export type Wire<T> = {
  [K in WireKey<T> as null extends T[K] ? never : undefined extends T[K] ? never : K]: T[K];
} & {
  [K in WireKey<T> as null extends T[K] ? K : undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> | null;
};

/** The `data` of an event of subject `S`. */
export type EventData<S extends EventSubject> = Wire<EventCatalogOutput[S]>;
