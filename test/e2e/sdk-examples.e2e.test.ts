/**
 * The SDK's examples (packages/sdk/examples), run as a user runs them (`node examples/<name>.ts`,
 * with CRM_URL and CRM_API_KEY) against the all-in-one: import contacts from a CSV, build a flow and
 * enroll a pool of them, watch the flow's analytics. What each prints is checked, and what it did
 * is read back through the SDK.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type CrmClient, createCrmClient } from '@crm/sdk';
import { type AllInOne, startAllInOne } from '../support/all-in-one';
import { REPO_ROOT } from '../support/processes';

jest.setTimeout(240_000);
const EXAMPLES = path.join(REPO_ROOT, 'packages/sdk/examples');

let system: AllInOne;
let crm: CrmClient;
let scratch: string;

beforeAll(async () => {
  system = await startAllInOne({ FLOW_ENGINE_POLL_MS: '200' });
  crm = createCrmClient({ baseUrl: system.url, apiKey: system.key });
  scratch = mkdtempSync(path.join(tmpdir(), 'crm-sdk-examples-'));
}, 180_000);
afterAll(async () => {
  await system?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function runExample(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runNode([path.join(EXAMPLES, name), ...args]);
}

function runNode(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: path.join(REPO_ROOT, 'packages/sdk'), env: { ...process.env, CRM_URL: system.url, CRM_API_KEY: system.key }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

let flowId = '';

test('import-contacts.ts imports a CSV with progress and sums up the refused rows by code', async () => {
  const csv = path.join(scratch, 'contacts.csv');
  writeFileSync(
    csv,
    [
      'first_name,last_name,email,company_name,country,source,priority',
      'Ada,Lovelace,ada@import.test,Analytical Engines,GB,sdk-example,10',
      'Grace,Hopper,grace@import.test,"Navy, US",US,sdk-example,',
      'Alan,Turing,alan@import.test,Bletchley,GB,sdk-example,5',
      'Dup,Licate,ADA@import.test,,GB,sdk-example,', // row 5: the same email, differently cased: 409
      ',,,Nameless Ltd,FR,sdk-example,', // row 6: neither a name nor an email: 422
      'Bad,Email,not-an-email,,FR,sdk-example,', // row 7: 422 naming email
      '"Edsger ""EWD""",Dijkstra,edsger@import.test,,NL,sdk-example,7',
    ].join('\r\n'),
  );
  const run = await runExample('import-contacts.ts', [csv]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  expect(run.stdout).toContain('importing: 7/7 rows, 4 imported, 3 refused');
  expect(run.stdout).toContain('done: 4 imported, 3 refused of 7 rows');
  expect(run.stdout).toMatch(/409 conflict: 1 row\(s\)\n\s+row 5: .*\(email\)/);
  expect(run.stdout).toMatch(/422 validation_failed: 2 row\(s\)\n\s+row 6: [^\n]*\n\s+row 7: .*\(email\)/);

  const imported = await crm.paginate('/v1/contacts', { params: { query: { source: 'sdk-example' } } }).toArray();
  expect(imported.map((c) => c.email).sort()).toEqual(['ada@import.test', 'alan@import.test', 'edsger@import.test', 'grace@import.test']);
  expect(imported.find((c) => c.email === 'edsger@import.test')!.first_name).toBe('Edsger "EWD"');
  expect(imported.find((c) => c.email === 'grace@import.test')!.company_name).toBe('Navy, US');
});

test('enroll-pool.ts builds a flow, pools the contacts of a source and enrolls the pool', async () => {
  const run = await runExample('enroll-pool.ts', ['--source', 'sdk-example', '--name', 'SDK example flow']);
  expect([run.code, run.stderr]).toEqual([0, '']);
  flowId = /flow "SDK example flow": ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? '';
  expect(flowId).not.toBe('');
  expect(run.stdout).toContain('pool "SDK example flow: source sdk-example": 4 contacts');
  expect(run.stdout).toContain('enrolled 4, already enrolled 0');

  const runs = await crm.paginate('/v1/flow_runs', { params: { query: { flow_id: flowId } } }).toArray();
  expect(runs).toHaveLength(4);
  const { data: flow } = await crm.GET('/v1/flows/{id}', { params: { path: { id: flowId } } });
  expect(flow.status).toBe('active');
});

test('watch-analytics.ts prints the flow analytics as they change, and stops when its time is up', async () => {
  const run = await runExample('watch-analytics.ts', [flowId, '--every', '1', '--for', '3']);
  expect([run.code, run.stderr]).toEqual([0, '']);
  // The four enrollments are active (the flow waits two days after its first email).
  expect(run.stdout).toMatch(/^\d\d:\d\d:\d\d SDK example flow: active 4\b.*\| \S+ \d+ → /m);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('stopped watching');
});

test("the README's quick start runs its SDK block as written (but for the address and the key)", async () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(quickStart)?.[1];
  expect(block).toContain("from '@crm/sdk'");
  const script = block!.replace('http://127.0.0.1:8080', system.url).replace('svc_live_...', system.key);
  // Run where @crm/sdk resolves, as TypeScript Node strips the types of.
  const run = await runNode(['--input-type=module-typescript', '-e', script]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  expect(run.stdout.split('\n')).toEqual(expect.arrayContaining(['ada@import.test', 'edsger@import.test']));
  const created = await crm.paginate('/v1/contacts', { params: { query: { q: 'grace@example.com' } } }).toArray();
  expect(created.map((c) => c.first_name)).toEqual(['Grace']);
});
