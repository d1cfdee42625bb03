import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { CrmError } from './errors';

/**
 * Opaque keyset cursors: the sort values and id of the last row of a page, plus a fingerprint of the
 * query that produced it, signed with a server secret. A cursor that was altered, forged, or replayed
 * against a different query (other workspace, sort, filters, bounds or search) is refused.
 */
export interface CursorPosition {
  /** Values of the sort keys of the last row (date-times as ISO strings), in sort order. */
  values: (string | number | boolean | null)[];
  id: string;
}

const VERSION = 1;
export const MAX_CURSOR_LENGTH = 2048;

export interface CursorCodec {
  encode(fingerprint: string, position: CursorPosition): string;
  decode(fingerprint: string, cursor: string): CursorPosition;
}

export function queryFingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 22);
}

export function createCursorCodec(secret: string | Buffer): CursorCodec {
  if (!secret || secret.length < 16) throw new Error('cursor secret must be at least 16 bytes');
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
  const invalid = () => CrmError.invalid('cursor is malformed or has expired; start again without a cursor');
  return {
    encode(fingerprint, position) {
      const payload = Buffer.from(JSON.stringify([VERSION, fingerprint, position.values, position.id])).toString(
        'base64url',
      );
      return `${payload}.${sign(payload).toString('base64url')}`;
    },
    decode(fingerprint, cursor) {
      if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
      const [payload, signature] = cursor.split('.') as [string, string];
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (!Array.isArray(decoded) || decoded[0] !== VERSION || !Array.isArray(decoded[2]) || typeof decoded[3] !== 'string') {
        throw invalid();
      }
      if (decoded[1] !== fingerprint) {
        throw CrmError.invalid('cursor does not belong to this query: keep sort, filters, since, until and q unchanged while paging');
      }
      return { values: decoded[2] as CursorPosition['values'], id: decoded[3] };
    },
  };
}
