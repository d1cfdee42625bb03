import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signing (DESIGN.md section 4, "Signing"): secrets are `whsec_<base64>`
 * of 32 random bytes; a signature is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the
 * secret's decoded bytes; several secrets sign as space-separated entries.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

/** The webhook-signature header: one `v1,` entry per secret, the current one first. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' ');
}
