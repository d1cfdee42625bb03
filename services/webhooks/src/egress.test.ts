import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { egressAgents, isPublicAddress, urlProblem } from './egress';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '169.254.1.1', '100.64.0.1', '100.127.255.254',
    '224.0.0.1', '239.255.255.250', '0.0.0.0', '255.255.255.255', '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
    'fe80::1', 'fd00::1', 'fc00::1', 'ff02::1', '64:ff9b::7f00:1', '2002:7f00:1::', 'not-an-address',
  ])('refuses %s', (address) => expect(isPublicAddress(address)).toBe(false));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34'])('accepts %s', (address) => expect(isPublicAddress(address)).toBe(true));
});

describe('urlProblem', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  it('takes public https URLs and refuses the rest unless the flags say so', () => {
    expect(urlProblem('https://hooks.example.com/x', strict)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/x', strict)).toMatch(/https/);
    expect(urlProblem('http://hooks.example.com/x', { ...strict, allowHttp: true })).toBeUndefined();
    expect(urlProblem('ftp://hooks.example.com/x', { allowHttp: true, allowPrivate: true })).toMatch(/https/);
    // Decimal and hex IPv4 forms are normalised by the URL parser, then refused.
    expect(urlProblem('https://2130706433/x', strict)).toMatch(/private/);
    expect(urlProblem('https://0x7f.1/x', strict)).toMatch(/private/);
    expect(urlProblem('https://[::ffff:7f00:1]/x', strict)).toMatch(/private/);
    expect(urlProblem('https://127.0.0.1/x', { ...strict, allowPrivate: true })).toBeUndefined();
    expect(urlProblem('not a url', strict)).toMatch(/absolute/);
  });
});

describe('egressAgents (request-filtering-agent at connection time)', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (url: string, agent: http.Agent) =>
    new Promise<number>((resolve, reject) => {
      http.get(url, { agent }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });

  it('refuses a loopback literal and a name resolving to it when private addresses are not allowed', async () => {
    const { http: agent } = egressAgents({ allowHttp: true, allowPrivate: false });
    await expect(get(`http://127.0.0.1:${port}/`, agent)).rejects.toThrow(/not allowed/);
    await expect(get(`http://localhost:${port}/`, agent)).rejects.toThrow(/not allowed/);
    await expect(get(`http://[::ffff:127.0.0.1]:${port}/`, agent)).rejects.toThrow(/not allowed/);
    await expect(get(`http://169.254.169.254:${port}/`, agent)).rejects.toThrow(/not allowed/);
  });

  it('connects when WEBHOOKS_ALLOW_PRIVATE lifts the check', async () => {
    const { http: agent } = egressAgents({ allowHttp: true, allowPrivate: true });
    await expect(get(`http://127.0.0.1:${port}/`, agent)).resolves.toBe(200);
  });
});
