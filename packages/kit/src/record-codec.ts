import { recordCodec } from './compiled-codec';
import { CrmError, type FieldIssue } from './errors';
import { type FieldValue, parseBodyValue } from './field-values';
import { JSON_LIMITS, codePointLength, findJsonProblem, printableKey, textProblem } from './json-limits';
import { type ResourceSpec, declaredField, isNullable } from './resource';

/**
 * Body keys that are never custom fields even though no resource declares them: ignored in a body,
 * like a declared read-only field, whether or not the resource keeps custom fields.
 */
export const RESERVED_BODY_KEYS: ReadonlySet<string> = new Set(['workspace_id', 'custom', 'custom_fields', 'object']);
const RESERVED = RESERVED_BODY_KEYS;
const { maxCustomFields: MAX_CUSTOM_FIELDS, maxCustomKeyLength: MAX_CUSTOM_KEY_LENGTH, customMaxDepth, customMaxBytes } = JSON_LIMITS;

export interface WriteValues {
  /** Declared, client-writable fields present in the body (null clears). */
  fields: Record<string, FieldValue>;
  /** Custom properties to set. */
  customSet: Record<string, unknown>;
  /** Custom properties the body cleared with null (update only). */
  customUnset: string[];
}

/**
 * Validates a create or update body against the declaration. Read-only and reserved keys are
 * ignored (gateway/README.md, "Records" and "Custom fields"); every problem is collected so a 422
 * lists them all.
 */
export function validateWrite(spec: ResourceSpec, body: unknown, mode: 'create' | 'update'): WriteValues {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw CrmError.validation([{ field: '(body)', message: 'must be a JSON object' }]);
  }
  const issues: FieldIssue[] = [];
  const out: WriteValues = { fields: {}, customSet: {}, customUnset: [] };
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const field = declaredField(spec, key);
    if (field) {
      if (field.readOnly) continue;
      if (value === null) {
        if (!isNullable(field) || field.required) issues.push({ field: key, message: 'must not be null' });
        else out.fields[key] = null;
        continue;
      }
      const parsed = parseBodyValue(field, value);
      if (parsed.ok) out.fields[key] = parsed.value;
      else issues.push({ field: key, message: parsed.message });
    } else if (RESERVED.has(key)) {
      continue;
    } else if (!spec.customFields) {
      issues.push({ field: key, message: 'is not a field of this resource' });
    } else if (key.length === 0 || codePointLength(key) > MAX_CUSTOM_KEY_LENGTH) {
      issues.push({ field: [...key].slice(0, MAX_CUSTOM_KEY_LENGTH).join(''), message: `custom field names must be 1 to ${MAX_CUSTOM_KEY_LENGTH} characters` });
    } else if (textProblem(key)) {
      issues.push({ field: printableKey(key), message: `property name ${textProblem(key)}` });
    } else if (value === null) {
      if (mode === 'update') out.customUnset.push(key);
    } else {
      // What the gateway refuses for the whole body, a service refuses for what it stores.
      const problem = findJsonProblem(value, customMaxDepth, printableKey(key));
      if (problem) issues.push(problem);
      else out.customSet[key] = value;
    }
  }
  if (Object.keys(out.customSet).length > MAX_CUSTOM_FIELDS) {
    issues.push({ field: '(body)', message: `at most ${MAX_CUSTOM_FIELDS} custom fields per request` });
  } else if (Buffer.byteLength(JSON.stringify(out.customSet)) > customMaxBytes) {
    issues.push({ field: '(body)', message: `custom fields must serialise to at most ${customMaxBytes} bytes of JSON per request` });
  }
  if (mode === 'create') {
    for (const [key, field] of Object.entries(spec.fields)) {
      // A field given with a bad value or null already has its issue: one issue per field.
      if (field.required && !field.readOnly && !Object.hasOwn(body as object, key)) {
        issues.push({ field: key, message: 'is required' });
      }
    }
  }
  if (issues.length) throw CrmError.validation(issues);
  return out;
}

/** At least one of the resource's `requireOneOf` fields holds a value in this (merged) record. */
export function checkRequireOneOf(spec: ResourceSpec, record: Record<string, unknown>): void {
  const names = spec.requireOneOf;
  if (!names?.length) return;
  if (names.some((name) => record[name] !== null && record[name] !== undefined && record[name] !== '')) return;
  throw CrmError.validation(names.map((field) => ({ field, message: `at least one of ${names.join(', ')} is required` })));
}

/** Columns a store selects: every declared field, plus the custom properties. */
export function selectColumns(spec: ResourceSpec): string {
  return [...Object.keys(spec.fields), ...(spec.customFields ? ['custom'] : [])].join(', ');
}

export type ApiRecord = Record<string, unknown>;

/** A row as the API returns it: declared fields in order (date-times in UTC with ms), then custom ones. */
export function rowToRecord(spec: ResourceSpec, row: Record<string, unknown>): ApiRecord {
  return recordCodec(spec).rowToRecord(row);
}
