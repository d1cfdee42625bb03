// Public surface of the directory service (workspaces, users, API keys, integrations).

// Domain operations.
export {
  LAST_USED_RESOLUTION_MS,
  USER_ROLES,
  createDirectoryService,
  type AuthenticatedKey,
  type CreateApiKeyInput,
  type CreateIntegrationInput,
  type CreateUserInput,
  type CreateWorkspaceInput,
  type CreatedApiKey,
  type DirectoryService,
  type DirectoryServiceDeps,
  type Integration,
  type IntegrationStatus,
  type User,
  type UserRole,
  type Workspace,
} from './directory.service';
export { DIRECTORY_INDEXES, ensureDirectoryIndexes } from './directory.schema';

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
