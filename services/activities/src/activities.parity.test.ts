import { activitiesApi } from '@crm/activities-contract';
import { checkContextParity } from '@crm/kit/testing';
import { migrations } from './migrations';

test('each activities declaration, its proto message, its table and its indexes agree', async () => {
  const problems = await checkContextParity({
    api: activitiesApi,
    migrations,
    protoFile: 'crm/activities/v1/activities.proto',
  });
  expect(problems).toEqual([]);
}, 30_000);
