import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';

/**
 * Processes of the benchmark: `crm start <component>` children and `crm admin` commands. (The
 * end-to-end helpers in test/support locate the repository from their source folder; the bench
 * runs compiled from test/bench/dist, so it carries these few lines of its own.)
 */
export const REPO_ROOT = path.resolve(__dirname, '../../..');
const CRM_BIN = path.join(REPO_ROOT, 'packages/cli/bin/crm.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface CrmProcess {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function startCrm(name: string, args: string[], env: NodeJS.ProcessEnv): CrmProcess {
  const child = spawn(process.execPath, [CRM_BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    name,
    child,
    output: () => output,
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

export function runCrmJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CRM_BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`crm ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}
