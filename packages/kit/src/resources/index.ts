/**
 * Resource declarations: part of the API contract, shared by the gateway (validation, OpenAPI) and
 * the owning service (SQL, rules). Each is owned by one bounded context, named in its file.
 */
export { contacts } from './contacts.resource';
