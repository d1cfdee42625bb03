/**
 * `npm start` on a machine where the directory's well-known gRPC port (50051) and the metrics port
 * (9464) are taken: all-in-one's internal ports are its own business, so it starts on free ones,
 * serves the API, and `crm admin` (another process) still finds its directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { DEFAULT_PORTS } from '../../packages/kit/src/config';
import { probeListen } from '../../packages/kit/src/listen';
import { DEFAULT_METRICS_PORT } from '../../packages/kit/src/telemetry';
import { apiClient } from '../support/http';
import { type CrmProcess, freePort, runCrmJson, startCrm } from '../support/processes';

// PGlite starts and migrates four databases: a minute on a loaded two-core machine.
jest.setTimeout(180_000);

const held: Server[] = [];
let dataDir: string;
let running: CrmProcess | undefined;

/** Listens on `port` unless something already does: either way it is taken while the test runs. */
async function occupy(port: number): Promise<void> {
  const server = createServer();
  const taken = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (taken) held.push(server);
  expect(await probeListen('127.0.0.1', port)).toBe('EADDRINUSE');
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'crm-aio-ports-'));
});
afterAll(async () => {
  await running?.stop();
  for (const server of held) server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('with 50051 and 9464 taken, all-in-one serves the API, /metrics, and crm admin', async () => {
  await occupy(DEFAULT_PORTS.directory);
  await occupy(DEFAULT_METRICS_PORT);
  const process_ = startCrm('all-in-one', ['start'], {
    // Embedded backends, and no internal address or metrics port set: all-in-one chooses.
    DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '',
    DIRECTORY_ADDR: '', PEOPLE_ADDR: '', ACTIVITIES_ADDR: '', MESSAGING_ADDR: '', FLOWS_ADDR: '', METRICS_PORT: '',
    CRM_DATA_DIR: dataDir,
    PORT: String(await freePort()),
  });
  running = process_;
  // The key is printed after the address, once the first workspace and its owner exist: wait for both.
  const { url, key } = await expectEventually(
    () => {
      if (process_.child.exitCode !== null) throw new Error(`crm start exited:\n${process_.output()}`);
      const output = process_.output();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      const printed = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output)?.[1];
      expect([match?.[1], printed]).toEqual([expect.any(String), expect.any(String)]);
      return { url: match![1]!, key: printed! };
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  const api = apiClient(url);
  expect((await api('POST', '/v1/contacts', { key, body: { first_name: 'Ada', email: 'ada@example.com' } })).status).toBe(201);

  // Where it went instead, said in its log and recorded for other processes.
  const record = JSON.parse(readFileSync(path.join(dataDir, 'all-in-one.json'), 'utf8'));
  expect(record).toMatchObject({ pid: process_.child.pid, api: url });
  expect(record.directory).not.toBe(`127.0.0.1:${DEFAULT_PORTS.directory}`);
  expect(record.metrics).not.toBe(`127.0.0.1:${DEFAULT_METRICS_PORT}`);
  expect(process_.output()).toContain(`/metrics is served on ${record.metrics}`);
  const metrics = await fetch(`http://${record.metrics}/metrics`);
  expect(metrics.status).toBe(200);
  expect(await metrics.text()).toContain('service_name="crm-all-in-one"');

  // `crm admin` without DIRECTORY_ADDR reaches this directory, not whatever holds 50051: a key it
  // creates works against this API.
  const admin = { CRM_DATA_DIR: dataDir, DIRECTORY_ADDR: '' };
  const workspace = await runCrmJson<{ id: string }>(['admin', 'workspace', 'create', '--name', 'Ports'], admin);
  const created = await runCrmJson<{ key: string }>(['admin', 'key', 'create', '--workspace', workspace.id, '--scopes', 'contacts:read'], admin);
  expect((await api('GET', '/v1/contacts', { key: created.key })).status).toBe(200);

  // A clean stop removes the record, so no later `crm admin` is sent to a port that is gone.
  await process_.stop();
  expect(process_.child.exitCode).toBe(0);
  expect(existsSync(path.join(dataDir, 'all-in-one.json'))).toBe(false);
});
