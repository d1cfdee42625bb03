import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Where a running all-in-one listens, kept in `<CRM_DATA_DIR>/all-in-one.json` while it runs. Its
 * gRPC ports are internal (free ones; the directory's 50051 when free), so `crm admin`, another
 * process, finds the directory here when DIRECTORY_ADDR is not set.
 */
export interface AllInOneRecord {
  pid: number;
  /** The API's base URL. */
  api: string;
  /** The directory's gRPC address. */
  directory: string;
  /** Where `/metrics` is served, unless METRICS_PORT is `off`. */
  metrics?: string;
}

const recordFile = (dataDir: string) => path.join(dataDir, 'all-in-one.json');

/** Writes the record and returns what removes it (on shutdown), if it is still this process's. */
export function writeAllInOneRecord(dataDir: string, record: AllInOneRecord): () => void {
  const file = recordFile(dataDir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  return () => {
    if (readAllInOneRecord(dataDir)?.pid === record.pid) rmSync(file, { force: true });
  };
}

/** The record of the all-in-one running on this data folder, if one runs (a crash leaves its file behind). */
export function readAllInOneRecord(dataDir: string): AllInOneRecord | undefined {
  const file = recordFile(dataDir);
  if (!existsSync(file)) return undefined;
  let record: AllInOneRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as AllInOneRecord;
  } catch {
    return undefined;
  }
  return typeof record.directory === 'string' && isRunning(record.pid) ? record : undefined;
}

function isRunning(pid: unknown): boolean {
  if (typeof pid !== 'number') return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
