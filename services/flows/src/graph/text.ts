/**
 * Small shared checks for the graph and schedule parsers. Each returns an error message or
 * undefined, so callers can attach the field path and node key they know about.
 */

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own-property lookup, so names such as `constructor` or `__proto__` never reach the prototype. */
export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

// Postgres text and jsonb cannot hold U+0000, and a lone surrogate cannot be encoded as UTF-8:
// either would fail later at the database or the mail transport, far from the request.
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LINE_BREAK = /[\r\n\u2028\u2029]/;

export interface TextRule {
  /** Maximum length in UTF-16 code units, as every other string limit of the API counts. */
  max: number;
  /** Refuse an empty or whitespace-only value. */
  nonBlank?: boolean;
  /** Refuse line breaks (header-like values: a subject or a title is one line). */
  singleLine?: boolean;
}

/** Checks a string value; the message is fit to follow a field name. */
export function checkText(value: unknown, rule: TextRule): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (rule.nonBlank && value.trim() === '') return 'must not be empty';
  if (value.length > rule.max) return `must be at most ${rule.max} characters`;
  if (NUL.test(value)) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode (it holds a lone surrogate)';
  if (rule.singleLine && LINE_BREAK.test(value)) return 'must be a single line';
  return undefined;
}

/** Checks an integer within [min, max]. */
export function checkInteger(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
  if (value < min || value > max) return `must be between ${min} and ${max}`;
  return undefined;
}
