/**
 * The README's quick start and gateway/README.md's walk-through, run as written (issue #35): their
 * shell blocks, extracted from the two files, in the order a newcomer meets them, by bash against a
 * fresh all-in-one on embedded backends. The reader's part is done as a reader does it: the quick
 * start's placeholder key and address are replaced by the ones the first start printed (pasted),
 * and the walk-through reads CRM_API_KEY and CRM_URL, which it tells the reader to set.
 *
 * Every call the blocks make must answer 2xx: `curl` is wrapped to fail on any other status
 * (`--fail-with-body`) and to report each status on stderr, and the script runs under
 * `set -euo pipefail`, so a 409 that once made the walk-through's contact `null` stops it there.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { type CrmProcess, REPO_ROOT, freePort, startCrm } from '../support/processes';

// A system start, then a flow whose second email waits 10 s: minutes on a loaded machine.
jest.setTimeout(240_000);

const embedded = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '', PUBLIC_URL: '' };

/** The fenced `sh` blocks of a piece of Markdown, in order. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * The text of a Markdown file from `start` to the next heading of `level` or higher outside a
 * fenced block (a shell comment in a block is not a heading).
 */
function section(markdown: string, start: string, level: number): string {
  const from = markdown.indexOf(start);
  if (from === -1) throw new Error(`no section starting "${start}"`);
  const lines = markdown.slice(from + start.length).split('\n');
  const heading = new RegExp(`^#{1,${level}} `);
  let fenced = false;
  const end = lines.findIndex((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && heading.test(line);
  });
  return (end === -1 ? lines : lines.slice(0, end)).join('\n');
}

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const gatewayReadme = readFileSync(path.join(REPO_ROOT, 'gateway/README.md'), 'utf8');
/** The quick start's blocks that call the API (not `npm start` itself, nor the `crm admin` examples). */
const quickStart = shellBlocks(section(readme, '## Quick start', 2)).filter((block) => /^\s*curl /m.test(block));
/** The walk-through: the first block after its paragraph. */
const walkThrough = shellBlocks(section(gatewayReadme, '**Walk-through**', 3))[0];

/** What precedes the blocks: strict mode, and curl failing on (and reporting) any status but 2xx. */
const PRELUDE = `set -euo pipefail
curl() { command curl --fail-with-body --write-out '%{stderr}HTTP %{http_code} %{url_effective}\\n' "$@"; }
`;

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the quick start and the walk-through, as written', () => {
  let home: string;
  let crm: CrmProcess | undefined;

  beforeAll(() => {
    // The reader's folder: `npm start` keeps its data in ./.data, where the walk-through lists the mail.
    home = mkdtempSync(path.join(tmpdir(), 'crm-walkthrough-'));
  });
  afterAll(async () => {
    await crm?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('the README has the blocks this test runs', () => {
    expect(quickStart.length).toBeGreaterThan(0);
    expect(quickStart.join('\n')).toContain('svc_live_...');
    expect(walkThrough).toMatch(/\$CRM_API_KEY/);
  });

  test('the walk-through creates no contact the quick start created, in any of its languages', () => {
    // A contact's email is unique in a workspace: the same one twice is 409 (the issue this guards).
    const emails = (text: string) => new Set([...text.matchAll(/["']?email["']?\s*:\s*["']([^"']+@[^"']+)["']/g)].map((m) => m[1]));
    const quick = emails(section(readme, '## Quick start', 2));
    const walk = emails(walkThrough ?? '');
    expect(quick.size).toBeGreaterThan(0);
    expect(walk.size).toBeGreaterThan(0);
    expect([...walk].filter((email) => quick.has(email))).toEqual([]);
  });

  test('every call answers 2xx, the enrollment completes and both emails are written', async () => {
    crm = startCrm('all-in-one', ['start'], {
      ...embedded,
      CRM_DATA_DIR: path.join(home, '.data'),
      PORT: String(await freePort()),
      DIRECTORY_ADDR: `127.0.0.1:${await freePort()}`,
    });
    const started = crm;
    const { url, key } = await expectEventually(
      () => {
        if (started.child.exitCode !== null) throw new Error(`crm start exited:\n${started.output()}`);
        const output = started.output();
        const listening = /listening on (http:\/\/\S+)/.exec(output);
        const printed = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output);
        expect(listening).not.toBeNull();
        expect(printed).not.toBeNull();
        return { url: listening![1]!, key: printed![1]! };
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );

    // The quick start as a reader pastes it: their key for the placeholder, their address for the default one.
    const pasted = quickStart.map((block) => block.replaceAll('svc_live_...', key).replaceAll('http://127.0.0.1:8080', url));
    const script = [PRELUDE, ...pasted, walkThrough!].join('\n');
    const result = await runBash(script, home, { CRM_API_KEY: key, CRM_URL: url, CRM_DATA_DIR: path.join(home, '.data') }, 150_000);
    const statuses = [...result.stderr.matchAll(/^HTTP (\d{3}) (\S+)$/gm)].map((m) => [Number(m[1]), m[2]!] as const);
    const report = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

    expect([result.code, report]).toEqual([0, report]);
    expect(statuses.filter(([status]) => status < 200 || status > 299)).toEqual([]);
    // The quick start's two calls and at least the walk-through's creations and reads.
    expect(statuses.length).toBeGreaterThanOrEqual(quickStart.join('\n').match(/^\s*curl /gm)!.length + 7);
    expect(result.stdout).toContain('"completed"');
    expect(result.stdout).toMatch(/\["again","(completed|email_queued)"\]/);
    expect(result.stdout.match(/\.eml$/gm)?.length).toBe(2);
  });
});
