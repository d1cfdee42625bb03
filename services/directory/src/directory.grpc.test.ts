import { randomBytes } from 'node:crypto';
import { integrations } from '@crm/directory-contract';
import { type ResourceSpec, type RunningGrpcServer, createClient, createLogger, fromProtoValue, messageToRecord, startGrpcServer, toStruct, unary } from '@crm/kit';
import { compileRecordDecoders, loadDirectory, loadTypes } from '@crm/proto';
import type * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { LOADER_TO_OBJECT, PREVIOUS_RELEASE, releaseTypes } from '../../../proto/src/testing/releases';
import { directoryGrpcBinding } from './directory.grpc';
import { type DirectoryService, createDirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { createEmbeddedStore } from './store/embedded-store';
import { passingSmtpCheck } from './testing/test-directory';

/**
 * Integration's config on the wire during a rolling deployment (directory.proto, Integration):
 * this release's directory answers it in field 11 (`config`) and, the same bytes, in field 10
 * (`legacy_config`), so a caller of the previous release, which reads field 10, still gets it.
 * The callers' side (this release reading either) is gateway/src/routes/integration-config.test.ts.
 */
const CONFIG = { host: 'smtp.acme.test', port: 2525, secure: false, from_name: 'Acme' };

let store: DocumentStore;
let server: RunningGrpcServer;
let client: grpc.Client;
let directory: DirectoryService;

beforeAll(async () => {
  store = await createEmbeddedStore();
  directory = createDirectoryService({ store, secretsKey: randomBytes(32), keyPepper: 'test-pepper', cursorSecret: randomBytes(32), smtpCheck: passingSmtpCheck });
  server = await startGrpcServer('127.0.0.1:0', [directoryGrpcBinding(directory, createLogger('test', 'silent'))]);
  client = createClient(loadDirectory().crm.directory.v1.DirectoryService, server.address);
});

afterAll(async () => {
  client?.close();
  await server?.shutdown(100);
  await store?.close();
});

/** A call's answer as the bytes the directory wrote. */
const bytesOf = (method: string, request: unknown) => unary<unknown, Buffer>(client, method, request, { deserialize: (bytes) => bytes });

/** The length-delimited fields of a message, by number, as they are on the wire. */
function delimitedFields(bytes: Uint8Array): Map<number, Buffer[]> {
  const r = protobuf.Reader.create(bytes);
  const fields = new Map<number, Buffer[]>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) !== 2) r.skipType(tag & 7);
    else fields.set(tag >>> 3, [...(fields.get(tag >>> 3) ?? []), Buffer.from(r.bytes())]);
  }
  return fields;
}

/** The three answers that carry an Integration, in a workspace of their own: created, got, and listed. */
async function answers(): Promise<Record<'created' | 'got' | 'listed', Buffer>> {
  const workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
  const created = await bytesOf('CreateIntegration', { workspace_id: workspaceId, type: 'smtp', name: 'Mail', secret: 'pw', config: toStruct(CONFIG) });
  const { id } = loadDirectory().crm.directory.v1.DirectoryService.service.GetIntegration.responseDeserialize(created) as { id: string };
  const got = await bytesOf('GetIntegration', { workspace_id: workspaceId, id });
  const page = await bytesOf('ListIntegrations', { workspace_id: workspaceId, filters: { type: 'smtp' } });
  const data = delimitedFields(page).get(1) ?? [];
  expect(data).toHaveLength(1);
  return { created, got, listed: data[0]! };
}

test('every answer carries the config as a Value in field 11, and the same bytes in field 10', async () => {
  const valueType = loadTypes('crm/directory/v1/directory.proto').lookupType('google.protobuf.Value');
  for (const [answer, bytes] of Object.entries(await answers())) {
    const fields = delimitedFields(bytes);
    expect([answer, fields.get(11)?.length, fields.get(10)?.length]).toEqual([answer, 1, 1]);
    expect(fields.get(10)![0]!.equals(fields.get(11)![0]!)).toBe(true);
    expect(fromProtoValue(valueType.toObject(valueType.decode(fields.get(11)![0]!), LOADER_TO_OBJECT))).toEqual(CONFIG);
  }
});

test("a caller of the previous release reads the config from field 10, as its gateway and command line did", async () => {
  const previous = releaseTypes(PREVIOUS_RELEASE, 'crm/directory/v1/directory.proto');
  const integration = previous.lookupType('crm.directory.v1.Integration');
  const page = previous.lookupType('crm.directory.v1.ListIntegrationsResponse');
  expect(integration.fields.config!.id).toBe(10);
  // Its declaration: `config` read from the message's field of that name, with no fallback.
  const itsSpec: ResourceSpec = { ...integrations, fields: { ...integrations.fields, config: { ...integrations.fields.config, legacyProtoField: undefined } } };
  const itsDecoders = compileRecordDecoders(integration, page, Object.entries(itsSpec.fields).map(([name, field]) => ({ name, json: field.type === 'json' })))!;
  for (const [answer, bytes] of Object.entries(await answers())) {
    const message = integration.toObject(integration.decode(bytes), LOADER_TO_OBJECT);
    // The command line printed fromProtoValue(config); the gateway, messageToRecord or its record decoder.
    expect([answer, fromProtoValue(message.config)]).toEqual([answer, CONFIG]);
    expect([answer, messageToRecord(itsSpec, message).config]).toEqual([answer, CONFIG]);
    expect([answer, itsDecoders.record(bytes).config]).toEqual([answer, CONFIG]);
  }
});

test("this release's callers read field 11, and the record keeps one `config`", async () => {
  const { got } = await answers();
  const message = loadDirectory().crm.directory.v1.DirectoryService.service.GetIntegration.responseDeserialize(got) as Record<string, unknown>;
  const record = messageToRecord(integrations, message);
  expect(record.config).toEqual(CONFIG);
  expect(Object.keys(record)).toEqual(Object.keys(integrations.fields));
});
