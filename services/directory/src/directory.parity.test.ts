import { directoryApi } from '@crm/directory-contract';
import { checkProtoParity } from '../../../packages/kit/src/testing/parity';

test('the users and integrations declarations and their proto messages agree (workspace_id is for internal callers)', () => {
  expect(checkProtoParity({ api: directoryApi, protoFile: 'crm/directory/v1/directory.proto', messageExtras: ['workspace_id'] })).toEqual([]);
});
