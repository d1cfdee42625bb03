import { webhooksApi } from '@crm/webhooks-contract';
import { checkContextParity } from '@crm/kit/testing';
import { migrations } from './migrations';

test('each webhooks declaration, its proto message, its table and its (workspace_id, id) keys agree', async () => {
  const problems = await checkContextParity({
    api: webhooksApi,
    migrations,
    protoFile: 'crm/webhooks/v1/webhooks.proto',
    internalColumns: {
      webhook_endpoints: ['signing_secret', 'previous_signing_secret', 'previous_signing_secret_expires_at', 'failing_since'],
      webhook_deliveries: ['lease_owner', 'lease_expires_at', 'trace_context'],
    },
  });
  expect(problems).toEqual([]);
}, 30_000);
