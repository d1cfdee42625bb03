import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import {
  type EventBus,
  type Logger,
  type SqlClient,
  createMemoryBus,
  createNatsBus,
  createPgClient,
  createPgliteClient,
  ConfigError,
  intEnv,
  optionalEnv,
} from '@crm/kit';
import { type DocumentStore, createEmbeddedStore, createMongoStore } from '@crm/directory';

/**
 * Backends chosen from the environment: the real server when its URL is set, the embedded
 * equivalent (same interface, same contract tests) under `CRM_DATA_DIR` otherwise.
 */
export const dataDir = (): string => path.resolve(optionalEnv('CRM_DATA_DIR') ?? '.data');

export type SecretName = 'CURSOR_SECRET' | 'SECRETS_KEY' | 'KEY_PEPPER';
export type RunMode = 'all-in-one' | 'component';

/**
 * A server secret. From the environment when set. A component (`crm start <component>`) requires it
 * there: every replica must share it, and one generated per replica would break cursors, key hashes
 * and encrypted secrets across replicas. All-in-one generates it once and keeps it in
 * `<data dir>/secrets.json` (mode 0600), so a restart keeps cursors, keys and secrets valid.
 */
export function loadSecret(name: SecretName, mode: RunMode, dir = dataDir()): string {
  const fromEnv = optionalEnv(name);
  if (fromEnv) return fromEnv;
  if (mode === 'component') {
    throw new ConfigError(`${name} is required: every replica of a component must share it (see infra/README.md)`);
  }
  const file = path.join(dir, 'secrets.json');
  const stored: Partial<Record<SecretName, string>> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const existing = stored[name];
  if (existing) return existing;
  stored[name] = randomBytes(32).toString('base64');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(stored, null, 2), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return stored[name]!;
}

export function loadSecretsKey(mode: RunMode): Buffer {
  const key = Buffer.from(loadSecret('SECRETS_KEY', mode), 'base64');
  if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be the base64 encoding of 32 bytes');
  return key;
}

export async function openSql(schema: string, log: Logger): Promise<SqlClient> {
  const url = optionalEnv('DATABASE_URL');
    if (url) {
    return createPgClient({
      url,
      schema,
      max: intEnv('DB_POOL_SIZE', 10),
      // No statement outlives the longest deadline a caller can set (the gateway's, 5 s by default).
      statementTimeoutMs: intEnv('DB_STATEMENT_TIMEOUT_MS', 10_000),
    });
  }
  const dir = path.join(dataDir(), schema);
  mkdirSync(dir, { recursive: true });
  log.info({ dir }, 'using embedded Postgres (PGlite)');
  return createPgliteClient({ dataDir: dir, schema });
}

/** NATS JetStream when `NATS_URL` is set; otherwise the in-process bus (all-in-one's default). */
export async function openBus(log: Logger, mode: 'all-in-one' | 'component'): Promise<EventBus> {
  const url = optionalEnv('NATS_URL');
  if (url) return createNatsBus({ servers: url });
  if (mode === 'component') log.warn('NATS_URL is not set: events stay inside this process (in-process bus)');
  return createMemoryBus();
}

export async function openDocumentStore(log: Logger): Promise<DocumentStore> {
  const url = optionalEnv('MONGO_URL');
  if (url) return createMongoStore({ url, dbName: optionalEnv('MONGO_DB') ?? 'crm' });
  const dir = path.join(dataDir(), 'directory');
  mkdirSync(dir, { recursive: true });
  log.info({ dir }, 'using the embedded document store');
  return createEmbeddedStore({ dataDir: dir });
}
