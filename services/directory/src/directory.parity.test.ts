import { directoryApi, integrations } from '@crm/directory-contract';
import { checkProtoParity } from '@crm/kit/testing';

test('the users and integrations declarations and their proto messages agree (workspace_id is for internal callers)', () => {
  expect(checkProtoParity({ api: directoryApi, protoFile: 'crm/directory/v1/directory.proto', messageExtras: ['workspace_id'] })).toEqual([]);
});

test("Integration's legacy_config (field 10) is held to the declaration's legacyProtoField of config", () => {
  /** The parity problems with integrations' config declared as `config`. */
  const problemsWith = (config: object) => {
    const spec = { ...integrations, fields: { ...integrations.fields, config: { ...integrations.fields.config, ...config } } };
    const api = { ...directoryApi, routes: directoryApi.routes.map((route) => (route.spec === integrations ? { ...route, spec } : route)) };
    return checkProtoParity({ api, protoFile: 'crm/directory/v1/directory.proto', messageExtras: ['workspace_id'] });
  };
  expect(problemsWith({ legacyProtoField: undefined })).toEqual(['integrations: proto crm.directory.v1.Integration has field legacy_config, which the declaration lacks']);
  expect(problemsWith({ legacyProtoField: 'old_config' })).toEqual([
    'integrations: proto crm.directory.v1.Integration has no field old_config, the legacyProtoField of config',
    'integrations: proto crm.directory.v1.Integration has field legacy_config, which the declaration lacks',
  ]);
  // The old field must be deprecated and of the field's type: svc_uid is neither.
  expect(problemsWith({ legacyProtoField: 'svc_uid' })).toContain(
    'integrations: proto crm.directory.v1.Integration.svc_uid, the legacyProtoField of config, must be a [deprecated = true] google.protobuf.Value like it',
  );
});
