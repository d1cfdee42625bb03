#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`): the functions with the most self time and the
// most inclusive time, with their share of the sampled time. Usage:
//   node scripts/cpu-profile-top.mjs <file.cpuprofile> [count=25] [--busy] [--skip-ms=N]
// --busy leaves idle time out of the shares; --skip-ms=N leaves out the first N ms (start-up).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const [file, countArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const busyOnly = flags.includes('--busy');
const skipMs = Number(flags.find((f) => f.startsWith('--skip-ms='))?.slice('--skip-ms='.length) ?? 0);
if (!file) {
  console.error('usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [count]');
  process.exit(2);
}
const count = Number(countArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

// Time per node from the samples and their deltas (hitCount alone ignores uneven intervals).
const selfUs = new Map();
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  elapsedUs += profile.timeDeltas[i] ?? 0;
  if (elapsedUs < skipMs * 1e3) return;
  if (busyOnly && byId.get(id).callFrame.functionName === '(idle)') return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${path.basename(f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}` : '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url)?.[1] ?? (/\/(packages|services|gateway)\/([^/]+)/.exec(f.url)?.slice(1).join('/') ?? '');
  return `${f.functionName || '(anonymous)'} ${where}${pkg ? ` [${pkg}]` : ''}`;
};
const self = new Map();
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  self.set(label(node), (self.get(label(node)) ?? 0) + us);
  // Each label counted once per sample stack, however often it recurs in it.
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at));
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + us);
  }
}
const show = (title, map) => {
  console.log(`\n${title} (of ${(total / 1e3).toFixed(0)} ms sampled${busyOnly ? ', idle left out' : ''}${skipMs ? `, after the first ${skipMs} ms` : ''})`);
  for (const [l, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${l}`);
  }
};
show('self time', self);
show('inclusive time', inclusive);
