import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  ConfigError,
  type EventBus,
  type Logger,
  type SqlClient,
  createMemoryBus,
  createNatsBus,
  createPgClient,
  createPgliteClient,
} from '@crm/kit';
import type { DirectorySettings, DocumentStore } from '@crm/directory';
import type { CommonSettings, RunMode, SqlSettings } from './settings';

/** The data folder setting, which every backend and generated secret is kept under. */
type DataDir = Pick<CommonSettings, 'CRM_DATA_DIR'>;

/**
 * Backends chosen from the configuration: the real server when its URL is set, the embedded
 * equivalent (same interface, same contract tests) under `CRM_DATA_DIR` otherwise.
 */
export const dataDir = (settings: DataDir): string => path.resolve(settings.CRM_DATA_DIR);

export type SecretName = 'CURSOR_SECRET' | 'SECRETS_KEY' | 'KEY_PEPPER';

/**
 * A server secret: from the environment when set (a component requires it there, see settings.ts).
 * All-in-one generates it once and keeps it in `<data dir>/secrets.json` (mode 0600), so a
 * restart keeps cursors, keys and secrets valid.
 */
export function loadSecret<N extends SecretName>(name: N, settings: DataDir & { readonly [K in N]: string | undefined }, mode: RunMode): string {
  const given = settings[name];
  if (given) return given;
  if (mode === 'component') throw new ConfigError(`${name} is required: every replica of a component must share it (see infra/README.md)`);
  const dir = dataDir(settings);
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

export function loadSecretsKey(settings: DataDir & Pick<DirectorySettings, 'SECRETS_KEY'>, mode: RunMode): Buffer {
  const key = Buffer.from(loadSecret('SECRETS_KEY', settings, mode), 'base64');
  if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be the base64 encoding of 32 bytes');
  return key;
}

/**
 * Postgres at DATABASE_URL in `schema`, else PGlite under the data folder (one per schema).
 * `readOnly`: a Postgres schema that is missing is not created (`crm check` changes nothing).
 */
export async function openSql(
  schema: string,
  settings: DataDir & Pick<SqlSettings, 'DATABASE_URL' | 'DB_POOL_SIZE' | 'DB_STATEMENT_TIMEOUT_MS'>,
  log: Logger,
  options: { readOnly?: boolean } = {},
): Promise<SqlClient> {
  const url = settings.DATABASE_URL;
  if (url) {
    return createPgClient({ url, schema, max: settings.DB_POOL_SIZE, statementTimeoutMs: settings.DB_STATEMENT_TIMEOUT_MS, createSchema: !options.readOnly });
  }
  const dir = path.join(dataDir(settings), schema);
  mkdirSync(dir, { recursive: true });
  log.info({ dir }, 'using embedded Postgres (PGlite)');
  return createPgliteClient({ dataDir: dir, schema });
}

/** NATS JetStream when `NATS_URL` is set; otherwise the in-process bus (all-in-one's default). */
export async function openBus(
  settings: Pick<CommonSettings, 'NATS_URL' | 'NATS_NEW_DURABLES_FROM' | 'NATS_STREAM_REPLICAS'>,
  log: Logger,
  mode: RunMode,
): Promise<EventBus> {
  const url = settings.NATS_URL;
  if (url) return createNatsBus({ servers: url, newDurablesFrom: settings.NATS_NEW_DURABLES_FROM, streamReplicas: settings.NATS_STREAM_REPLICAS });
  if (mode === 'component') log.warn('NATS_URL is not set: events stay inside this process (in-process bus)');
  return createMemoryBus();
}

export async function openDocumentStore(settings: DataDir & Pick<DirectorySettings, 'MONGO_URL' | 'MONGO_DB'>, log: Logger): Promise<DocumentStore> {
  // Loaded here, not at the top: only the directory's image holds the directory.
  const { createEmbeddedStore, createMongoStore } = await import('@crm/directory');
  const url = settings.MONGO_URL;
  if (url) return createMongoStore({ url, dbName: settings.MONGO_DB });
  const dir = path.join(dataDir(settings), 'directory');
  mkdirSync(dir, { recursive: true });
  log.info({ dir }, 'using the embedded document store');
  return createEmbeddedStore({ dataDir: dir });
}
