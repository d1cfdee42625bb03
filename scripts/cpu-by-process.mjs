#!/usr/bin/env node
// CPU time each process of this machine used while a command ran (Linux: /proc/<pid>/stat, user
// plus system time), grouped by command line. Processes that start and end during the run are
// counted too (sampled every 200 ms; the last 200 ms of a short-lived one can be missed). Usage:
//   node scripts/cpu-by-process.mjs [--requests=N] -- <command> [args…]
// e.g. BENCH_ONLY='sort=last_name' node scripts/cpu-by-process.mjs --requests=2500 -- node test/bench/dist/bench/people.bench.js
// With --requests, each line also gives the milliseconds of CPU per request.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const separator = process.argv.indexOf('--');
if (separator < 0 || separator === process.argv.length - 1) {
  console.error('usage: node scripts/cpu-by-process.mjs [--requests=N] -- <command> [args…]');
  process.exit(2);
}
const requests = Number(process.argv.slice(2, separator).find((a) => a.startsWith('--requests='))?.split('=')[1] ?? 0);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function snapshot() {
  const out = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.set(pid, { ticks, command });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return out;
}

/** A short name for a command line: the program and the arguments that tell processes apart. */
function nameOf(command) {
  const [program = '?', ...args] = command;
  const base = program.split('/').pop();
  // A Postgres backend names itself in its first argument ("postgres: 16/main: postgres test …").
  if (/^postgres/.test(program) || /^postgres/.test(base)) return 'postgres (all backends)';
  return [base, ...args.slice(0, 3).map((a) => a.split('/').pop())].join(' ');
}

const first = snapshot();
const last = new Map();
const sample = () => {
  for (const [pid, seen] of snapshot()) last.set(pid, { ticks: seen.ticks, command: seen.command.length ? seen.command : (last.get(pid)?.command ?? []) });
};
const timer = setInterval(sample, 200);
const child = spawn(process.argv[separator + 1], process.argv.slice(separator + 2), { stdio: 'inherit' });
child.on('exit', (code) => {
  clearInterval(timer);
  sample();
  const byName = new Map();
  for (const [pid, { ticks, command }] of last) {
    const used = (ticks - (first.get(pid)?.ticks ?? 0)) / TICKS_PER_SECOND;
    if (used > 0) byName.set(nameOf(command), (byName.get(nameOf(command)) ?? 0) + used);
  }
  const rows = [...byName].sort((a, b) => b[1] - a[1]).filter(([, s]) => s >= 0.05);
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  console.log(`\nCPU by process while it ran${requests ? ` (per request: ${requests} requests)` : ''}:`);
  for (const [name, seconds] of rows) {
    console.log(`${seconds.toFixed(2).padStart(8)} s${requests ? `  ${((1000 * seconds) / requests).toFixed(2).padStart(6)} ms/request` : ''}  ${name}`);
  }
  console.log(`${total.toFixed(2).padStart(8)} s  total`);
  process.exit(code ?? 1);
});
