/**
 * `crm start` as a new user runs it: embedded backends, data under CRM_DATA_DIR, a full-scope key
 * printed on the first start only, and data and keys surviving a restart.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { apiClient } from '../support/http';
import { type CrmProcess, freePort, startCrm } from '../support/processes';


// Processes start, migrate and restart here: minutes, not Jest's default seconds.
jest.setTimeout(180_000);
let dataDir: string;
let running: CrmProcess | undefined;

// Embedded backends only, whatever this machine offers.
const embedded = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '' };

async function start(ports: { http: number; directory: number }) {
  running = startCrm('all-in-one', ['start'], {
    ...embedded,
    CRM_DATA_DIR: dataDir,
    PORT: String(ports.http),
    DIRECTORY_ADDR: `127.0.0.1:${ports.directory}`,
    LOG_LEVEL: 'warn',
  });
  const process_ = running;
  return expectEventually(
    () => {
      if (process_.child.exitCode !== null) throw new Error(`crm start exited:\n${process_.output()}`);
      const match = /listening on (http:\/\/\S+)/.exec(process_.output());
      expect(match).not.toBeNull();
      return { url: match![1]!, output: process_.output() };
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  );
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'crm-aio-'));
});
afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('first start prints a working full-scope key; a restart keeps data and prints none', async () => {
  const ports = { http: await freePort(), directory: await freePort() };
  await start(ports);
  // The key and the owner's link are printed after the address, once the first workspace and its owner exist.
  const first = await expectEventually(
    () => {
      const output = running!.output();
      const printed = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output)?.[1];
      expect(printed).toEqual(expect.any(String));
      expect(output).toContain('/settings/password?token=');
      return { output, url: /listening on (http:\/\/\S+)/.exec(output)![1]!, key: printed! };
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const key = first.key;
  // And the owner's one-time link to set a password, on this start's own address.
  expect(first.output).toContain('Sign in to the settings page as owner@example.com');
  expect(first.output).toContain(`${first.url}/settings/password?token=`);
  const api = apiClient(first.url);
  const created = await api('POST', '/v1/contacts', { key, body: { first_name: 'Persisted', email: 'p@example.com' } });
  expect(created.status).toBe(201);
  expect(statSync(path.join(dataDir, 'secrets.json')).mode & 0o077).toBe(0);

  await running!.stop();
  const second = await start(ports);
  expect(second.output).not.toMatch(/svc_live_/);
  expect(second.output).not.toContain('/settings/password?token=');
  const got = await apiClient(second.url)('GET', `/v1/contacts/${created.body.data.id}`, { key });
  expect(got.status).toBe(200);
  expect(got.body.data).toEqual(created.body.data);
});
