/**
 * The directory context's contract: what the gateway and the directory service agree on (its own
 * error codes, and the users and integrations declarations with their routes).
 */
export { DIRECTORY_ERRORS, DirectoryError, DirectoryErrorCode } from './directory.errors';
export { directoryApi } from './directory.api';
export { userReference } from './directory.references';
export { USER_ROLE_VALUES, users } from './users.resource';
export { INTEGRATION_STATUS_VALUES, INTEGRATION_TYPES, integrations } from './integrations.resource';
