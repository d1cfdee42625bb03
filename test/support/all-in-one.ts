import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import { type CrmProcess, freePort, startCrm } from './processes';

/** A `crm start` as a new user runs it (all-in-one.e2e.test.ts), and the key its first start prints. */
export interface AllInOne {
  readonly url: string;
  /** The full-scope key printed once by the first start. */
  readonly key: string;
  readonly dataDir: string;
  readonly process: CrmProcess;
  stop(): Promise<void>;
}

// Embedded backends only, whatever this machine offers.
const EMBEDDED = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '' };

export async function startAllInOne(env: NodeJS.ProcessEnv = {}): Promise<AllInOne> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crm-aio-'));
  const running = startCrm('all-in-one', ['start'], {
    ...EMBEDDED,
    CRM_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    DIRECTORY_ADDR: `127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const stop = async () => {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return await expectEventually(
      () => {
        if (running.child.exitCode !== null) throw new Error(`crm start exited:\n${running.output()}`);
        const output = running.output();
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        const key = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output)?.[1];
        expect([url, key]).toEqual([expect.any(String), expect.any(String)]);
        return { url: url!, key: key!, dataDir, process: running, stop };
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
}
