import { EMAIL_LIMITS, emailAddressProblem } from './email-address';
import { isUuid } from './ids';
import { codePointLength, textProblem } from './json-limits';
import type { FieldSpec } from './resource';
import { parseDateTime } from './time';

/** A field value as stored and compared: JSON scalars, with date-times as Date. */
/** A JSON structure, as a `json` field holds it. */
export type JsonStructure = readonly unknown[] | { readonly [key: string]: unknown };

export type FieldValue = string | number | boolean | Date | null | JsonStructure;

export type Parsed = { ok: true; value: FieldValue } | { ok: false; message: string };

const INT32 = { min: -2147483648, max: 2147483647 };

const fail = (message: string): Parsed => ({ ok: false, message });

/** Lengths count code points, as JSON Schema's maxLength does: an emoji is one character. */
function checkString(field: FieldSpec, value: string, fallbackMax: number): Parsed {
  const problem = textProblem(value);
  if (problem) return fail(problem);
  const max = field.maxLength ?? fallbackMax;
  if (value.length > max && codePointLength(value) > max) return fail(`must be at most ${max} characters`);
  return { ok: true, value };
}

/** Validates a JSON body value against its field. */
export function parseBodyValue(field: FieldSpec, value: unknown): Parsed {
  switch (field.type) {
    case 'uuid':
      return typeof value === 'string' && isUuid(value) ? { ok: true, value: value.toLowerCase() } : fail('must be a UUID');
    case 'string':
    case 'text':
      if (typeof value !== 'string') return fail('must be a string');
      return checkString(field, value, field.type === 'text' ? 10_000 : 255);
    case 'email': {
      if (typeof value !== 'string') return fail('must be an email address');
      const problem = emailAddressProblem(value);
      return problem ? fail(problem) : checkString(field, value, EMAIL_LIMITS.address);
    }
    case 'url':
      if (typeof value !== 'string' || !/^https?:\/\/[^\s]+$/i.test(value) || textProblem(value)) return fail('must be an http(s) URL');
      return checkString(field, value, 2048);
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('must be an integer');
      const min = field.min ?? INT32.min;
      const max = field.max ?? INT32.max;
      if (value < min || value > max) return fail(`must be between ${min} and ${max}`);
      return { ok: true, value };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : fail('must be true or false');
    case 'datetime': {
      const date = typeof value === 'string' ? parseDateTime(value) : undefined;
      return date ? { ok: true, value: date } : fail('must be an RFC 3339 date-time with offset, between years 0001 and 9999 in UTC');
    }
    case 'json':
      // Any JSON: the owning service validates its structure with the rest of the write.
      return value !== null && typeof value === 'object' ? { ok: true, value: value as JsonStructure } : fail('must be a JSON object or array');
    case 'enum':
      return typeof value === 'string' && field.values!.includes(value)
        ? { ok: true, value }
        : fail(`must be one of ${field.values!.join(', ')}`);
  }
}

/** Validates a query-string value against its field: the same types, written as text. */
export function parseQueryValue(field: FieldSpec, raw: string): Parsed {
  if (raw === '') return fail('must not be empty');
  switch (field.type) {
    case 'integer':
      return /^-?\d{1,10}$/.test(raw) ? parseBodyValue(field, Number(raw)) : fail('must be an integer');
    case 'boolean':
      return raw === 'true' || raw === 'false' ? { ok: true, value: raw === 'true' } : fail('must be true or false');
    case 'email':
    case 'url':
      // Filtering by an exact stored value: any text is a legal question.
      return checkString(field, raw, 2048);
    default:
      return parseBodyValue(field, raw);
  }
}

/** A field's value as a statement parameter: date-times as ISO text, JSON serialised. */
export function sqlParam(field: FieldSpec, value: FieldValue): unknown {
  if (value instanceof Date) return value.toISOString();
  if (field.type === 'json' && value !== null) return JSON.stringify(value);
  return value;
}

/** The SQL type a parameter of this field is cast to, so Postgres never has to guess. */
export function sqlTypeOf(field: FieldSpec): string {
  switch (field.type) {
    case 'uuid':
      return 'uuid';
    case 'integer':
      return 'int';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'timestamptz';
    case 'json':
      return 'jsonb';
    default:
      return 'text';
  }
}
