import { DirectoryError, DirectoryErrorCode, integrations as integrationsSpec, users as usersSpec } from '@crm/directory-contract';
import { CrmError, type ListQuery, type Page, createCursorCodec, isUuid, newId, parseScopes, type FieldIssue, type Scope } from '@crm/kit';
import { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';
import {
  COLLECTIONS,
  INDEX_NAMES,
  ensureDirectoryIndexes,
  type ApiKeyDoc,
  type IntegrationDoc,
  type IntegrationStatus,
  type UserDoc,
  type UserRole,
  type WorkspaceDoc,
} from './directory.schema';
import { type SmtpConfig, integrationConfig, parseSmtpConfig } from './integration-config';
import { decryptSecret, encryptSecret } from './secrets';
import { documentLister } from './store/document-list';
import { DuplicateKeyError, type DocumentStore } from './store/document-store';

export { ensureDirectoryIndexes } from './directory.schema';
export type { IntegrationStatus, UserRole } from './directory.schema';

/**
 * The directory's domain operations: workspaces, users, API keys and integrations. Transport-free:
 * the gRPC server binds these to the proto, and every failure is a `CrmError` with a public code.
 * Inputs are checked at run time as well as by type, because they arrive from the wire.
 */

export const USER_ROLES: readonly UserRole[] = ['owner', 'admin', 'member'];

export interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

export interface User {
  id: string;
  workspace_id: string;
  email: string;
  full_name: string;
  role: UserRole;
  is_active: boolean;
  svc_uid: string | null;
  created_at: string;
  updated_at: string;
}

/** The only shape that ever carries a key in clear; it is returned once, at creation. */
export interface CreatedApiKey {
  id: string;
  key: string;
  scopes: Scope[];
  workspace_id: string;
  env: string;
  created_at: string;
}

export interface AuthenticatedKey {
  workspace_id: string;
  key_id: string;
  scopes: Scope[];
  /** The user the key acts for, or null for a workspace key. */
  user_id: string | null;
}

export interface Integration {
  id: string;
  workspace_id: string;
  type: string;
  name: string;
  status: IntegrationStatus;
  enabled: boolean;
  svc_uid: string | null;
  /** Non-secret settings; never the secret. */
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** The workspace's SMTP account as messaging needs it: settings and the decrypted password. */
export interface SendingIntegration {
  integration_id: string;
  config: SmtpConfig;
  password: string;
  updated_at: string;
}

export interface CreateWorkspaceInput {
  name: string;
}

export interface CreateUserInput {
  workspace_id: string;
  email: string;
  full_name: string;
  /** owner, admin or member; anything else is refused. */
  role: string;
  svc_uid?: string | null;
}

export interface CreateApiKeyInput {
  workspace_id: string;
  scopes: string[];
  /** `live` when absent. */
  env?: string | null;
  user_id?: string | null;
  name?: string | null;
}

export interface CreateIntegrationInput {
  workspace_id: string;
  type: string;
  name: string;
  /** Encrypted at rest; never returned by any operation but `readIntegrationSecret`. */
  secret: string;
  svc_uid?: string | null;
  /** Non-secret settings, checked for the type (smtp: host required). */
  config?: Record<string, unknown> | null;
}

export interface DirectoryService {
  createWorkspace(input: CreateWorkspaceInput): Promise<Workspace>;
  getWorkspace(id: string): Promise<Workspace>;
  createUser(input: CreateUserInput): Promise<User>;
  getUser(workspaceId: string, id: string): Promise<User>;
  /** GET /v1/users: the query as parsed by the users declaration; records as the API shows them. */
  listUsers(workspaceId: string, query: ListQuery): Promise<Page>;
  createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  /** Idempotent: revoking a revoked key answers the same. */
  revokeApiKey(id: string): Promise<{ id: string; revoked: true }>;
  /** Resolves a presented key; `unauthorized` for any key that is malformed, unknown or revoked. */
  authenticate(key: string): Promise<AuthenticatedKey>;
  createIntegration(input: CreateIntegrationInput): Promise<Integration>;
  getIntegration(workspaceId: string, id: string): Promise<Integration>;
  /** GET /v1/integrations: never a secret, in any record. */
  listIntegrations(workspaceId: string, query: ListQuery): Promise<Page>;
  /** For other services' internal use (messaging sending through an integration); never exposed by the API. */
  readIntegrationSecret(workspaceId: string, id: string): Promise<string>;
  /** The workspace's enabled `smtp` integration (the most recently changed one), for messaging. */
  getSendingIntegration(workspaceId: string): Promise<SendingIntegration | undefined>;
}

export interface DirectoryServiceDeps {
  store: DocumentStore;
  /** 32-byte AES-256-GCM key for integration secrets (SECRETS_KEY). */
  secretsKey: Buffer;
  /** HMAC key for API key hashes; changing it invalidates every issued key. */
  keyPepper?: string;
  /** Signs list cursors (CURSOR_SECRET, shared by every replica). */
  cursorSecret: string | Buffer;
  now?: () => Date;
}

/** `last_used_at` is a hint for humans: writing it on every request would turn reads into writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const LIMITS = {
  name: 200,
  email: 254,
  svcUid: 255,
  keyName: 100,
  secret: 65_536,
} as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const INTEGRATION_TYPE = /^[a-z][a-z0-9_]{0,63}$/;
const INVALID_KEY = 'invalid API key';

export function createDirectoryService(deps: DirectoryServiceDeps): DirectoryService {
  const { store, secretsKey, keyPepper = '', now = () => new Date() } = deps;
  if (secretsKey.length !== 32) throw new Error('secretsKey must be 32 bytes');

  const workspaces = store.collection<WorkspaceDoc>(COLLECTIONS.workspaces);
  const users = store.collection<UserDoc>(COLLECTIONS.users);
  const apiKeys = store.collection<ApiKeyDoc>(COLLECTIONS.apiKeys);
  const integrations = store.collection<IntegrationDoc>(COLLECTIONS.integrations);
  const cursors = createCursorCodec(deps.cursorSecret);
  const userList = documentLister({ spec: usersSpec, collection: users, cursors, toRecord: (doc) => ({ ...toUser(doc) }) });
  const integrationList = documentLister({ spec: integrationsSpec, collection: integrations, cursors, toRecord: (doc) => ({ ...toIntegration(doc) }) });

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

  const timestamp = (): string => now().toISOString();

  async function findWorkspace(id: string): Promise<WorkspaceDoc> {
    const doc = isUuid(id) ? await workspaces.findOne({ _id: id }) : null;
    if (!doc) throw CrmError.notFound('workspace');
    return doc;
  }

  async function findUser(workspaceId: string, id: string): Promise<UserDoc> {
    const doc = isUuid(id) && isUuid(workspaceId) ? await users.findOne({ _id: id, workspace_id: workspaceId }) : null;
    if (!doc) throw CrmError.notFound('user');
    return doc;
  }

  async function findIntegration(workspaceId: string, id: string): Promise<IntegrationDoc> {
    const doc =
      isUuid(id) && isUuid(workspaceId) ? await integrations.findOne({ _id: id, workspace_id: workspaceId }) : null;
    if (!doc) throw CrmError.notFound('integration');
    return doc;
  }

  return {
    async createWorkspace(input) {
      const issues: FieldIssue[] = [];
      const name = requiredText(issues, 'name', input?.name, LIMITS.name);
      throwIfAny(issues);
      await ready();
      const at = timestamp();
      const doc: WorkspaceDoc = { _id: newId(), name, created_at: at, updated_at: at };
      await workspaces.insertOne(doc);
      return toWorkspace(doc);
    },

    async getWorkspace(id) {
      requireIds({ id });
      await ready();
      return toWorkspace(await findWorkspace(id));
    },

    async createUser(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const email = requiredText(issues, 'email', input?.email, LIMITS.email);
      if (email && !EMAIL.test(email)) issues.push({ field: 'email', message: 'must be an email address' });
      const fullName = requiredText(issues, 'full_name', input?.full_name, LIMITS.name);
      const role = input?.role as UserRole;
      if (!USER_ROLES.includes(role)) issues.push({ field: 'role', message: `must be one of ${USER_ROLES.join(', ')}` });
      const svcUid = optionalText(issues, 'svc_uid', input?.svc_uid, LIMITS.svcUid);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);

      const at = timestamp();
      const doc: UserDoc = {
        _id: newId(),
        workspace_id: workspaceId,
        email,
        email_lower: email.toLowerCase(),
        full_name: fullName,
        role,
        is_active: true,
        svc_uid: svcUid,
        created_at: at,
        updated_at: at,
      };
      try {
        await users.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.userEmail) {
          throw new DirectoryError(DirectoryErrorCode.EmailTaken, 'a user with this email already exists in the workspace');
        }
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.userSvcUid) {
          throw new DirectoryError(DirectoryErrorCode.SvcUidTaken, 'another user in the workspace already has this svc_uid');
        }
        throw err;
      }
      return toUser(doc);
    },

    async getUser(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      return toUser(await findUser(workspaceId, id));
    },

    async listUsers(workspaceId, query) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      return userList.list(workspaceId, query);
    },

    async createApiKey(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      let scopes: Scope[] = [];
      try {
        scopes = parseScopes(input?.scopes).scopes;
      } catch (err) {
        if (!(err instanceof CrmError && err.code === 'validation_failed')) throw err;
        issues.push(...(err.details as FieldIssue[]));
      }
      const env = input?.env ?? DEFAULT_KEY_ENV;
      if (typeof env !== 'string' || !isValidKeyEnv(env)) {
        issues.push({ field: 'env', message: 'must be 1-16 lowercase letters or digits, starting with a letter' });
      }
      const userId = optionalText(issues, 'user_id', input?.user_id, 36);
      const name = optionalText(issues, 'name', input?.name, LIMITS.keyName);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);
      if (userId !== null) await findUser(workspaceId, userId);

      const key = generateKey(env);
      const at = timestamp();
      const doc: ApiKeyDoc = {
        _id: newId(),
        workspace_id: workspaceId,
        user_id: userId,
        name,
        env,
        scopes,
        hash: hashKey(key, keyPepper),
        prefix: keyDisplayPrefix(key),
        created_at: at,
        updated_at: at,
        revoked_at: null,
        last_used_at: null,
      };
      await apiKeys.insertOne(doc);
      return { id: doc._id, key, scopes, workspace_id: workspaceId, env, created_at: at };
    },

    async revokeApiKey(id) {
      requireIds({ id });
      await ready();
      const doc = isUuid(id) ? await apiKeys.findOne({ _id: id }) : null;
      if (!doc) throw CrmError.notFound('API key');
      if (doc.revoked_at === null) {
        const at = timestamp();
        // Conditional, so a concurrent revocation keeps the first revocation time.
        await apiKeys.updateOne({ _id: id, revoked_at: null }, { $set: { revoked_at: at, updated_at: at } });
      }
      return { id, revoked: true };
    },

    async authenticate(key) {
      // The format and checksum are checked before any lookup, so noise costs no database work.
      if (!isWellFormedKey(key)) throw new DirectoryError(DirectoryErrorCode.InvalidKey, INVALID_KEY);
      await ready();
      const doc = await apiKeys.findOne({ hash: hashKey(key, keyPepper) });
      if (!doc || doc.revoked_at !== null) throw new DirectoryError(DirectoryErrorCode.InvalidKey, INVALID_KEY);

      const current = now();
      const staleBefore = new Date(current.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
      if (doc.last_used_at === null || doc.last_used_at <= staleBefore) {
        // Conditional on the value still being stale, so concurrent requests write it once.
        await apiKeys.updateOne(
          { _id: doc._id, $or: [{ last_used_at: null }, { last_used_at: { $lte: staleBefore } }] },
          { $set: { last_used_at: current.toISOString() } },
        );
      }
      return { workspace_id: doc.workspace_id, key_id: doc._id, scopes: doc.scopes, user_id: doc.user_id };
    },

    async createIntegration(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const type = requiredText(issues, 'type', input?.type, 64);
      if (type && !INTEGRATION_TYPE.test(type)) {
        issues.push({ field: 'type', message: 'must be lowercase letters, digits and underscores, starting with a letter' });
      }
      const name = requiredText(issues, 'name', input?.name, LIMITS.name);
      // The secret is taken verbatim: trimming could change a password.
      const secret = input?.secret;
      if (typeof secret !== 'string' || secret.length === 0) {
        issues.push({ field: 'secret', message: 'is required' });
      } else if (secret.length > LIMITS.secret) {
        issues.push({ field: 'secret', message: `must be at most ${LIMITS.secret} characters` });
      }
      const svcUid = optionalText(issues, 'svc_uid', input?.svc_uid, LIMITS.svcUid);
      const config = integrationConfig(issues, type, input?.config);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);

      const id = newId();
      const at = timestamp();
      const doc: IntegrationDoc = {
        _id: id,
        workspace_id: workspaceId,
        type,
        name,
        status: 'connected',
        enabled: true,
        svc_uid: svcUid,
        secret: encryptSecret(secret as string, secretsKey, secretBinding(workspaceId, id)),
        config,
        created_at: at,
        updated_at: at,
      };
      try {
        await integrations.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.integrationSvcUid) {
          throw new DirectoryError(DirectoryErrorCode.SvcUidTaken, 'another integration in the workspace already has this svc_uid');
        }
        throw err;
      }
      return toIntegration(doc);
    },

    async getIntegration(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      return toIntegration(await findIntegration(workspaceId, id));
    },

    async listIntegrations(workspaceId, query) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      return integrationList.list(workspaceId, query);
    },

    async readIntegrationSecret(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      const doc = await findIntegration(workspaceId, id);
      return decryptSecret(doc.secret, secretsKey, secretBinding(workspaceId, id));
    },

    async getSendingIntegration(workspaceId) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      if (!isUuid(workspaceId)) return undefined;
      const [doc] = await integrations.find({ workspace_id: workspaceId, type: 'smtp', enabled: true }, { sort: { updated_at: -1 }, limit: 1 });
      if (!doc) return undefined;
      const config = parseSmtpConfig(doc.config ?? {});
      if (!config) return undefined;
      return {
        integration_id: doc._id,
        config,
        password: decryptSecret(doc.secret, secretsKey, secretBinding(workspaceId, doc._id)),
        updated_at: doc.updated_at,
      };
    },
  };
}

/** Ties a stored secret to its integration, so a ciphertext copied onto another record will not decrypt. */
const secretBinding = (workspaceId: string, integrationId: string): string =>
  `integration:${workspaceId}:${integrationId}`;

function toWorkspace(doc: WorkspaceDoc): Workspace {
  return { id: doc._id, name: doc.name, created_at: doc.created_at };
}

function toUser(doc: UserDoc): User {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    email: doc.email,
    full_name: doc.full_name,
    role: doc.role,
    is_active: doc.is_active,
    svc_uid: doc.svc_uid,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

function toIntegration(doc: IntegrationDoc): Integration {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    type: doc.type,
    name: doc.name,
    status: doc.status,
    enabled: doc.enabled,
    svc_uid: doc.svc_uid,
    config: doc.config ?? {},
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

function throwIfAny(issues: FieldIssue[]): void {
  if (issues.length > 0) throw CrmError.validation(issues);
}

/** A trimmed, non-empty string of at most `max` characters; '' after recording an issue. */
function requiredText(issues: FieldIssue[], field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push({ field, message: 'is required' });
    return '';
  }
  const text = value.trim();
  if (text.length > max) issues.push({ field, message: `must be at most ${max} characters` });
  return text;
}

/** Like `requiredText`, but absent (undefined or null) is allowed and gives null. */
function optionalText(issues: FieldIssue[], field: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push({ field, message: 'must be a non-empty string when given' });
    return null;
  }
  return requiredText(issues, field, value, max);
}

/**
 * An id given to an operation. It must be a string; one that is not a UUID cannot exist and is
 * reported as not found by the lookup, like any other unknown id.
 */
function requiredId(issues: FieldIssue[], field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    issues.push({ field, message: 'is required' });
    return '';
  }
  return value;
}

/** Ids of a lookup: strings, never query objects (`{ $ne: null }` would match any record). */
function requireIds(ids: Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  for (const [field, value] of Object.entries(ids)) requiredId(issues, field, value);
  throwIfAny(issues);
}
