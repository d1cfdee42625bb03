import { createCursorCodec } from '@crm/kit';
import { type ApiKeys, createApiKeys } from './api-keys';
import { COLLECTIONS, ensureDirectoryIndexes, type ApiKeyDoc, type IntegrationDoc, type UserDoc, type WorkspaceDoc } from './directory.schema';
import { type SmtpCheck, createSmtpCheck } from './integration-check';
import { type Integrations, createIntegrations } from './integrations';
import type { DocumentStore } from './store/document-store';
import { type Users, createUsers, userFinder } from './users';
import { type Workspaces, createWorkspaces, workspaceFinder } from './workspaces';

/**
 * The directory's domain operations, one aggregate each: workspaces (`workspaces.ts`), users
 * (`users.ts`), API keys (`api-keys.ts`) and integrations (`integrations.ts`). Transport-free: the
 * gRPC server binds these to the proto, and every failure is a `CrmError` with a public code.
 */
export interface DirectoryService extends Workspaces, Users, ApiKeys, Integrations {}

export interface DirectoryServiceDeps {
  store: DocumentStore;
  /** 32-byte AES-256-GCM key for integration secrets (SECRETS_KEY). */
  secretsKey: Buffer;
  /** HMAC key for API key hashes; changing it invalidates every issued key. */
  keyPepper?: string;
  /** Signs list cursors (CURSOR_SECRET, shared by every replica). */
  cursorSecret: string | Buffer;
  now?: () => Date;
  /** How an smtp integration's server is checked; default a real check bounded by 10 s. */
  smtpCheck?: SmtpCheck;
}

export function createDirectoryService(deps: DirectoryServiceDeps): DirectoryService {
  const { store, secretsKey, keyPepper = '', now = () => new Date() } = deps;
  if (secretsKey.length !== 32) throw new Error('secretsKey must be 32 bytes');

  const workspaces = store.collection<WorkspaceDoc>(COLLECTIONS.workspaces);
  const users = store.collection<UserDoc>(COLLECTIONS.users);
  const apiKeys = store.collection<ApiKeyDoc>(COLLECTIONS.apiKeys);
  const integrations = store.collection<IntegrationDoc>(COLLECTIONS.integrations);
  const cursors = createCursorCodec(deps.cursorSecret);

  // Uniqueness (emails, svc_uid, key hashes) rests on the indexes, so no operation runs before they
  // exist, even when the process forgot to migrate. A failed attempt is retried by the next call.
  let indexesReady: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    indexesReady ??= ensureDirectoryIndexes(store).catch((err: unknown) => {
      indexesReady = undefined;
      throw err;
    });
    return indexesReady;
  };

  const common = { ready, timestamp: () => now().toISOString() };
  const findWorkspace = workspaceFinder(workspaces);
  const findUser = userFinder(users);

  return {
    ...createWorkspaces({ ...common, workspaces }),
    ...createUsers({ ...common, users, cursors, findWorkspace }),
    ...createApiKeys({ ...common, apiKeys, keyPepper, now, findWorkspace, findUser }),
    ...createIntegrations({ ...common, integrations, cursors, secretsKey, findWorkspace, smtpCheck: deps.smtpCheck ?? createSmtpCheck() }),
  };
}
