/**
 * The directory context's contract: what the gateway and the directory service agree on (its own
 * error codes today; the users and integrations declarations join it with their routes).
 */
export { DIRECTORY_ERRORS, DirectoryError, DirectoryErrorCode } from './directory.errors';
export { directoryApi } from './directory.api';
export { userReference } from './directory.references';
