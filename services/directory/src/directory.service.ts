import { hkdfSync } from 'node:crypto';
import { type Logger, createCursorCodec, createLogger } from '@crm/kit';
import { type ApiKeyListing, type ApiKeys, type CreatedApiKey, createApiKeys, userKeyRevoker } from './api-keys';
import { type Credentials, createCredentials, passwordMatcher, passwordTokenEnder } from './credentials';
import {
  COLLECTIONS,
  ensureDirectoryIndexes,
  type ApiKeyDoc,
  type CredentialDoc,
  type IntegrationDoc,
  type PasswordTokenDoc,
  type SessionDoc,
  type UserDoc,
  type WorkspaceDoc,
} from './directory.schema';
import { type SmtpCheck, createSmtpCheck } from './integration-check';
import { type Integrations, createIntegrations } from './integrations';
import { type PasswordHasher, argon2Hasher } from './password';
import { type PasswordMailer, createPasswordMailer } from './password-mail';
import { type Sessions, createSessions, sessionEnder } from './sessions';
import type { DocumentStore } from './store/document-store';
import { type Users, createUsers, userFinder, userNamer } from './users';
import { type Workspaces, createWorkspaces, workspaceFinder } from './workspaces';

/**
 * The directory's domain operations, one aggregate each: workspaces (`workspaces.ts`), users
 * (`users.ts`), API keys (`api-keys.ts`), integrations (`integrations.ts`), credentials
 * (`credentials.ts`) and sessions (`sessions.ts`). Transport-free: the gRPC server binds these to
 * the proto, and every failure is a `CrmError` with a public code.
 */
export interface DirectoryService extends Workspaces, Users, ApiKeys, Integrations, Credentials, Sessions, SessionApiKeys {}

/** The settings page's key operations: the session decides the user, and so what they may see. */
export interface SessionApiKeys {
  listSessionApiKeys(sessionId: string): Promise<ApiKeyListing[]>;
  createSessionApiKey(input: { session_id: string; name: string; env: string; scopes: string[] }): Promise<CreatedApiKey>;
  revokeSessionApiKey(sessionId: string, id: string): Promise<{ id: string; revoked: true }>;
}

export const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8080';

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
  /** PUBLIC_URL: the gateway's public origin, the base of set-password links. */
  publicUrl?: string;
  /** Default argon2id with the library's defaults; tests count calls or lower the cost. */
  passwordHasher?: PasswordHasher;
  /** Sends set-password links through the workspace's server; tests trust their own certificate. */
  passwordMailer?: PasswordMailer;
  /** Where a link that could not be mailed is reported (never with a secret); default silent. */
  log?: Logger;
}

export function createDirectoryService(deps: DirectoryServiceDeps): DirectoryService {
  const { store, secretsKey, keyPepper = '', now = () => new Date() } = deps;
  if (secretsKey.length !== 32) throw new Error('secretsKey must be 32 bytes');

  const workspaces = store.collection<WorkspaceDoc>(COLLECTIONS.workspaces);
  const users = store.collection<UserDoc>(COLLECTIONS.users);
  const apiKeys = store.collection<ApiKeyDoc>(COLLECTIONS.apiKeys);
  const integrations = store.collection<IntegrationDoc>(COLLECTIONS.integrations);
  const credentials = store.collection<CredentialDoc>(COLLECTIONS.credentials);
  const passwordTokens = store.collection<PasswordTokenDoc>(COLLECTIONS.passwordTokens);
  const sessions = store.collection<SessionDoc>(COLLECTIONS.sessions);
  const cursors = createCursorCodec(deps.cursorSecret);
  const hasher = deps.passwordHasher ?? argon2Hasher();
  const log = deps.log ?? createLogger('directory', 'silent');

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
  const endSessions = sessionEnder(sessions);
  const endLinks = passwordTokenEnder(passwordTokens);
  const revokeKeys = userKeyRevoker(apiKeys, common.timestamp);

  const integrationOps = createIntegrations({ ...common, integrations, cursors, secretsKey, findWorkspace, smtpCheck: deps.smtpCheck ?? createSmtpCheck() });
  const keyOps = createApiKeys({ ...common, apiKeys, keyPepper, now, findWorkspace, findUser, userNames: userNamer(users) });
  const { signedInUser, ...sessionOps } = createSessions({
    ...common,
    sessions,
    now,
    matchPassword: passwordMatcher({ users, credentials, hasher }),
    findUser,
    findWorkspace,
    csrfKey: csrfKey(keyPepper, deps.cursorSecret),
  });
  const credentialOps = createCredentials({
    ...common,
    credentials,
    passwordTokens,
    hasher,
    now,
    findWorkspace,
    findUser,
    signedInUser,
    endSessions,
    sendingIntegration: (workspaceId) => integrationOps.getSendingIntegration(workspaceId),
    mailer: deps.passwordMailer ?? createPasswordMailer(),
    publicUrl: deps.publicUrl ?? DEFAULT_PUBLIC_URL,
    log,
  });
  const { listApiKeysFor, createApiKeyFor, revokeApiKeyFor, ...adminKeyOps } = keyOps;

  return {
    ...createWorkspaces({ ...common, workspaces }),
    ...createUsers({
      ...common,
      users,
      cursors,
      findWorkspace,
      endAccess: async (workspaceId, userId) => {
        await endSessions(workspaceId, userId);
        await endLinks(workspaceId, userId);
        await revokeKeys(workspaceId, userId);
      },
    }),
    ...adminKeyOps,
    ...integrationOps,
    ...credentialOps,
    ...sessionOps,
    listSessionApiKeys: async (sessionId) => listApiKeysFor(await signedInUser(sessionId)),
    createSessionApiKey: async ({ session_id, ...input }) => createApiKeyFor(await signedInUser(session_id), input),
    revokeSessionApiKey: async (sessionId, id) => revokeApiKeyFor(await signedInUser(sessionId), id),
  };
}

/**
 * The key of CSRF tokens, derived (HKDF) from the service's configured secrets for this one purpose:
 * KEY_PEPPER when set, else CURSOR_SECRET. Every replica derives the same key, and a token made
 * with it proves nothing to any other use of those secrets.
 */
function csrfKey(keyPepper: string, cursorSecret: string | Buffer): Buffer {
  const secret = keyPepper !== '' ? keyPepper : cursorSecret;
  return Buffer.from(hkdfSync('sha256', secret, 'crm-directory', 'csrf', 32));
}
