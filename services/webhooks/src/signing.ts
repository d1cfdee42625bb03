import { type KeyObject, createHmac, createSecretKey, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signing (DESIGN.md section 4, "Signing"): secrets are `whsec_<base64>`
 * of 32 random bytes; a signature is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the
 * secret's decoded bytes; several secrets sign as space-separated entries.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Keys made from secrets, by secret: every delivery to an endpoint signs with the same one or two,
 * and making a key costs more than the HMAC of a small body. Bounded: past the bound the oldest
 * entries go first (a Map keeps insertion order).
 */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'));
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The webhook-signature header: one `v1,` entry per secret, the current one first. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' ');
}
