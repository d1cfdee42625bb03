import { execFileSync } from 'node:child_process';

/**
 * Whether a TCP service answers, decided synchronously so a test file can choose its suites while
 * Jest collects them. Suites ask serviceAvailable, never this directly: there
 * `CRM_REQUIRE_SERVICES=1` (CI's first pass) turns an absent service into a failure instead of a
 * skip.
 */
export function isReachableSync(url: string, timeoutMs = 1_000): boolean {
  const { hostname, port } = new URL(url);
  const script = `const s=require('net').connect(${Number(port)},${JSON.stringify(hostname)});s.setTimeout(${timeoutMs},()=>process.exit(1));s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));`;
  try {
    execFileSync(process.execPath, ['-e', script], { stdio: 'ignore', timeout: timeoutMs + 2_000 });
    return true;
  } catch {
    return false;
  }
}

export const requireServices = (): boolean => process.env.CRM_REQUIRE_SERVICES === '1';

/** Decides whether suites against a real service run: yes if reachable, fail if required, else skip loudly. */
export function serviceAvailable(name: string, url: string): boolean {
  if (isReachableSync(url)) return true;
  if (requireServices()) throw new Error(`${name} at ${url} is required (CRM_REQUIRE_SERVICES=1) but unreachable`);
  // eslint-disable-next-line no-console
  console.warn(`${name} at ${url} is unreachable: its suites are skipped, the embedded backend still runs`);
  return false;
}

/**
 * The same decision for a program a suite runs (psql, nats-server): yes if this machine has it,
 * fail if required, else skip loudly.
 */
export function toolAvailable(name: string, found: boolean): boolean {
  if (found) return true;
  if (requireServices()) throw new Error(`${name} is required (CRM_REQUIRE_SERVICES=1) but not found on this machine`);
  // eslint-disable-next-line no-console
  console.warn(`${name} is not found on this machine: the suites that need it are skipped`);
  return false;
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
