import { ActivitiesError, ActivitiesErrorCode } from '@crm/activities-contract';
import type { ApiRecord, PendingWrite } from '@crm/kit';

/** A required text field that a write sets must say something: `"  "` is no title. */
export function requireNotBlank(write: PendingWrite, field: string): void {
  const value = write.fields[field];
  if (typeof value === 'string' && value.trim() === '') {
    throw new ActivitiesError(ActivitiesErrorCode.BlankText, field, 'must not be blank');
  }
}

/** Milliseconds since the epoch of an API date-time (ISO string), or undefined when unset. */
export function timeOf(value: unknown): number | undefined {
  return typeof value === 'string' ? Date.parse(value) : undefined;
}

/**
 * The optional facts of an event, taken from a record: absent when null, as proto3 JSON leaves
 * out unset optional fields (see proto/crm/events/v1).
 */
export function present<K extends string>(record: ApiRecord, ...keys: K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = record[key];
    if (value !== null && value !== undefined) out[key] = String(value);
  }
  return out;
}
