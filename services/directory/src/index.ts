// Public surface of the directory service (workspaces, users, API keys, integrations).

// Domain operations: the service and its four aggregates.
export { createDirectoryService, type DirectoryService, type DirectoryServiceDeps } from './directory.service';
export type { CreateWorkspaceInput, Workspace } from './workspaces';
export { USER_ROLES, type CreateUserInput, type User } from './users';
export { LAST_USED_RESOLUTION_MS, type AuthenticatedKey, type CreateApiKeyInput, type CreatedApiKey } from './api-keys';
export type { CreateIntegrationInput, Integration, IntegrationCheckResult } from './integrations';
export { DEFAULT_CHECK_TIMEOUT_MS, createSmtpCheck, type CheckOutcome, type SmtpCheck, type SmtpCheckOptions } from './integration-check';
export { DIRECTORY_INDEXES, ensureDirectoryIndexes, type IntegrationStatus, type UserRole } from './directory.schema';
export { checkDirectoryAddresses } from './stored-addresses';

// API keys and secrets at rest.
export { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';
export { SecretDecryptionError, decryptSecret, encryptSecret, parseSecretsKey, type EncryptedSecret } from './secrets';

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
