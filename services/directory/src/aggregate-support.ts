import { CrmError, type FieldIssue } from '@crm/kit';

/**
 * What the directory's aggregates (`workspaces.ts`, `users.ts`, `api-keys.ts`, `integrations.ts`,
 * `credentials.ts`, `sessions.ts`) share: the dependencies `directory.service.ts` gives each of
 * them, and the checks of a request's fields. Inputs are checked at run time as well as by type,
 * because they arrive from the wire.
 */

export interface AggregateDeps {
  /**
   * Resolves once the directory's indexes exist. Every operation awaits it before it touches the
   * store, because uniqueness (emails, svc_uid, key hashes) rests on the indexes.
   */
  ready: () => Promise<void>;
  /** The current time as it is stored. */
  timestamp: () => string;
}

/**
 * Ends one kind of a user's access (their sessions, their set-password links, their keys), for a
 * deactivation; idempotent. Each aggregate that gives access provides its own.
 */
export type EndUserAccess = (workspaceId: string, userId: string) => Promise<void>;

/** Limits of fields that several records have; a record's own limits are beside it. */
export const LIMITS = {
  name: 200,
  svcUid: 255,
} as const;

export function throwIfAny(issues: FieldIssue[]): void {
  if (issues.length > 0) throw CrmError.validation(issues);
}

/** A trimmed, non-empty string of at most `max` characters; '' after recording an issue. */
export function requiredText(issues: FieldIssue[], field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') {
    issues.push({ field, message: 'is required' });
    return '';
  }
  const text = value.trim();
  if (text.length > max) issues.push({ field, message: `must be at most ${max} characters` });
  return text;
}

/** Like `requiredText`, but absent (undefined or null) is allowed and gives null. */
export function optionalText(issues: FieldIssue[], field: string, value: unknown, max: number): string | null {
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
export function requiredId(issues: FieldIssue[], field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    issues.push({ field, message: 'is required' });
    return '';
  }
  return value;
}

/** Ids of a lookup: strings, never query objects (`{ $ne: null }` would match any record). */
export function requireIds(ids: Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  for (const [field, value] of Object.entries(ids)) requiredId(issues, field, value);
  throwIfAny(issues);
}

/**
 * For a lookup's `.catch`: a record that is gone (`not_found`) gives undefined, so what rests on it
 * ends (a session, a link); any other failure, such as the store not answering, is the caller's.
 */
export function unlessGone(error: unknown): undefined {
  if (error instanceof CrmError && error.code === 'not_found') return undefined;
  throw error;
}
