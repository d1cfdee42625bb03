import { dictionary } from '@zxcvbn-ts/language-common';
import fc from 'fast-check';
import {
  PASSWORD_MAX_CHARS,
  PASSWORD_MIN_CHARS,
  argon2Hasher,
  hashOpaqueSecret,
  isOpaqueSecret,
  newOpaqueSecret,
  passwordProblem,
} from './password';

const EMAIL = 'Alice.Martin@Example.com';
/** The common passwords long enough to pass the length rule: only the list refuses these. */
const LONG_COMMON = dictionary['passwords-common'].filter((word) => [...word].length >= PASSWORD_MIN_CHARS);

describe('the password rule', () => {
  it('refuses every string of fewer than 12 code points, whatever it is made of', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: PASSWORD_MIN_CHARS - 1 }), (password) => {
        expect(passwordProblem(password, EMAIL)).toBeDefined();
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts code points, not UTF-16 units', () => {
    // 11 emoji are 22 UTF-16 units, and still 11 characters.
    expect(passwordProblem('🔐'.repeat(11), EMAIL)).toBe('must be at least 12 characters');
    expect(passwordProblem('🔐'.repeat(12), EMAIL)).toBeUndefined();
    expect(passwordProblem('é'.repeat(PASSWORD_MAX_CHARS), EMAIL)).toBeUndefined();
    expect(passwordProblem('🔐'.repeat(PASSWORD_MAX_CHARS + 1), EMAIL)).toBe('must be at most 256 characters');
    expect(passwordProblem('x'.repeat(100_000), EMAIL)).toBe('must be at most 256 characters');
  });

  it('accepts any string of 12 to 256 code points that is neither common nor the email', () => {
    fc.assert(
      fc.property(
        fc
          .string({ unit: 'binary', minLength: PASSWORD_MIN_CHARS, maxLength: PASSWORD_MAX_CHARS })
          .filter((p) => [...p].length >= PASSWORD_MIN_CHARS && !LONG_COMMON.includes(p.toLowerCase())),
        (password) => {
          expect(passwordProblem(password, EMAIL)).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses the common passwords in any letter case', () => {
    expect(LONG_COMMON.length).toBeGreaterThan(100);
    fc.assert(
      fc.property(fc.constantFrom(...LONG_COMMON), fc.func(fc.boolean()), (word, upper) => {
        const cased = [...word].map((c, i) => (upper(i) ? c.toUpperCase() : c)).join('');
        expect(passwordProblem(cased, EMAIL)).toMatch(/most common passwords/);
      }),
    );
    expect(passwordProblem('Qwerty123456', EMAIL)).toMatch(/most common passwords/);
  });

  it('refuses the email address and its local part', () => {
    expect(passwordProblem('alice.martin@example.com', EMAIL)).toBe('must not be your email address');
    expect(passwordProblem('ALICE.MARTIN', 'alice.martin@example.com')).toBe('must not be your email address');
    expect(passwordProblem('Alice.Martin.Long', 'alice.martin.long@example.com')).toBe('must not be your email address');
    expect(passwordProblem('alice.martin.long2', 'alice.martin.long@example.com')).toBeUndefined();
  });

  it('requires a string', () => {
    for (const value of [undefined, null, '', 42, ['correct horse battery']]) expect(passwordProblem(value, EMAIL)).toBe('is required');
  });
});

describe('argon2Hasher', () => {
  it('hashes with argon2id at the library defaults (m=19456 KiB, t=2, p=1), a fresh salt each time', async () => {
    const hasher = argon2Hasher();
    const first = await hasher.hash('correct horse battery staple');
    const second = await hasher.hash('correct horse battery staple');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(second).not.toBe(first);
    expect(await hasher.verify(first, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(first, 'correct horse battery stapler')).toBe(false);
  });

  it('reads a hash made with other parameters, and answers false for one it cannot read', async () => {
    const cheap = await argon2Hasher({ memoryCost: 256, timeCost: 1 }).hash('correct horse battery staple');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
    expect(await argon2Hasher().verify(cheap, 'correct horse battery staple')).toBe(true);
    expect(await argon2Hasher().verify('not a hash', 'correct horse battery staple')).toBe(false);
  });

  it('compares passwords in NFC, so a composed and a decomposed accent are the same password', async () => {
    const hasher = argon2Hasher({ memoryCost: 256, timeCost: 1 });
    const composed = 'mot de passe été 2026';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(await hasher.verify(await hasher.hash(composed), decomposed)).toBe(true);
  });
});

describe('opaque secrets', () => {
  it('are 256 random bits in 43 base64url characters, stored as a SHA-256', () => {
    const secrets = new Set(Array.from({ length: 100 }, newOpaqueSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) {
      expect(isOpaqueSecret(secret)).toBe(true);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
      expect(hashOpaqueSecret(secret)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(hashOpaqueSecret(secret)).not.toBe(secret);
    }
    for (const bad of ['', 'short', `${newOpaqueSecret()}x`, { $ne: null }, 42]) expect(isOpaqueSecret(bad)).toBe(false);
  });
});
