import { createHmac, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CrmError } from '@crm/kit';

/**
 * API keys: `svc_<env>_<32 base64url chars>`. The 32 chars are 26 random ones (156 bits) followed by
 * a 6-char checksum: the CRC-32 (IEEE, as zlib computes it) of `svc_<env>_<26 random chars>`, written
 * as 6 base64url digits, most significant first (the first digit carries only the top 2 bits). Like
 * GitHub's tokens, this lets secret scanners and our own gateway reject noise and typos offline,
 * without a database lookup. Keys are never logged and only their hash is stored.
 */

export const DEFAULT_KEY_ENV = 'live';

const ENV_PATTERN = /^[a-z][a-z0-9]{0,15}$/;
// The env cannot contain `_`, and the body has a fixed length at the end, so this split is unambiguous.
const KEY_PATTERN = /^svc_[a-z][a-z0-9]{0,15}_[A-Za-z0-9_-]{32}$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const RANDOM_CHARS = 26;
const CHECKSUM_CHARS = 6;
/** Characters of a key safe to show in lists: `svc_<env>_` and 4 random chars (24 of 156 bits). */
const DISPLAY_RANDOM_CHARS = 4;

export const isValidKeyEnv = (env: string): boolean => ENV_PATTERN.test(env);

/** A new key for `env`; throws `validation_failed` on an env that does not match /^[a-z][a-z0-9]{0,15}$/. */
export function generateKey(env: string = DEFAULT_KEY_ENV): string {
  if (!isValidKeyEnv(env)) {
    throw CrmError.validation([{ field: 'env', message: 'must be 1-16 lowercase letters or digits, starting with a letter' }]);
  }
  // 256 is a multiple of 64, so masking each byte keeps every character uniformly random.
  let random = '';
  for (const byte of randomBytes(RANDOM_CHARS)) random += BASE64URL[byte & 63];
  const body = `svc_${env}_${random}`;
  return body + checksum(body);
}

/** Whether `key` has the key format and a correct checksum. Says nothing about whether it was issued. */
export function isWellFormedKey(key: unknown): key is string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, -CHECKSUM_CHARS);
  return checksum(body) === key.slice(-CHECKSUM_CHARS);
}

/**
 * What the store keeps instead of the key. Keys carry 156 random bits, so a fast hash is enough
 * against guessing; the server-side pepper (HMAC key) makes a stolen database dump useless without
 * the service's configuration too. Changing the pepper invalidates every issued key.
 */
export function hashKey(key: string, pepper = ''): string {
  return createHmac('sha256', pepper).update(key, 'utf8').digest('hex');
}

/** The non-secret beginning of a key, for showing which key is which (`svc_live_Ab3x`). */
export function keyDisplayPrefix(key: string): string {
  const envEnd = key.indexOf('_', 'svc_'.length);
  return key.slice(0, envEnd + 1 + DISPLAY_RANDOM_CHARS);
}

function checksum(body: string): string {
  const crc = crc32(body) >>> 0;
  let digits = '';
  for (let shift = 30; shift >= 0; shift -= 6) digits += BASE64URL[(crc >>> shift) & 63];
  return digits;
}
