import { randomBytes } from 'node:crypto';
import { SecretDecryptionError, decryptSecret, encryptSecret, parseSecretsKey, type EncryptedSecret } from './secrets';

const key = randomBytes(32);

describe('encryptSecret / decryptSecret', () => {
  it('round-trips, including unicode and the empty string', () => {
    for (const plaintext of ['smtp-password', 'pässwörd ✓ 🔑', '', 'x'.repeat(10_000)]) {
      expect(decryptSecret(encryptSecret(plaintext, key), key)).toBe(plaintext);
    }
  });

  it('stores {v:1, iv, tag, ct} in base64 and never the plaintext', () => {
    const sealed = encryptSecret('hunter2-hunter2', key);
    expect(sealed).toEqual({ v: 1, iv: expect.any(String), tag: expect.any(String), ct: expect.any(String) });
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    expect(JSON.stringify(sealed)).not.toContain('hunter2');
    expect(Buffer.from(sealed.ct, 'base64').toString('utf8')).not.toContain('hunter2');
  });

  it('uses a fresh IV for every encryption', () => {
    const a = encryptSecret('same', key);
    const b = encryptSecret('same', key);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ct).not.toBe(b.ct);
  });

  it('refuses a wrong key', () => {
    const sealed = encryptSecret('secret', key);
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow(SecretDecryptionError);
  });

  it('refuses an altered ciphertext, tag or IV', () => {
    const sealed = encryptSecret('secret value', key);
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    expect(() => decryptSecret({ ...sealed, ct: flip(sealed.ct) }, key)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret({ ...sealed, tag: flip(sealed.tag) }, key)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret({ ...sealed, iv: flip(sealed.iv) }, key)).toThrow(SecretDecryptionError);
  });

  it('refuses a truncated tag rather than checking fewer bits', () => {
    const sealed = encryptSecret('secret', key);
    const shortTag = Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64');
    expect(() => decryptSecret({ ...sealed, tag: shortTag }, key)).toThrow(SecretDecryptionError);
  });

  it('refuses an unknown format version', () => {
    const sealed = encryptSecret('secret', key);
    expect(() => decryptSecret({ ...sealed, v: 2 } as unknown as EncryptedSecret, key)).toThrow(SecretDecryptionError);
  });

  it('binds the ciphertext to its associated data', () => {
    const sealed = encryptSecret('secret', key, 'integration:w1:i1');
    expect(decryptSecret(sealed, key, 'integration:w1:i1')).toBe('secret');
    expect(() => decryptSecret(sealed, key, 'integration:w2:i1')).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(sealed, key)).toThrow(SecretDecryptionError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => encryptSecret('x', randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('parseSecretsKey', () => {
  it('decodes a base64 32-byte key', () => {
    const raw = randomBytes(32);
    expect(parseSecretsKey(raw.toString('base64')).equals(raw)).toBe(true);
    expect(parseSecretsKey(`${raw.toString('base64')}\n`).equals(raw)).toBe(true);
  });

  it('refuses the wrong length or non-base64 text', () => {
    expect(() => parseSecretsKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => parseSecretsKey('not base64 at all!')).toThrow(/base64/);
    expect(() => parseSecretsKey(`${randomBytes(32).toString('base64').slice(0, -2)}`)).toThrow();
    expect(() => parseSecretsKey('')).toThrow(/32 bytes/);
  });
});
