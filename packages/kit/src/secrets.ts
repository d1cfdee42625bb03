import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (directory's integration secrets, webhooks' endpoint signing secrets): AES-256-GCM with a 32-byte key from the service configuration
 * (SECRETS_KEY, base64) and a fresh random 12-byte IV per encryption. GCM's tag authenticates the
 * ciphertext, so a tampered or wrongly keyed record fails to decrypt instead of yielding garbage.
 *
 * The optional associated data binds a ciphertext to the record it belongs to (authenticated, not
 * encrypted): a secret copied into another workspace's record by someone with database write
 * access then fails to decrypt there.
 */

export interface EncryptedSecret {
  v: 1;
  /** Base64 of the 12-byte IV. */
  iv: string;
  /** Base64 of the 16-byte GCM authentication tag. */
  tag: string;
  /** Base64 of the ciphertext. */
  ct: string;
}

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes SECRETS_KEY; refuses anything but exactly 32 bytes of canonical base64. */
export function parseSecretsKey(base64: string): Buffer {
  const trimmed = base64.trim();
  // Buffer.from(…, 'base64') silently skips invalid characters, which would hide a truncated or
  // mangled key until the first decryption failed.
  if (!BASE64.test(trimmed)) throw new Error('SECRETS_KEY must be base64');
  const key = Buffer.from(trimmed, 'base64');
  assertKey(key);
  return key;
}

export function encryptSecret(plaintext: string, key: Buffer, associatedData?: string): EncryptedSecret {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
}

/** The plaintext; throws `SecretDecryptionError` on a wrong key, a tampered record or other associated data. */
export function decryptSecret(sealed: EncryptedSecret, key: Buffer, associatedData?: string): string {
  assertKey(key);
  if (sealed?.v !== 1) throw new SecretDecryptionError('unknown encrypted secret version');
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  // A short tag would weaken authentication to a few bits; GCM in Node accepts one unless told the length.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError('malformed encrypted secret');
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError('encrypted secret failed authentication (wrong SECRETS_KEY or altered record)');
  }
}

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`the secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
}
