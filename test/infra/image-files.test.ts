/**
 * What each image holds, without a container engine: scripts/image-files.mjs lists the files of a
 * Dockerfile target (its component's workspace dependency closure; the Dockerfile's build stage
 * copies exactly that list). Checked here: an image holds its own component, the kit, the contract
 * packages and proto files it uses and their production dependencies, and nothing else; and the
 * component really starts from a copy of just those files.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { grpcServing } from '../support/health';
import { type CrmProcess, freePort, startCrm } from '../support/processes';
import { CLI_SERVICES, COMPONENTS, ROOT } from './deploy-facts';

jest.setTimeout(120_000);

const SCRIPT = path.join(ROOT, 'scripts', 'image-files.mjs');
interface ImageFiles {
  target: string;
  workspaces: string[];
  packages: string[];
  files: string[];
}
const listing = (target: string): ImageFiles => JSON.parse(execFileSync(process.execPath, [SCRIPT, target, '--json'], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 }).toString());
const TARGETS = [...COMPONENTS, 'all-in-one'];
const images: Record<string, ImageFiles> = Object.fromEntries(TARGETS.map((t) => [t, listing(t)]));
const rootPkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const serviceDir = (c: string) => `services/${c}`;

test('the script knows the Dockerfile\'s targets', () => {
  const targets = execFileSync(process.execPath, [SCRIPT, '--targets'], { cwd: ROOT }).toString().trim().split('\n');
  expect(targets.sort()).toEqual([...TARGETS].sort());
});

describe.each(COMPONENTS)('the %s image', (c) => {
  const image = images[c]!;
  const own = c === 'gateway' ? 'gateway' : serviceDir(c);

  test('holds its component, the command line, the kit, proto and contract packages, and nothing else of the repository', () => {
    expect(image.workspaces).toEqual(expect.arrayContaining([own, 'packages/cli', 'packages/kit', 'proto']));
    for (const w of image.workspaces) {
      const allowed = w === own || ['packages/cli', 'packages/kit', 'proto'].includes(w) || /^services\/[a-z]+\/contract$/.test(w);
      expect([c, w, allowed]).toEqual([c, w, true]);
    }
    const others = COMPONENTS.filter((x) => x !== c);
    for (const f of image.files) {
      // no sources, tests or type declarations of a workspace: compiled JavaScript only
      if (!f.includes('node_modules/')) expect([f, /(^|\/)src\//.test(f) || /\.test\.js$/.test(f) || /\.d\.ts$/.test(f)]).toEqual([f, false]);
      // no other component's implementation (contracts are the seam, and allowed)
      for (const o of others) {
        const dir = o === 'gateway' ? 'gateway/' : `${serviceDir(o)}/`;
        if (f.startsWith(dir)) expect([c, f, f.startsWith(`${dir}contract/`)]).toEqual([c, f, true]);
      }
    }
    expect(image.files).toEqual(expect.arrayContaining([`${own}/package.json`, 'packages/cli/bin/crm.js', 'infra/docker/healthcheck.cjs']));
    expect(image.files.some((f) => f.startsWith(`${own}/dist/`))).toBe(true);
    expect(image.files.some((f) => f.startsWith('proto/crm/') && f.endsWith('.proto'))).toBe(true);
    if (c === 'gateway') expect(image.files.some((f) => /^services\/[^/]+\/(src|dist)\//.test(f))).toBe(false);
    else expect(image.files.some((f) => f.startsWith('gateway/'))).toBe(false);
  });

  test('holds production dependencies only', () => {
    // A root dev dependency is there only if a shipped package needs it at run time (protobufjs
    // declares @types/node as a dependency of its own), never for the build or the tests.
    const needed = new Set(
      image.packages.flatMap((p) => {
        const m = JSON.parse(fs.readFileSync(path.join(ROOT, p, 'package.json'), 'utf8'));
        return Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies });
      }),
    );
    for (const dev of Object.keys(rootPkg.devDependencies)) {
      if (image.packages.includes(`node_modules/${dev}`)) expect([c, dev, needed.has(dev)]).toEqual([c, dev, true]);
    }
    for (const p of ['typescript', 'jest', '@swc/core', '@swc/jest', 'turbo', 'testcontainers', '@redocly/cli', 'kubernetes-models']) {
      expect([c, p, image.packages.some((x) => x.endsWith(`node_modules/${p}`))]).toEqual([c, p, false]);
    }
    // and those of its own component: mongodb is the directory's, fastify the gateway's
    expect([c, image.packages.includes('node_modules/mongodb')]).toEqual([c, c === 'directory']);
    expect([c, image.packages.includes('node_modules/fastify')]).toEqual([c, c === 'gateway']);
  });
});

test('the all-in-one image holds every component', () => {
  for (const c of COMPONENTS) expect(images['all-in-one']!.workspaces).toContain(c === 'gateway' ? 'gateway' : serviceDir(c));
});

/**
 * The proof the list is enough: each command-line component starts from a copy of its image's files
 * alone (hard links into a temporary folder), with embedded backends.
 */
describe.each(['gateway', ...CLI_SERVICES])('%s starts from its image\'s files alone', (c) => {
  let dir: string;
  let proc: CrmProcess | undefined;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `crm-image-${c}-`));
    execFileSync(process.execPath, [SCRIPT, c, '--copy-to', dir, '--link'], { cwd: ROOT });
  });
  afterAll(async () => {
    await proc?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('and serves', async () => {
    const port = await freePort();
    const data = path.join(dir, 'data');
    const bin = path.join(dir, 'packages/cli/bin/crm.js');
    const env = {
      CRM_DATA_DIR: data,
      NODE_PATH: '',
      DATABASE_URL: '',
      NATS_URL: '',
      MONGO_URL: '',
      REDIS_URL: '',
      CURSOR_SECRET: randomBytes(32).toString('base64'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      KEY_PEPPER: randomBytes(16).toString('hex'),
      GRPC_ADDR: `127.0.0.1:${port}`,
      PORT: String(port),
    };
    if (c !== 'gateway' && c !== 'directory') {
      const migrated = execFileSync(process.execPath, [bin, 'migrate', c], { cwd: dir, env: { ...process.env, ...env, LOG_LEVEL: 'silent' } }).toString();
      expect(JSON.parse(migrated).applied.length).toBeGreaterThan(0);
    }
    proc = startCrm(c, ['start', c], env, dir);
    await expectEventually(
      async () => {
        if (proc!.child.exitCode !== null) throw new Error(`${c} exited:\n${proc!.output()}`);
        if (c === 'gateway') expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        else expect(await grpcServing(`127.0.0.1:${port}`)).toBe(true);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  });
});
