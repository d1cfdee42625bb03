#!/usr/bin/env node
// The two quick-start commands: `npm start` and `npm test`. Each installs dependencies when they are
// missing or stale, builds what changed (turbo caches the rest), then starts the system or runs the
// tests. Works as the first command on a fresh clone with only Node (the release of package.json
// "engines") and npm.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

// An older Node would install with EBADENGINE warnings and then fail somewhere less clear.
const wanted = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
const major = Number(process.versions.node.split('.')[0]);
if (major < Number(/^>=(\d+)/.exec(wanted)?.[1] ?? 0)) {
  console.error(`This project runs on Node ${wanted.slice(2)} or later (package.json "engines"); this is Node ${process.versions.node}.`);
  console.error(`Install Node ${readFileSync(join(root, '.node-version'), 'utf8').trim()} (.node-version, which fnm reads; nvm reads .nvmrc), then run this again.`);
  process.exit(1);
}
const [command, ...rest] = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', NEXT_TELEMETRY_DISABLED: '1' };

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env, ...options });
  if (result.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

function installIfNeeded() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
  if (stale) {
    console.error('Installing dependencies (npm ci)...');
    run(npm, ['ci', '--no-audit', '--no-fund']);
  }
}

function build() {
  run(process.execPath, [join(root, 'node_modules', 'turbo', 'bin', 'turbo'), 'run', 'build', '--output-logs=errors-only']);
}

installIfNeeded();
// Jest builds in its global setup (scripts/jest-global-setup.js), so `npx jest` builds too.
if (command !== 'test') build();

if (command === 'start') {
  const child = spawn(process.execPath, [join(root, 'packages/cli/bin/crm.js'), 'start', ...rest], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === 'test') {
  // Plain Jest, as `npx jest` runs it: jest.config.js needs no Node flag (see its transform).
  run(process.execPath, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', ...rest]);
} else if (command !== 'build') {
  console.error('usage: node scripts/bootstrap.mjs start|test|build [args]');
  process.exit(2);
}
