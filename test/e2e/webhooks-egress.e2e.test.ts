/**
 * Webhook egress as a user meets it (DESIGN.md section 4, "Egress is checked"): `crm start` with
 * its defaults, no development flag. A URL whose host is a loopback, private, link-local, shared,
 * metadata or multicast address, in any IPv4, IPv6 or IPv4-mapped spelling, is refused when the
 * endpoint is created or changed; a name that resolves to 127.0.0.1 is accepted then (what a name
 * resolves to can change) and refused when the delivery connects: nothing reaches the listener
 * that waits on that address.
 */
import { lookup } from 'node:dns/promises';
import * as net from 'node:net';
import { hostname } from 'node:os';
import { expectEventually } from '@crm/kit/testing';
import { type AllInOne, startAllInOne } from '../support/all-in-one';
import { apiClient } from '../support/http';

jest.setTimeout(180_000);

let aio: AllInOne | undefined;
let api: ReturnType<typeof apiClient>;
let key: string;

beforeAll(async () => {
  aio = await startAllInOne({ RATE_LIMIT_KEY: '100000', RATE_LIMIT_WORKSPACE: '100000' });
  api = apiClient(aio.url);
  key = aio.key;
}, 150_000);
afterAll(() => aio?.stop());

/** Hosts that name this machine, its network or a cloud's metadata service, as address literals. */
const REFUSED_HOSTS = [
  '127.0.0.1',
  '127.1.2.3',
  '2130706433', // 127.0.0.1 in decimal
  '0x7f.1', // and in hex, short form
  '0177.0.0.1', // and in octal
  '0.0.0.0',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1', // shared address space (carrier-grade NAT)
  '169.254.169.254', // the metadata address of most clouds
  '224.0.0.1',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:169.254.169.254]',
  '[fe80::1]',
  '[fd00:ec2::254]', // AWS's IPv6 metadata address
  '[fc00::1]',
  '[ff02::1]',
  'localhost',
  'api.localhost',
];

test.each(REFUSED_HOSTS)('an endpoint at https://%s is refused when created and when set by an update', async (host) => {
  const created = await api('POST', '/v1/webhook_endpoints', { key, body: { url: `https://${host}/hook` } });
  expect(created.status).toBe(422);
  expect(created.body.error.code).toBe('validation_failed');
  expect(created.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'url' })]));

  const fine = await api('POST', '/v1/webhook_endpoints', { key, body: { url: 'https://hooks.example.com/crm' } });
  expect(fine.status).toBe(201);
  const changed = await api('PATCH', `/v1/webhook_endpoints/${fine.body.data.id}`, { key, body: { url: `https://${host}:8443/hook` } });
  expect(changed.status).toBe(422);
  expect((await api('DELETE', `/v1/webhook_endpoints/${fine.body.data.id}`, { key })).status).toBe(204);
});

test('plain http is refused without the development flag', async () => {
  const created = await api('POST', '/v1/webhook_endpoints', { key, body: { url: 'http://hooks.example.com/crm' } });
  expect(created.status).toBe(422);
  expect(JSON.stringify(created.body.error.details)).toMatch(/https/);
});

test('a name that resolves to 127.0.0.1 is accepted, and refused when a delivery connects: nothing reaches that address', async () => {
  // A name of this machine that is not spelled "localhost": its host name (resolved from
  // /etc/hosts), else the fully qualified "localhost." that a string check would miss.
  const candidates = [hostname(), 'localhost.'];
  let name: string | undefined;
  for (const candidate of candidates) {
    const address = await lookup(candidate, { family: 4 }).then(
      (a) => a.address,
      () => undefined,
    );
    if (address === '127.0.0.1') {
      name = candidate;
      break;
    }
  }
  expect({ candidates, resolvedTo127: name !== undefined }).toEqual({ candidates, resolvedTo127: true });

  // Anything that connects to 127.0.0.1:<port> is counted: had the check let the delivery through,
  // its TCP connection would arrive here before any TLS.
  let connections = 0;
  const listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as net.AddressInfo;
  try {
    const endpoint = await api('POST', '/v1/webhook_endpoints', { key, body: { url: `https://${name}:${port}/hook`, event_types: ['contact.created'] } });
    expect(endpoint.status).toBe(201);
    expect((await api('POST', '/v1/contacts', { key, body: { email: 'egress@example.com' } })).status).toBe(201);
    const delivery = await expectEventually(
      async () => {
        const list = await api('GET', `/v1/webhook_deliveries?endpoint_id=${endpoint.body.data.id}`, { key });
        expect(list.status).toBe(200);
        expect(list.body.data).toHaveLength(1);
        expect(list.body.data[0].attempts).toBeGreaterThanOrEqual(1);
        return list.body.data[0];
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: null });
    expect(delivery.last_error).toMatch(/not allowed|private|loopback/i);
    // A retry through the API is checked the same way.
    expect((await api('POST', `/v1/webhook_deliveries/${delivery.id}/retry`, { key })).status).toBe(200);
    await expectEventually(
      async () => expect((await api('GET', `/v1/webhook_deliveries/${delivery.id}`, { key })).body.data.attempts).toBeGreaterThanOrEqual(2),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(connections).toBe(0);
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
});

test('the process says nothing of lifted egress checks when no flag is set', () => {
  expect(aio!.process.output()).not.toMatch(/egress checks lifted/);
});
