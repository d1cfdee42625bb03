import { directoryApi, integrations } from '@crm/directory-contract';
import { type ApiRecord, fromProtoValue, messageToRecord, toProtoValue } from '@crm/kit';
import type * as grpc from '@grpc/grpc-js';
import { INTEGRATION_FIELDS, LOADER_TO_OBJECT, PREVIOUS_RELEASE, releaseTypes } from '../../../proto/src/testing/releases';
import { recordDecodersOf } from './resource.routes';

/**
 * GET /v1/integrations(/{id}) during a rolling deployment. Integration's config is field 11 from
 * this release on; the directory of the previous release wrote it to field 10 only (now
 * `legacy_config`, deprecated). Both ways the gateway reads an answer (the record decoder, and
 * protobufjs's decode with messageToRecord where the decoder does not compile) give the API's
 * `config` from either directory: field 11 when present, else field 10. Delete this file's
 * previous-release cases when field 10 is reserved (proto/README.md, Pending).
 */
const service = directoryApi.service().service as grpc.ServiceDefinition;
const get = service.GetIntegration!;
const list = service.ListIntegrations!;
const decoders = recordDecodersOf(service, integrations)!;
const readers: [string, { record: (bytes: Buffer) => ApiRecord; page: (bytes: Buffer) => ApiRecord[] }][] = [
  ['the record decoder', { record: decoders.record, page: (bytes) => decoders.page(bytes).data }],
  [
    'protobufjs and messageToRecord',
    {
      record: (bytes) => messageToRecord(integrations, get.responseDeserialize(bytes) as object),
      page: (bytes) => (list.responseDeserialize(bytes) as { data: object[] }).data.map((message) => messageToRecord(integrations, message)),
    },
  ],
];

const CONFIG = { host: 'smtp.acme.test', port: 2525, secure: false, from_name: 'Acme' };
const fields = INTEGRATION_FIELDS;
/** The API record both directories' answers must read as (workspace_id is for internal callers). */
const { workspace_id: _internal, ...apiFields } = fields;
const expected = (config: unknown) => ({ ...apiFields, svc_uid: null, status_reason: null, config });

/** An answer of the previous release's directory: its own message types (the .proto of that release) and protobufjs's bytes. */
const previous = releaseTypes(PREVIOUS_RELEASE, 'crm/directory/v1/directory.proto');
const previousIntegration = previous.lookupType('crm.directory.v1.Integration');
const previousPage = previous.lookupType('crm.directory.v1.ListIntegrationsResponse');
const previousBytes = {
  record: Buffer.from(previousIntegration.encode(previousIntegration.fromObject({ ...fields, config: toProtoValue(CONFIG) })).finish()),
  page: Buffer.from(
    previousPage.encode(previousPage.fromObject({ data: [{ ...fields, config: toProtoValue(CONFIG) }], page: { next_cursor: '', has_more: false } })).finish(),
  ),
};

/** An answer of this release's directory, serialized as the directory serializes it (directory.grpc.ts writes both fields). */
const currentBytes = (message: Record<string, unknown>) => ({
  record: get.responseSerialize(message),
  page: list.responseSerialize({ data: [message], page: { next_cursor: '', has_more: false } }),
});

test('the previous release wrote the config to field 10 and nothing to 11 (the fixture is that release)', () => {
  expect(previousIntegration.fields.config!.id).toBe(10);
  expect(previousIntegration.fieldsById[11]).toBeUndefined();
  expect(fromProtoValue(previousIntegration.toObject(previousIntegration.decode(previousBytes.record), LOADER_TO_OBJECT).config)).toEqual(CONFIG);
});

describe.each(readers)('%s', (_name, read) => {
  test("reads `config` from an answer of the previous release's directory (field 10 only)", () => {
    expect(read.record(previousBytes.record)).toEqual(expected(CONFIG));
    expect(read.page(previousBytes.page)).toEqual([expected(CONFIG)]);
  });

  test("reads `config` from an answer of this release's directory (fields 11 and 10)", () => {
    const config = toProtoValue(CONFIG);
    const bytes = currentBytes({ ...fields, config, legacy_config: config });
    expect(read.record(bytes.record)).toEqual(expected(CONFIG));
    expect(read.page(bytes.page)).toEqual([expected(CONFIG)]);
  });

  test('field 11 wins when both are present, even when they differ; field 10 is never an API field', () => {
    const bytes = currentBytes({ ...fields, config: toProtoValue({ host: 'new.acme.test' }), legacy_config: toProtoValue({ host: 'old.acme.test' }) });
    const read11 = read.record(bytes.record);
    expect(read11.config).toEqual({ host: 'new.acme.test' });
    expect(Object.keys(read11)).toEqual(Object.keys(integrations.fields));
    // A present but empty field 11 is this release's answer too: no fallback to 10.
    const empty = currentBytes({ ...fields, config: {}, legacy_config: toProtoValue({ host: 'old.acme.test' }) });
    expect(read.record(empty.record).config).toBeNull();
  });

  test('an answer with neither reads `config` as null, as before', () => {
    expect(read.record(currentBytes(fields).record).config).toBeNull();
  });
});
