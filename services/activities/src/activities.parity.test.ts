import { activitiesApi } from '@crm/activities-contract';
import { checkContextParity } from '@crm/kit/testing';
import { migrations } from './migrations';

test('each activities declaration, its proto message, its table and its indexes agree', async () => {
  const problems = await checkContextParity({
    api: activitiesApi,
    migrations,
    protoFile: 'crm/activities/v1/activities.proto',
    // Created before "Tenancy in every key"; they move to (workspace_id, id) in a later migration.
    legacyPrimaryKeys: ['tasks', 'call_logs', 'meetings'],
  });
  expect(problems).toEqual([]);
}, 30_000);
