import { checkContextParity } from '@crm/kit/testing';
import { messagingApi } from '@crm/messaging-contract';
import { migrations } from './migrations';

test('each messaging declaration, its proto message, its table and its indexes agree', async () => {
  const problems = await checkContextParity({ api: messagingApi, migrations, protoFile: 'crm/messaging/v1/messaging.proto' });
  expect(problems).toEqual([]);
}, 30_000);
