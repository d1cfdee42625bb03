/**
 * The document's examples, replayed against the running system (issue #35, item 2): `crm start`
 * all-in-one on embedded backends, its own /openapi.json. Every create example is sent as written,
 * but for the ids that name other records, which are substituted by records this test creates
 * first; it must be accepted, and what it sent must read back. Every read operation is called on
 * records that exist. Every answer must match the documented schema (the client checks each one
 * against the served document), so an example that the API would refuse, or an answer that the
 * document does not describe, fails here.
 */
import { expectEventually } from '@crm/kit/testing';
import { type AllInOne, startAllInOne } from '../support/all-in-one';
import { apiClient } from '../support/http';

jest.setTimeout(300_000);

type Json = Record<string, any>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

let crm: AllInOne | undefined;
let api: ReturnType<typeof apiClient>;
let key: string;
let document: Json;

beforeAll(async () => {
  crm = await startAllInOne({ RATE_LIMIT_KEY: '100000', RATE_LIMIT_WORKSPACE: '100000' });
  key = crm.key;
  api = apiClient(crm.url);
  document = (await (await fetch(`${crm.url}/openapi.json`)).json()) as Json;
});
afterAll(async () => {
  await crm?.stop();
});

const resolve = (node: Json): Json => (node?.$ref ? String(node.$ref).replace(/^#\//, '').split('/').reduce((at: Json, part) => at[part], document) : node);
const jsonExample = (media: Json | undefined): unknown => media?.example ?? Object.values((media?.examples ?? {}) as Json)[0]?.value;

/**
 * Creates in an order where every record an example names exists first. The webhook endpoint comes
 * first, so the contacts made after it are events it subscribes to (its example's event_types): a
 * delivery then exists to read (its deliveries fail to connect, as the system runs without
 * WEBHOOKS_ALLOW_*; that is a delivery all the same).
 */
const CREATE_ORDER = ['webhook_endpoints', 'organizations', 'pools', 'email_templates', 'chatapp_templates', 'flows', 'contacts', 'tasks', 'call_logs', 'meetings', 'touchpoints', 'sent_emails', 'pool_contacts', 'enrollments'];

test('every create example is accepted as written and every read answers as documented', async () => {
  const created = new Map<string, string[]>();
  const remember = (collection: string, id: string) => (created.get(collection) ?? created.set(collection, []).get(collection)!).push(id);
  const call = async (method: string, url: string, body?: unknown) => api(method, url, { key, body });

  // The records examples refer to: the workspace's owner, and fresh contacts (a contact can be in a
  // pool or a flow once, and its address is unique).
  const owner = (await call('GET', '/v1/users?role=owner')).body.data[0].id as string;
  let fresh = 0;
  const freshContact = async () => {
    const answer = await call('POST', '/v1/contacts', { first_name: `Example ${++fresh}`, email: `example-${fresh}@replay.test` });
    expect(answer.status).toBe(201);
    return answer.body.data.id as string;
  };
  const first = async (collection: string, body: Json) => {
    if (!created.get(collection)?.length) {
      const answer = await call('POST', `/v1/${collection}`, body);
      expect([collection, answer.status]).toEqual([collection, 201]);
      remember(collection, answer.body.data.id);
    }
    return created.get(collection)![0]!;
  };
  const references: Record<string, () => Promise<unknown>> = {
    contact_id: freshContact,
    contact_ids: async () => [await freshContact(), await freshContact()],
    owner_id: async () => owner,
    assignee_id: async () => owner,
    organization_id: () => first('organizations', { name: 'Referenced Ltd' }),
    pool_id: () => first('pools', { name: 'Referenced pool' }),
    flow_id: () => first('flows', { name: 'Referenced flow', nodes: [{ key: 'done', type: 'end' }], edges: [] }),
    template_id: () => first('email_templates', { name: 'Referenced', subject: 'Hi', body: '<p>Hi</p>' }),
  };
  const substitute = async (operation: string, body: Json): Promise<Json> => {
    const out: Json = {};
    for (const [name, value] of Object.entries(body)) {
      const names = typeof value === 'string' && UUID.test(value) ? true : Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && UUID.test(v));
      if (!names) {
        out[name] = value;
        continue;
      }
      if (!references[name]) throw new Error(`${operation}: the example's ${name} names a record this test cannot make`);
      out[name] = await references[name]!();
    }
    return out;
  };

  // Generic creates, in dependency order, each example sent as written.
  const creates = Object.entries(document.paths as Json)
    .filter(([url, item]) => /^\/v1\/[a-z_]+$/.test(url) && (item as Json).post)
    .map(([url]) => url.slice(4))
    .sort((a, b) => CREATE_ORDER.indexOf(a) - CREATE_ORDER.indexOf(b));
  expect(creates.filter((c) => !CREATE_ORDER.includes(c))).toEqual([]);
  for (const collection of creates) {
    const operation = document.paths[`/v1/${collection}`].post;
    const example = jsonExample(resolve(operation.requestBody).content['application/json']) as Json;
    const body = await substitute(`POST /v1/${collection}`, example);
    const answer = await call('POST', `/v1/${collection}`, body);
    expect([collection, answer.status, answer.body?.error]).toEqual([collection, 201, undefined]);
    remember(collection, answer.body.data.id);
    // What the example sent is what the record holds (times normalised; sent emails store their Liquid rendered).
    for (const [name, value] of Object.entries(example)) {
      if (body[name] !== value) continue; // a substituted id
      if (collection === 'sent_emails' && ['subject', 'body', 'body_text'].includes(name)) continue;
      const held = answer.body.data[name];
      if (typeof value === 'string' && DATE_TIME.test(value)) expect([collection, name, Date.parse(held)]).toEqual([collection, name, Date.parse(value)]);
      else expect([collection, name, held]).toMatchObject([collection, name, value]); // the server adds ids to a flow's nodes
    }
  }

  // Custom writes under a record: their examples, on records of their own.
  const customCreates: [string, string, () => Promise<string>][] = [
    ['post', '/v1/pools/{id}/members', () => first('pools', {})],
    ['delete', '/v1/pools/{id}/members', () => first('pools', {})],
    ['post', '/v1/flows/{id}/enrollments', () => first('flows', {})],
  ];
  for (const [method, template, parent] of customCreates) {
    const operation = document.paths[template][method];
    const example = jsonExample(operation.requestBody.content['application/json']) as Json;
    const answer = await call(method.toUpperCase(), template.replace('{id}', await parent()), await substitute(`${method} ${template}`, example));
    expect([template, answer.status, answer.body?.error]).toEqual([template, 200, undefined]);
  }

  // A contact.created event reached the endpoint the example registered: a delivery to read.
  const endpointId = created.get('webhook_endpoints')![0]!;
  await expectEventually(
    async () => {
      const deliveries = await call('GET', `/v1/webhook_deliveries?endpoint_id=${endpointId}`);
      expect([deliveries.status, deliveries.body.data.length > 0]).toEqual([200, true]);
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );

  // Every read: lists as they are, one record of each, and the views under a record.
  const idOf = async (collection: string): Promise<string | undefined> => {
    if (created.get(collection)?.length) return created.get(collection)![0];
    if (collection === 'flow_runs') return created.get('enrollments')?.[0];
    const list = await call('GET', `/v1/${collection}`);
    return list.body.data[0]?.id;
  };
  // Records only the system makes, which a fresh workspace may not have yet.
  const mayBeEmpty = new Set(['integrations', 'email_events']);
  const unread: string[] = [];
  let reads = 0;
  for (const [template, item] of Object.entries(document.paths as Json)) {
    if (!template.startsWith('/v1/') || !(item as Json).get) continue;
    const collection = template.split('/')[2]!;
    let url = template;
    if (template.includes('{id}')) {
      const id = await idOf(collection);
      if (!id) {
        expect([template, mayBeEmpty.has(collection)]).toEqual([template, true]);
        unread.push(template);
        continue;
      }
      url = template.replace('{id}', id);
    }
    const answer = await call('GET', url);
    expect([template, answer.status, answer.body?.error]).toEqual([template, 200, undefined]);
    reads++;
    // The example shows every field the real answer carries.
    const example = jsonExample(resolve((item as Json).get.responses['200']).content['application/json']) as Json;
    const real = Array.isArray(answer.body.data) ? answer.body.data[0] : answer.body.data;
    const shown = Array.isArray(example.data) ? example.data[0] : example.data;
    if (real && shown) expect([template, Object.keys(real).filter((k) => !(k in shown))]).toEqual([template, []]);
  }
  // sent_emails filter on the flow_id they carry (it was refused as an unknown parameter before issue #35).
  const byFlow = await call('GET', `/v1/sent_emails?flow_id=${created.get('flows')![0]}`);
  expect([byFlow.status, byFlow.body.data]).toEqual([200, []]);

  const gets = Object.entries(document.paths as Json).filter(([template, item]) => template.startsWith('/v1/') && (item as Json).get).length;
  expect(reads + unread.length).toBe(gets);
  expect(reads).toBeGreaterThanOrEqual(gets - mayBeEmpty.size);
});
