/**
 * Builds an outreach flow (an email, a two-day wait, a follow-up in the same thread), gathers the
 * contacts of one `source` into a new pool, and enrolls the pool.
 *
 *   CRM_API_KEY=svc_live_... node examples/enroll-pool.ts --source csv-import [--name "Spring intro"]
 */
import { parseArgs } from 'node:util';
import { createCrmClient } from '@crm/sdk';

const { values: args } = parseArgs({ options: { source: { type: 'string' }, name: { type: 'string', default: 'SDK intro' } } });
if (!args.source) throw new Error('usage: node examples/enroll-pool.ts --source <source>');
const crm = createCrmClient({ baseUrl: process.env.CRM_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.CRM_API_KEY ?? '' });

const { data: flow } = await crm.POST('/v1/flows', {
  body: {
    name: args.name,
    status: 'active',
    nodes: [
      { key: 'hello', type: 'email', config: { subject: 'Hello {{first_name}}', body: '<p>Hi {{first_name}}, a quick hello.</p>' } },
      { key: 'pause', type: 'wait', config: { duration_seconds: 2 * 86_400 } },
      { key: 'again', type: 'email', config: { body: '<p>Following up, {{first_name}}.</p>' } },
      { key: 'done', type: 'end' },
    ],
    edges: [
      { from: 'hello', to: 'pause' },
      { from: 'pause', to: 'again' },
      { from: 'again', to: 'done' },
    ],
  },
});
console.log(`flow "${flow.name}": ${flow.id}`);

const { data: pool } = await crm.POST('/v1/pools', { body: { name: `${args.name}: source ${args.source}` } });
// Every contact of the source, page after page, added 500 at a time (the most one call takes).
let batch: string[] = [];
let members = 0;
const add = async () => {
  if (!batch.length) return;
  const { data } = await crm.POST('/v1/pools/{id}/members', { params: { path: { id: pool.id } }, body: { contact_ids: batch } });
  members += (data.added?.length ?? 0) + (data.already_members?.length ?? 0);
  batch = [];
};
for await (const contact of crm.paginate('/v1/contacts', { params: { query: { source: args.source, limit: 100 } } })) {
  batch.push(contact.id);
  if (batch.length === 500) await add();
}
await add();
console.log(`pool "${pool.name}": ${members} contacts`);

const { data: result } = await crm.POST('/v1/flows/{id}/enrollments', { params: { path: { id: flow.id } }, body: { pool_id: pool.id } });
console.log(`enrolled ${result.enrolled?.length ?? 0}, already enrolled ${result.already_enrolled?.length ?? 0}, suppressed ${result.suppressed?.length ?? 0}`);
