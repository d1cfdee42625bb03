import type { INTEGRATION_STATUS_VALUES } from '@crm/directory-contract';
import type { Scope } from '@crm/kit';
import type { EncryptedSecret } from '@crm/kit';
import type { DocumentStore, IndexSpec } from './store/document-store';

/**
 * What the directory stores, collection by collection, and the indexes that keep it consistent.
 * These shapes never leave the service: each aggregate (`workspaces.ts`, `users.ts`, `api-keys.ts`,
 * `integrations.ts`, `credentials.ts`, `sessions.ts`) maps its own to records without `_id`, hashes
 * or secrets.
 */

export const COLLECTIONS = {
  workspaces: 'workspaces',
  users: 'users',
  apiKeys: 'api_keys',
  integrations: 'integrations',
  credentials: 'credentials',
  passwordTokens: 'password_tokens',
  sessions: 'sessions',
} as const;

export type UserRole = 'owner' | 'admin' | 'member';
export type IntegrationStatus = (typeof INTEGRATION_STATUS_VALUES)[number];

export interface WorkspaceDoc {
  _id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface UserDoc {
  _id: string;
  workspace_id: string;
  email: string;
  /** Uniqueness of emails is case-insensitive; the address itself is kept as given. */
  email_lower: string;
  full_name: string;
  role: UserRole;
  is_active: boolean;
  svc_uid: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyDoc {
  _id: string;
  workspace_id: string;
  user_id: string | null;
  name: string | null;
  env: string;
  scopes: Scope[];
  /** `hashKey(key, pepper)`; the key itself is never stored. */
  hash: string;
  /** Non-secret beginning of the key, to tell keys apart in a settings page. */
  prefix: string;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  /** Updated at most once a minute by `authenticate`. */
  last_used_at: string | null;
}

export interface IntegrationDoc {
  _id: string;
  workspace_id: string;
  type: string;
  name: string;
  status: IntegrationStatus;
  /** Why the last check failed; null unless `status` is `error`. Absent on older documents. */
  status_reason?: string | null;
  /** When the last check of its server ended: the next is due an interval later. Absent: never. */
  status_checked_at?: string | null;
  /**
   * A check under way: taking it is how one replica claims the check, and only its holder records
   * the outcome. It lasts the check's timeout and a margin, so a check whose process stopped is
   * taken again once it has lapsed. Absent or null: none.
   */
  check_lease?: { id: string; until: string } | null;
  enabled: boolean;
  svc_uid: string | null;
  secret: EncryptedSecret;
  /** Non-secret settings, checked per type (integration-config.ts); absent on older documents. */
  config?: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** A user's password. One per user: `_id` is the user's id. */
export interface CredentialDoc {
  _id: string;
  workspace_id: string;
  /** argon2id, in its PHC string form (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`). */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

/** A one-time link to set a user's password; the token itself is never stored. */
export interface PasswordTokenDoc {
  /** base64url SHA-256 of the token: the token has 256 random bits, so a fast hash is enough. */
  _id: string;
  workspace_id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  /** Set once, by the conditional update that uses the token up; null while it is usable. */
  used_at: string | null;
}

/** A signed-in browser; the session id itself is never stored. */
export interface SessionDoc {
  /** base64url SHA-256 of the session id (256 random bits). */
  _id: string;
  workspace_id: string;
  user_id: string;
  created_at: string;
  /** Moved forward at most once a minute while the session is used; 12 h without use ends it. */
  last_seen_at: string;
  /** 7 days after sign-in, whatever happens. */
  expires_at: string;
}

/** Index names, also used to turn a `DuplicateKeyError` into the right conflict message. */
export const INDEX_NAMES = {
  userEmail: 'users_workspace_email_unique',
  userSvcUid: 'users_workspace_svc_uid_unique',
  apiKeyHash: 'api_keys_hash_unique',
  integrationSvcUid: 'integrations_workspace_svc_uid_unique',
} as const;

/** Non-unique: each list's sort key (and filter in the default order) is a seek led by workspace_id. */
const LIST_INDEXES: readonly IndexSpec[] = [
  { collection: COLLECTIONS.users, name: 'users_list_created', keys: { workspace_id: 1, created_at: 1, _id: 1 } },
  { collection: COLLECTIONS.users, name: 'users_list_full_name', keys: { workspace_id: 1, full_name: 1, _id: 1 } },
  { collection: COLLECTIONS.users, name: 'users_list_role', keys: { workspace_id: 1, role: 1, created_at: 1, _id: 1 } },
  { collection: COLLECTIONS.integrations, name: 'integrations_list_created', keys: { workspace_id: 1, created_at: 1, _id: 1 } },
  { collection: COLLECTIONS.integrations, name: 'integrations_list_updated', keys: { workspace_id: 1, updated_at: 1, _id: 1 } },
  { collection: COLLECTIONS.integrations, name: 'integrations_list_type', keys: { workspace_id: 1, type: 1, created_at: 1, _id: 1 } },
];

/**
 * Sign-in and what ends a user's access. Signing in finds a user by email across workspaces (the
 * email decides the workspace, as a key's hash does); everything a user has is then found, ended or
 * revoked through an index led by the workspace and the user.
 */
const ACCESS_INDEXES: readonly IndexSpec[] = [
  { collection: COLLECTIONS.users, name: 'users_sign_in_email', keys: { email_lower: 1, created_at: 1 } },
  { collection: COLLECTIONS.sessions, name: 'sessions_by_user', keys: { workspace_id: 1, user_id: 1 } },
  { collection: COLLECTIONS.passwordTokens, name: 'password_tokens_by_user', keys: { workspace_id: 1, user_id: 1 } },
  { collection: COLLECTIONS.apiKeys, name: 'api_keys_by_user', keys: { workspace_id: 1, user_id: 1, created_at: 1 } },
];

/** The periodic check finds what is due across workspaces (integrations.ts `checkDueIntegrations`). */
const CHECK_INDEXES: readonly IndexSpec[] = [
  { collection: COLLECTIONS.integrations, name: 'integrations_check_due', keys: { status_checked_at: 1 } },
];

// `svc_uid` is unique per workspace only when set: MongoDB partial indexes cannot say `$ne: null`,
// so "is a string" selects the documents that carry one.
const SVC_UID_SET = { svc_uid: { $type: 'string' } };

export const DIRECTORY_INDEXES: readonly IndexSpec[] = [
  { collection: COLLECTIONS.users, name: INDEX_NAMES.userEmail, keys: { workspace_id: 1, email_lower: 1 }, unique: true },
  {
    collection: COLLECTIONS.users,
    name: INDEX_NAMES.userSvcUid,
    keys: { workspace_id: 1, svc_uid: 1 },
    unique: true,
    partialFilterExpression: SVC_UID_SET,
  },
  // Every request's authentication looks a key up by its hash.
  { collection: COLLECTIONS.apiKeys, name: INDEX_NAMES.apiKeyHash, keys: { hash: 1 }, unique: true },
  {
    collection: COLLECTIONS.integrations,
    name: INDEX_NAMES.integrationSvcUid,
    keys: { workspace_id: 1, svc_uid: 1 },
    unique: true,
    partialFilterExpression: SVC_UID_SET,
  },
  ...LIST_INDEXES,
  ...CHECK_INDEXES,
  ...ACCESS_INDEXES,
];

/** The directory's schema migration: creates its indexes; safe to run on every start. */
export function ensureDirectoryIndexes(store: DocumentStore): Promise<void> {
  return store.ensureIndexes(DIRECTORY_INDEXES);
}
