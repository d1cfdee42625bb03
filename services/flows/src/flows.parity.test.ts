import { enrollmentSteps, flowsApi } from '@crm/flows-contract';
import { route } from '@crm/kit';
import { checkContextParity } from '@crm/kit/testing';
import { migrations } from './migrations';

test('each flows declaration, its proto message, its table and its indexes agree', async () => {
  const problems = await checkContextParity({
    // The steps of an enrollment are listed under /v1/enrollments/{id}/steps: held to the same checks.
    api: { ...flowsApi, routes: [...flowsApi.routes, route(enrollmentSteps, ['list'])] },
    migrations,
    protoFile: 'crm/flows/v1/flows.proto',
    internalColumns: {
      enrollments: ['visits', 'waiting_task_id', 'task_outcome', 'branch_until', 'last_sent_email_id', 'retries', 'trace', 'resume_at', 'held_next_run_at'],
    },
  });
  expect(problems).toEqual([]);
}, 30_000);
