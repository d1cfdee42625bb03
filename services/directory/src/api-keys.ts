import { DirectoryError, DirectoryErrorCode } from '@crm/directory-contract';
import { CrmError, type FieldIssue, type Scope, isUuid, newId, parseScopes } from '@crm/kit';
import { type AggregateDeps, type EndUserAccess, optionalText, requireIds, requiredId, requiredText, throwIfAny } from './aggregate-support';
import { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';
import type { ApiKeyDoc, UserDoc, UserRole } from './directory.schema';
import type { DocumentCollection } from './store/document-store';
import type { FindUser, UserNames } from './users';
import type { FindWorkspace } from './workspaces';

/**
 * API keys as records: issuing, revoking and authenticating them, from the command line (any key
 * of a workspace) or for a signed-in user of the settings page (`…For`: the keys that user may
 * see). The key itself (its format, checksum, hash and display prefix) is `api-key.ts`, which
 * stores nothing. A key that acts for a user stops working when the user is deactivated.
 */

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

export interface CreateApiKeyInput {
  workspace_id: string;
  scopes: string[];
  /** `live` when absent. */
  env?: string | null;
  user_id?: string | null;
  name?: string | null;
}

/** A key as the settings page lists it: never the key, nor its hash. */
export interface ApiKeyListing {
  id: string;
  workspace_id: string;
  name: string | null;
  /** `svc_live_AbCd`: the key's non-secret beginning. */
  prefix: string;
  scopes: Scope[];
  env: string;
  /** The user it acts for, who created it in the settings page; null for a command-line key. */
  user_id: string | null;
  /** That user's full name; empty for a key with no user. */
  created_by_name: string;
  created_at: string;
  /** To the minute; null when never used. */
  last_used_at: string | null;
}

/** A key as the operator lists it: active or revoked, never the key nor its hash. */
export interface AdminApiKeyListing extends ApiKeyListing {
  /** Null for an active key. */
  revoked_at: string | null;
}

/** The signed-in user a settings-page operation is for. */
export type KeyViewer = Pick<UserDoc, '_id' | 'workspace_id' | 'role'>;

export interface SessionKeyInput {
  name: string;
  /** `live` or `test`. */
  env: string;
  scopes: string[];
}

export interface ApiKeys {
  createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  /** Idempotent: revoking a revoked key answers the same. */
  revokeApiKey(id: string): Promise<{ id: string; revoked: true }>;
  /** Resolves a presented key; `unauthorized` for any key that is malformed, unknown or revoked. */
  authenticate(key: string): Promise<AuthenticatedKey>;
  /** Every key of a workspace, active and revoked, newest first (`crm admin key list`). */
  listApiKeys(workspaceId: string): Promise<AdminApiKeyListing[]>;
}

/** What the settings page does with keys, for the user a session resolved to (`directory.service.ts`). */
export interface ViewerApiKeys {
  /** Active keys, newest first: every key of the workspace for owners and admins, their own for members. */
  listApiKeysFor(viewer: KeyViewer): Promise<ApiKeyListing[]>;
  /** A key acting for the viewer; a name is required and the environment is `live` or `test`. */
  createApiKeyFor(viewer: KeyViewer, input: SessionKeyInput): Promise<CreatedApiKey>;
  /** `not_found` for a key the viewer may not see (another user's as a member, another workspace's). */
  revokeApiKeyFor(viewer: KeyViewer, id: string): Promise<{ id: string; revoked: true }>;
}

export interface ApiKeysDeps extends AggregateDeps {
  apiKeys: DocumentCollection<ApiKeyDoc>;
  /** HMAC key for API key hashes; changing it invalidates every issued key. */
  keyPepper: string;
  now: () => Date;
  findWorkspace: FindWorkspace;
  findUser: FindUser;
  userNames: UserNames;
}

/** `last_used_at` is a hint for humans: writing it on every request would turn reads into writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** The environments a key made in the settings page may have (the command line takes any). */
export const SESSION_KEY_ENVS: readonly string[] = ['live', 'test'];
/** Roles that see and revoke every key of their workspace; the others see their own. */
const KEY_MANAGERS: readonly UserRole[] = ['owner', 'admin'];

const KEY_NAME_MAX = 100;
const INVALID_KEY = 'invalid API key';

/** Revokes every key that acts for a user (a deactivation). */
export function userKeyRevoker(apiKeys: DocumentCollection<ApiKeyDoc>, timestamp: () => string): EndUserAccess {
  return async (workspaceId, userId) => {
    const at = timestamp();
    await apiKeys.updateMany({ workspace_id: workspaceId, user_id: userId, revoked_at: null }, { $set: { revoked_at: at, updated_at: at } });
  };
}

/** `last_used_at` as the settings page shows it: recorded to the millisecond, kept to the minute. */
const toMinute = (at: string | null): string | null => (at === null ? null : `${at.slice(0, 16)}:00.000Z`);

/** Scopes as parsed by kit's `parseScopes`, their issues added to `issues`. */
function scopesOf(issues: FieldIssue[], value: unknown): Scope[] {
  try {
    return parseScopes(value as unknown[]).scopes;
  } catch (err) {
    if (!(err instanceof CrmError && err.code === 'validation_failed')) throw err;
    issues.push(...(err.details as FieldIssue[]));
    return [];
  }
}

export function createApiKeys(deps: ApiKeysDeps): ApiKeys & ViewerApiKeys {
  const { apiKeys, keyPepper, now, findWorkspace, findUser, userNames, ready, timestamp } = deps;

  /**
   * Stores a new key. A key for a user is checked again once stored: if a deactivation ran in
   * between, its revocation may not have seen this key, so the key is revoked here instead.
   */
  async function issue(fields: Pick<ApiKeyDoc, 'workspace_id' | 'user_id' | 'name' | 'env' | 'scopes'>): Promise<CreatedApiKey> {
    const key = generateKey(fields.env);
    const at = timestamp();
    const doc: ApiKeyDoc = {
      _id: newId(),
      ...fields,
      hash: hashKey(key, keyPepper),
      prefix: keyDisplayPrefix(key),
      created_at: at,
      updated_at: at,
      revoked_at: null,
      last_used_at: null,
    };
    await apiKeys.insertOne(doc);
    if (fields.user_id !== null && !(await findUser(fields.workspace_id, fields.user_id)).is_active) {
      await apiKeys.updateOne({ _id: doc._id, workspace_id: doc.workspace_id, revoked_at: null }, { $set: { revoked_at: at, updated_at: at } });
      throwIfAny([{ field: 'user_id', message: 'names a deactivated user' }]);
    }
    return { id: doc._id, key, scopes: doc.scopes, workspace_id: doc.workspace_id, env: doc.env, created_at: at };
  }

  const mayManageAll = (viewer: KeyViewer) => KEY_MANAGERS.includes(viewer.role);

  /** Keys as they are listed: the fields a person reads, never the hash. */
  async function listings(workspaceId: string, docs: readonly ApiKeyDoc[]): Promise<ApiKeyListing[]> {
    const names = await userNames(
      workspaceId,
      docs.flatMap((doc) => (doc.user_id === null ? [] : [doc.user_id])),
    );
    return docs.map((doc) => ({
      id: doc._id,
      workspace_id: doc.workspace_id,
      name: doc.name,
      prefix: doc.prefix,
      scopes: doc.scopes,
      env: doc.env,
      user_id: doc.user_id,
      created_by_name: (doc.user_id !== null && names.get(doc.user_id)) || '',
      created_at: doc.created_at,
      last_used_at: toMinute(doc.last_used_at),
    }));
  }

  return {
    async createApiKey(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const scopes = scopesOf(issues, input?.scopes);
      const env = input?.env ?? DEFAULT_KEY_ENV;
      if (typeof env !== 'string' || !isValidKeyEnv(env)) {
        issues.push({ field: 'env', message: 'must be 1-16 lowercase letters or digits, starting with a letter' });
      }
      const userId = optionalText(issues, 'user_id', input?.user_id, 36);
      const name = optionalText(issues, 'name', input?.name, KEY_NAME_MAX);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);
      if (userId !== null && !(await findUser(workspaceId, userId)).is_active) {
        throwIfAny([{ field: 'user_id', message: 'names a deactivated user' }]);
      }
      return issue({ workspace_id: workspaceId, user_id: userId, name, env, scopes });
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

    async listApiKeys(workspaceId) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      await findWorkspace(workspaceId);
      const docs = await apiKeys.find({ workspace_id: workspaceId }, { sort: { created_at: -1, _id: -1 } });
      const listed = await listings(workspaceId, docs);
      return listed.map((listing, i) => ({ ...listing, revoked_at: docs[i]!.revoked_at }));
    },

    async listApiKeysFor(viewer) {
      await ready();
      const docs = await apiKeys.find(
        { workspace_id: viewer.workspace_id, revoked_at: null, ...(mayManageAll(viewer) ? {} : { user_id: viewer._id }) },
        { sort: { created_at: -1, _id: -1 } },
      );
      return listings(viewer.workspace_id, docs);
    },

    async createApiKeyFor(viewer, input) {
      const issues: FieldIssue[] = [];
      const name = requiredText(issues, 'name', input?.name, KEY_NAME_MAX);
      const env = input?.env;
      if (typeof env !== 'string' || !SESSION_KEY_ENVS.includes(env)) issues.push({ field: 'env', message: `must be one of ${SESSION_KEY_ENVS.join(', ')}` });
      const scopes = scopesOf(issues, input?.scopes);
      throwIfAny(issues);
      await ready();
      return issue({ workspace_id: viewer.workspace_id, user_id: viewer._id, name, env: env as string, scopes });
    },

    async revokeApiKeyFor(viewer, id) {
      requireIds({ id });
      await ready();
      const doc = isUuid(id) ? await apiKeys.findOne({ _id: id, workspace_id: viewer.workspace_id }) : null;
      if (!doc || (!mayManageAll(viewer) && doc.user_id !== viewer._id)) throw CrmError.notFound('API key');
      if (doc.revoked_at === null) {
        const at = timestamp();
        await apiKeys.updateOne({ _id: id, workspace_id: doc.workspace_id, revoked_at: null }, { $set: { revoked_at: at, updated_at: at } });
      }
      return { id, revoked: true };
    },
  };
}
