#!/usr/bin/env node
// The two quick-start commands: `npm start` and `npm test`. Each installs dependencies when they are
// missing or stale, builds what changed (turbo caches the rest), then starts the system or runs the
// tests. Works as the first command on a fresh clone with only Node 20 and npm.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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
build();

if (command === 'start') {
  const child = spawn(process.execPath, [join(root, 'packages/cli/bin/crm.js'), 'start', ...rest], { cwd: root, stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === 'test') {
  // PGlite loads its WebAssembly modules with dynamic import(), which Jest's VM sandbox allows only
  // with this flag.
  const nodeOptions = [env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ');
  run(process.execPath, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', ...rest], {
    env: { ...env, NODE_OPTIONS: nodeOptions, NODE_NO_WARNINGS: '1' },
  });
} else if (command !== 'build') {
  console.error('usage: node scripts/bootstrap.mjs start|test|build [args]');
  process.exit(2);
}
