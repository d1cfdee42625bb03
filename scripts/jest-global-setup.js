// Builds the workspaces before any test runs, as `npm test` does, so a plain `npx jest` (or
// `npm run jest`) never tests a missing or stale build: the end-to-end suites spawn the built
// `crm`, and every suite loads the code @crm/proto generates from the .proto files. Turbo rebuilds
// only what changed; with nothing changed this takes a fraction of a second.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

module.exports = function buildBeforeTests() {
  if (!existsSync(path.join(root, 'packages/cli/dist/main.js'))) {
    process.stderr.write('\njest: building the workspaces first (npm run build), a minute or two on a fresh clone...\n');
  }
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/turbo/bin/turbo'), 'run', 'build', '--output-logs=errors-only'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) {
    process.stderr.write(`\n${output}\n`);
    throw new Error(
      `the build failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}), so no test ran: ` +
        'tests run the built `crm` and the generated proto code. Fix the errors above, or run `npm run build` to see them again.',
    );
  }
  if (!output.includes('FULL TURBO')) process.stderr.write(`\njest: built what changed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
};
