import { checkContextParity } from '@crm/kit/testing';
import { peopleApi } from '@crm/people-contract';
import { migrations } from './migrations';

test('each people declaration, its proto message, its table and its indexes agree', async () => {
  const problems = await checkContextParity({
    api: peopleApi,
    migrations,
    protoFile: 'crm/people/v1/people.proto',
  });
  expect(problems).toEqual([]);
}, 30_000);
