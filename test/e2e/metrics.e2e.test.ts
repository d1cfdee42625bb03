/**
 * End to end, distributed: every process serves `/metrics` (Prometheus text) on its own METRICS_PORT,
 * never on the public API port, and its series move with the traffic: the gateway's HTTP durations
 * by route template and status, each service's gRPC durations by method and status code.
 */
import { expectEventually } from '../../packages/kit/src/testing/expect-eventually';
import { freePort } from '../support/processes';
import { type Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const SERVICES = ['directory', 'people', 'activities', 'messaging', 'flows'] as const;
let stack: Stack | undefined;
let key = '';
const ports: Record<string, number> = {};

beforeAll(async () => {
  for (const name of ['gateway', ...SERVICES]) ports[name] = await freePort();
  stack = await startStack({
    gatewayEnv: { METRICS_PORT: String(ports.gateway) },
    componentEnv: Object.fromEntries(SERVICES.map((name) => [name, { METRICS_PORT: String(ports[name]) }])),
  });
  key = (await stack.workspaceWithKey('Metered', '*')).key;
}, 150_000);
afterAll(async () => {
  await stack?.stop();
});

async function scrape(component: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${ports[component]}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/** The sum of a series' samples whose labels include every one given. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

test('every process answers /metrics on its own port, and the public port does not', async () => {
  for (const component of ['gateway', ...SERVICES]) expect(await scrape(component)).toMatch(/^# (HELP|TYPE) /m);
  const publicMetrics = await fetch(`${stack!.baseUrl}/metrics`);
  expect(publicMetrics.status).toBe(404);
  expect((await fetch(`http://127.0.0.1:${ports.gateway}/other`)).status).toBe(404);
  for (const process of stack!.processes) expect(process.output()).not.toMatch(/metrics not served/);
});

test('HTTP and gRPC series move with the traffic, labelled by route template and method, never by id', async () => {
  const http = 'http_server_request_duration_count';
  const rpc = 'rpc_server_duration_count';
  const created = { http_route: '/v1/contacts', http_request_method: 'POST', http_response_status_code: '201' };
  const read = { http_route: '/v1/contacts/:id', http_request_method: 'GET', http_response_status_code: '200' };
  const before = { gateway: await scrape('gateway'), people: await scrape('people'), directory: await scrape('directory') };

  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const answer = await stack!.api('POST', '/v1/contacts', { key, body: { first_name: `M${i}` } });
    expect(answer.status).toBe(201);
    ids.push(answer.body.data.id);
  }
  for (const id of ids) expect((await stack!.api('GET', `/v1/contacts/${id}`, { key })).status).toBe(200);
  expect((await stack!.api('GET', '/v1/contacts/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);

  await expectEventually(async () => {
    const gateway = await scrape('gateway');
    expect(sample(gateway, http, created) - sample(before.gateway, http, created)).toBe(5);
    expect(sample(gateway, http, read) - sample(before.gateway, http, read)).toBe(5);
    expect(sample(gateway, http, { ...read, http_response_status_code: '404' }) - sample(before.gateway, http, { ...read, http_response_status_code: '404' })).toBe(1);
    for (const id of ids) expect(gateway).not.toContain(id);

    const people = await scrape('people');
    const ok = (method: string) => ({ rpc_method: method, rpc_grpc_status_code: '0' });
    expect(sample(people, rpc, ok('CreateContact')) - sample(before.people, rpc, ok('CreateContact'))).toBe(5);
    expect(sample(people, rpc, ok('GetContact')) - sample(before.people, rpc, ok('GetContact'))).toBeGreaterThanOrEqual(5);
    expect(sample(people, rpc, { rpc_method: 'GetContact', rpc_grpc_status_code: '5' })).toBeGreaterThanOrEqual(1);
    // Every request was authenticated by the directory (or its cache): the series exists and counts.
    expect(sample(await scrape('directory'), rpc, ok('Authenticate'))).toBeGreaterThanOrEqual(sample(before.directory, rpc, ok('Authenticate')));
  });
});
