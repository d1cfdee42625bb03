import { EMAIL_LIMITS, EMAIL_PATTERN, MAX_CURSOR_LENGTH } from '@crm/kit';

/**
 * The schemas the OpenAPI description repeats, each with the exact limits the gateway enforces
 * (gateway/README.md, "Input limits"), so every string has a length and a shape, every integer a
 * format and bounds, every array a size (the OWASP API Security ruleset checks it in CI).
 */
type Schema = Record<string, unknown>;

/** An error's message is cut to this many characters (errors.ts): it may quote client input. */
export const MAX_ERROR_MESSAGE = 1_000;

/**
 * Free text: any Unicode but NUL, not beginning with a byte order mark (kit's textProblem: what
 * every store keeps as sent; unpaired surrogates, refused too, are not expressible as a pattern).
 */
export const TEXT_PATTERN = '^(?!\\uFEFF)[^\\u0000]*$';
/**
 * A search term: free text without control characters, not blank (kit's parseListQuery trims by
 * the same whitespace `\s` matches; gateway/README.md, Query strings).
 */
export const SEARCH_PATTERN = '^(?!\\uFEFF)(?=[\\s\\S]*\\S)[^\\u0000-\\u001F\\u007F]*$';

export const UUID: Schema = { type: 'string', format: 'uuid', minLength: 36, maxLength: 36 };

/** What every store can hold (kit's parseDateTime): RFC 3339 with an offset, years 0001–9999 in UTC. */
export const DATE_TIME: Schema = {
  type: 'string',
  format: 'date-time',
  maxLength: 35,
  // kit's RFC3339 expression: an offset with a colon, no leap second, and no year 0000.
  pattern: '^(?!0000)\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:[0-5]\\d(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$',
  description: 'RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.',
};

/**
 * idn-email with the exact pattern enforced: `email` would refuse the Unicode addresses the API
 * takes. A pattern counts characters, not octets, so RFC 5321's limits (kit's EMAIL_LIMITS) are
 * stated in the description; maxLength is the whole address's limit, since 254 octets are never
 * more than 254 characters.
 */
export const email = (maxLength: number = EMAIL_LIMITS.address): Schema => ({
  type: 'string',
  format: 'idn-email',
  // No NUL either: kit's textProblem refuses it in every string.
  pattern: EMAIL_PATTERN.source.replaceAll('[^\\s@', '[^\\s\\u0000@'),
  maxLength: Math.min(maxLength, EMAIL_LIMITS.address),
  description:
    `RFC 5321 limits, counted in UTF-8 octets: a local part of at most ${EMAIL_LIMITS.localPart}, ` +
    `domain labels of at most ${EMAIL_LIMITS.label} each, at most ${EMAIL_LIMITS.address} in all.`,
});

/** A page's cursor: opaque, signed, base64url (kit's cursor codec refuses anything else). */
export const CURSOR: Schema = { type: 'string', minLength: 3, maxLength: MAX_CURSOR_LENGTH, pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' };
export const NEXT_CURSOR: Schema = { ...CURSOR, type: ['string', 'null'] };

/** A page of a list: its items, and the cursor of the next page (null on the last). */
export const pageSchema = (items: Schema, maxItems: number): Schema => ({
  type: 'object',
  properties: {
    data: { type: 'array', items, maxItems, description: 'The records of this page, at most `limit`.' },
    next_cursor: { ...NEXT_CURSOR, description: 'Pass as `cursor` (with the same query) for the next page; null on the last page.' },
    has_more: { type: 'boolean', description: 'Whether another page follows.' },
  },
  required: ['data', 'next_cursor', 'has_more'],
});

/** An answer of one object under `data`, as JSON. */
export const dataResponse = (description: string, data: Schema, example?: unknown): Schema => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', properties: { data: { description: 'The answer.', ...data } }, required: ['data'] },
      ...(example !== undefined ? { example: { data: example } } : {}),
    },
  },
});

/** A count of records. */
export const COUNT: Schema = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

/** A list of record ids, at most `max`. */
export const idList = (max: number, description: string): Schema => ({ type: 'array', items: UUID, maxItems: max, description });

/** The request id: echoed when the client's is 1–128 of these characters, else `req_<uuid>`. */
export const REQUEST_ID: Schema = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' };

const SECONDS: Schema = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

/** Headers of every answer that passed the rate limiter (gateway/README.md, "Rate limits"). */
export const RATE_HEADERS: Record<string, Schema> = {
  'RateLimit-Limit': { description: 'Per-key budget per minute.', schema: { ...COUNT, minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests left in the binding window.', schema: COUNT },
  'RateLimit-Reset': { description: 'Seconds until the binding window is fully open again.', schema: SECONDS },
  'X-Request-Id': { description: 'The request id, also in every error body.', schema: REQUEST_ID },
};

export const RETRY_AFTER: Record<string, Schema> = { 'Retry-After': { description: 'Seconds to wait.', schema: { ...SECONDS, minimum: 1 } } };
