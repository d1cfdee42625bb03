import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';

/** The repository root, found from this file's folder whether it runs as source or compiled (benchmarks). */
export const REPO_ROOT = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'packages/cli/bin/crm.js'))) return dir;
  }
  throw new Error(`no repository root above ${__dirname}`);
})();
export const CRM_BIN = path.join(REPO_ROOT, 'packages/cli/bin/crm.js');

/** Whether nothing listens on `port` of the loopback address (by listening on it for a moment). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Where test ports come from: below Linux's ephemeral range (ip_local_port_range, 32768-60999). */
const TEST_PORTS = { low: 20_000, high: 32_000, slices: 8 };
const handedOut = new Set<number>();

/**
 * A port nothing listens on, for a process a test starts. Not one from `listen(0)`: those come from
 * the ephemeral range, where every outgoing connection on the machine also takes its local port, so
 * between the check and the child's own bind one could take it (CI saw a service exit with
 * EADDRINUSE). Below that range only other tests' choices compete: each jest worker draws from a
 * slice of its own, this process never hands a port out twice, and the port is checked free.
 */
export async function freePort(): Promise<number> {
  const size = Math.floor((TEST_PORTS.high - TEST_PORTS.low) / TEST_PORTS.slices);
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % TEST_PORTS.slices;
  const first = TEST_PORTS.low + worker * size;
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = first + Math.floor(Math.random() * size);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${first}-${first + size - 1}`);
}

/** A `crm` process started by a test; its output is kept to explain a failure. */
export interface CrmProcess {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: no drain, no flush, as a crash or an OOM kill ends a process. */
  kill(): Promise<void>;
}

/** Starts `crm <args>`: the repository's, or the one under `root` (a copy of an image's files). */
export function startCrm(name: string, args: string[], env: NodeJS.ProcessEnv, root: string = REPO_ROOT, nodeArgs: string[] = []): CrmProcess {
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'packages/cli/bin/crm.js'), ...args], {
    cwd: root,
    // Any free port for /metrics unless the test names one: many processes run side by side.
    env: { ...process.env, LOG_LEVEL: 'warn', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // The tail is what explains a failure; a long benchmark run must not hold all of it.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    name,
    child,
    output: () => output,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `crm <args>` to completion (the admin commands). */
export function runCrm(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CRM_BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function runCrmJson<T = Record<string, unknown>>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCrm(args, env);
  if (result.code !== 0) throw new Error(`crm ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
