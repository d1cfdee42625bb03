import { toProtoValue } from '@crm/kit';
import { loadDirectory } from '@crm/proto';
import { INTEGRATION_FIELDS, PREVIOUS_RELEASE, releaseTypes } from '../../../proto/src/testing/releases';
import { integrationOutput } from './admin';

/**
 * `crm admin integration create` prints the Integration the directory answers. During a rolling
 * deployment that may be a directory of the previous release, which set only field 10 (now
 * `legacy_config`): the command reads field 11 (`config`) and falls back to 10, as the gateway does,
 * and prints one `config` either way.
 */
const CONFIG = { host: 'smtp.acme.test', port: 587 };
const fields = INTEGRATION_FIELDS;
/** An answer's bytes as the command's client decodes them (@grpc/proto-loader, this release's proto). */
const decoded = (bytes: Uint8Array) =>
  loadDirectory().crm.directory.v1.DirectoryService.service.CreateIntegration.responseDeserialize(Buffer.from(bytes)) as Record<string, unknown>;

test("an answer of the previous release's directory (field 10 only) prints its config", () => {
  const previous = releaseTypes(PREVIOUS_RELEASE, 'crm/directory/v1/directory.proto').lookupType('crm.directory.v1.Integration');
  const bytes = previous.encode(previous.fromObject({ ...fields, config: toProtoValue(CONFIG) })).finish();
  const printed = integrationOutput(decoded(bytes));
  expect(printed).toMatchObject({ ...fields, svc_uid: null, config: CONFIG });
  expect(printed).not.toHaveProperty('legacy_config');
});

test("an answer of this release's directory (fields 11 and 10) prints one config, field 11's", () => {
  const serialize = loadDirectory().crm.directory.v1.DirectoryService.service.CreateIntegration.responseSerialize;
  const bytes = serialize({ ...fields, config: toProtoValue(CONFIG), legacy_config: toProtoValue({ host: 'old.acme.test' }) });
  const printed = integrationOutput(decoded(bytes));
  expect(printed).toMatchObject({ ...fields, svc_uid: null, config: CONFIG });
  expect(printed).not.toHaveProperty('legacy_config');
});
