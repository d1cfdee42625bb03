#!/usr/bin/env node
// Sums a process's garbage collections from its `--trace-gc-nvp` output: for the scavenges (the
// young generation), what they found allocated, what survived (was copied) and what was promoted to
// the old generation, and their pauses; for the full collections, their number and pauses. A
// process whose short-lived objects outlive scavenges shows a high survived share. Usage:
//   node scripts/gc-summary.mjs <log>… [--last=N]
// e.g. after `BENCH_NODE_ARGS=--trace-gc-nvp BENCH_ONLY='sort=last_name' npm run bench:people`:
//   node scripts/gc-summary.mjs test/bench/.data/profiles/gateway-*.log --last=40
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
if (!files.length) {
  console.error('usage: node scripts/gc-summary.mjs <log>… [--last=N]');
  process.exit(2);
}
const last = Number(args.find((a) => a.startsWith('--last='))?.split('=')[1] ?? 0);

/** One `--trace-gc-nvp` line as its name=value pairs. */
const fieldsOf = (line) => Object.fromEntries([...line.matchAll(/(\w+)=([^\s]+)/g)].map(([, k, v]) => [k, v]));
const sum = (rows, key) => rows.reduce((total, row) => total + Number(row[key] ?? 0), 0);
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
for (const file of files) {
  console.log(file);
  const collections = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /\bgc=/.test(line))
    .map(fieldsOf);
  let scavenges = collections.filter((c) => c.gc === 's');
  if (last > 0) scavenges = scavenges.slice(-last);
  const full = collections.filter((c) => c.gc === 'mc' || c.gc === 'ms');
  const allocated = sum(scavenges, 'allocated');
  const survived = sum(scavenges, 'new_space_survived');
  console.log(
    `${scavenges.length} scavenges: allocated ${mb(allocated)}, survived ${mb(survived)} (${((100 * survived) / (allocated || 1)).toFixed(1)} %), ` +
      `promoted ${mb(sum(scavenges, 'promoted'))}, pauses ${sum(scavenges, 'pause').toFixed(0)} ms`,
  );
  console.log(`${full.length} full collections: pauses ${sum(full, 'pause').toFixed(0)} ms`);
}
