// Public surface of the directory service (workspaces, users, API keys, integrations, sign-in).

// Domain operations: the service and its aggregates.
export { DEFAULT_PUBLIC_URL, createDirectoryService, type DirectoryService, type DirectoryServiceDeps, type SessionApiKeys } from './directory.service';
export type { CreateWorkspaceInput, Workspace } from './workspaces';
export { USER_ROLES, type CreateUserInput, type User } from './users';
export {
  LAST_USED_RESOLUTION_MS,
  SESSION_KEY_ENVS,
  type ApiKeyListing,
  type AuthenticatedKey,
  type CreateApiKeyInput,
  type CreatedApiKey,
} from './api-keys';
export { PASSWORD_TOKEN_LIFETIME_MS, type IssuedPasswordToken, type PasswordTokenInfo, type SetPasswordInput } from './credentials';
export { SESSION_IDLE_MS, SESSION_LIFETIME_MS, type Session, type SignInInput } from './sessions';
export { PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS, argon2Hasher, passwordProblem, type Argon2Parameters, type PasswordHasher } from './password';
export { createPasswordMailer, type PasswordMailer, type PasswordMailerOptions } from './password-mail';
export type { CreateIntegrationInput, Integration, IntegrationCheckResult } from './integrations';
export { DEFAULT_CHECK_TIMEOUT_MS, createSmtpCheck, type CheckOutcome, type SmtpCheck, type SmtpCheckOptions } from './integration-check';
export { DIRECTORY_INDEXES, ensureDirectoryIndexes, type IntegrationStatus, type UserRole } from './directory.schema';
export { checkDirectoryAddresses } from './stored-addresses';

// API keys and secrets at rest.
export { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';
// Moved to kit (secrets.ts), shared with webhooks; re-exported here for directory's callers.
export { SecretDecryptionError, decryptSecret, encryptSecret, parseSecretsKey, type EncryptedSecret } from '@crm/kit';

// Document store: the narrow interface and its two implementations.
export {
  DuplicateKeyError,
  type DocumentCollection,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type SortSpec,
  type UpdateSpec,
} from './store/document-store';
export { createEmbeddedStore, type EmbeddedStoreOptions } from './store/embedded-store';
export { createMongoStore, type MongoStoreOptions } from './store/mongo-store';

export { directoryGrpcBinding } from './directory.grpc';
export { startDirectory, type DirectoryRuntime, type RunningDirectory } from './main';
export { directorySettings, type DirectorySettings } from './settings';
