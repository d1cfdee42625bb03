import { DirectoryError, DirectoryErrorCode } from '@crm/directory-contract';
import { CrmError, type FieldIssue, type Scope, isUuid, newId, parseScopes } from '@crm/kit';
import { type AggregateDeps, optionalText, requireIds, requiredId, throwIfAny } from './aggregate-support';
import { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';
import type { ApiKeyDoc } from './directory.schema';
import type { DocumentCollection } from './store/document-store';
import type { FindUser } from './users';
import type { FindWorkspace } from './workspaces';

/**
 * API keys as records: issuing, revoking and authenticating them. The key itself (its format,
 * checksum, hash and display prefix) is `api-key.ts`, which stores nothing.
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

export interface ApiKeys {
  createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  /** Idempotent: revoking a revoked key answers the same. */
  revokeApiKey(id: string): Promise<{ id: string; revoked: true }>;
  /** Resolves a presented key; `unauthorized` for any key that is malformed, unknown or revoked. */
  authenticate(key: string): Promise<AuthenticatedKey>;
}

export interface ApiKeysDeps extends AggregateDeps {
  apiKeys: DocumentCollection<ApiKeyDoc>;
  /** HMAC key for API key hashes; changing it invalidates every issued key. */
  keyPepper: string;
  now: () => Date;
  findWorkspace: FindWorkspace;
  findUser: FindUser;
}

/** `last_used_at` is a hint for humans: writing it on every request would turn reads into writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const KEY_NAME_MAX = 100;
const INVALID_KEY = 'invalid API key';

export function createApiKeys(deps: ApiKeysDeps): ApiKeys {
  const { apiKeys, keyPepper, now, findWorkspace, findUser, ready, timestamp } = deps;

  return {
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
      const name = optionalText(issues, 'name', input?.name, KEY_NAME_MAX);
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
  };
}
