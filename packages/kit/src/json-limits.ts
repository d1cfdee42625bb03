import type { FieldIssue } from './errors';

/**
 * What a request body may hold, before any field is looked at (gateway/README.md, "Input limits").
 * Every store must be able to keep what is accepted exactly as it was sent: Postgres refuses a NUL
 * in text and in jsonb, PGlite drops a byte order mark that begins a text value, an unpaired UTF-16 surrogate cannot be encoded as UTF-8 at all (it would
 * come back as U+FFFD), JSON numbers beyond ±1.8e308 parse to Infinity and integers beyond 2^53
 * lose digits, and a structure nested hundreds deep exhausts recursive code on every hop.
 */
export const JSON_LIMITS = {
  /** Nesting of the whole body: arrays and objects inside each other. */
  maxDepth: 32,
  /** Nesting inside one custom field's value (a custom field of `{"a": {"b": 1}}` is depth 2). */
  customMaxDepth: 8,
  /** A record's custom fields, serialised as JSON, in bytes (UTF-8) per request. */
  customMaxBytes: 32 * 1024,
  /** Custom fields set in one request. */
  maxCustomFields: 100,
  /** A custom field's name, in characters (code points). */
  maxCustomKeyLength: 100,
} as const;

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as sent, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL (U+0000) characters';
  // The embedded store (PGlite) decodes text with a TextDecoder that drops a leading BOM: what
  // every store keeps as sent does not begin with one.
  if (value.charCodeAt(0) === 0xfeff) return 'must not begin with a byte order mark (U+FEFF)';
  if (UNPAIRED_SURROGATE.test(value)) return 'must be valid Unicode (it contains an unpaired surrogate)';
  return undefined;
}

/** Length in Unicode code points, as JSON Schema's maxLength counts (a surrogate pair is one). */
export function codePointLength(value: string): number {
  let pairs = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return value.length - pairs;
}

/** Why a JSON number cannot be kept exactly, or undefined when it can. */
export function numberProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) return 'must be an integer between -(2^53 - 1) and 2^53 - 1 to be kept exactly';
  return undefined;
}

/** A property name as an issue can name it: control characters and lone surrogates escaped. */
export function printableKey(key: string): string {
  // eslint-disable-next-line no-control-regex
  return key.replace(/[\u0000-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const childPath = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${printableKey(key)}` : printableKey(key) || '(empty name)';

/**
 * The first thing in a parsed JSON value that no store can keep as sent: a NUL or an unpaired
 * surrogate in a string or a property name, a number that is not exact, nesting beyond `maxDepth`
 * (a scalar is depth 0, `{"a": 1}` holds its value at depth 1). Iterative, so a hostile depth costs
 * no stack. The issue names the path below `path` (`tags[2].name`), `(body)` for the root.
 */
export function findJsonProblem(value: unknown, maxDepth: number = JSON_LIMITS.maxDepth, path = ''): FieldIssue | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path, depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    const where = path || '(body)';
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { field: where, message: problem };
    } else if (typeof v === 'number') {
      const problem = numberProblem(v);
      if (problem) return { field: where, message: problem };
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return { field: where, message: `nests objects and arrays more than ${maxDepth} levels deep` };
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: childPath(path, i), depth: depth + 1 });
      } else {
        for (const key of Object.keys(v)) {
          const problem = textProblem(key);
          if (problem) return { field: childPath(path, key), message: `property name ${problem}` };
          stack.push({ value: (v as Record<string, unknown>)[key], path: childPath(path, key), depth: depth + 1 });
        }
      }
    }
  }
  return undefined;
}
