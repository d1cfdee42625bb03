import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * Pure pieces of sign-in, storing nothing: the password rule, password hashing (argon2id), and the
 * opaque secrets that set-password links and sessions are made of. `credentials.ts` and
 * `sessions.ts` keep the records.
 */

/** Counted in code points, so a password of emoji or accented letters is measured as it is typed. */
export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 256;

let commonPasswords: ReadonlySet<string> | undefined;
/** zxcvbn's list of the most common passwords (about 49,000), lowercased; built on first use. */
function common(): ReadonlySet<string> {
  commonPasswords ??= new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
  return commonPasswords;
}

/**
 * Why `password` may not be a password of the user with `email`, as a field message, or undefined
 * when it may. NIST SP 800-63B's rule: long enough, not a known common password, not the account's
 * own name; no composition rules.
 */
export function passwordProblem(password: unknown, email: string): string | undefined {
  if (typeof password !== 'string' || password === '') return 'is required';
  // A code point is one or two UTF-16 units: past twice the maximum, it is too long uncounted.
  const chars = password.length > PASSWORD_MAX_CHARS * 2 ? Number.POSITIVE_INFINITY : [...password].length;
  if (chars < PASSWORD_MIN_CHARS) return `must be at least ${PASSWORD_MIN_CHARS} characters`;
  if (chars > PASSWORD_MAX_CHARS) return `must be at most ${PASSWORD_MAX_CHARS} characters`;
  const lower = password.toLowerCase();
  if (common().has(lower)) return 'is one of the most common passwords; choose one that is harder to guess';
  const address = email.toLowerCase();
  const at = address.lastIndexOf('@');
  if (lower === address || (at > 0 && lower === address.slice(0, at))) return 'must not be your email address';
  return undefined;
}

/** How passwords are hashed and checked; tests count calls or make them cheaper. */
export interface PasswordHasher {
  /** A PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) with a fresh random salt. */
  hash(password: string): Promise<string>;
  /** Whether `password` is the one `stored` was made from; false for a stored value it cannot read. */
  verify(stored: string, password: string): Promise<boolean>;
}

export interface Argon2Parameters {
  /** KiB of memory per hash. */
  memoryCost?: number;
  timeCost?: number;
  parallelism?: number;
}

/**
 * argon2id through @node-rs/argon2. Without parameters it uses the library's defaults (m=19456 KiB,
 * t=2, p=1: OWASP's recommended minimum for argon2id), which is what production runs; only tests
 * pass cheaper ones. A hash records its own parameters, so `verify` reads any earlier hash.
 *
 * Passwords are compared in Unicode NFC, so the same password typed on systems that compose accents
 * differently is the same password.
 */
export function argon2Hasher(parameters: Argon2Parameters = {}): PasswordHasher {
  return {
    hash: (password) => argon2Hash(password.normalize('NFC'), parameters),
    async verify(stored, password) {
      try {
        return await argon2Verify(stored, password.normalize('NFC'));
      } catch {
        return false;
      }
    },
  };
}

/**
 * Set-password tokens and session ids: 32 random bytes (256 bits) as 43 base64url characters.
 * Only `hashOpaqueSecret` of one is stored: with that many random bits a fast hash is enough, and a
 * copy of the database gives no usable link or session.
 */
export const newOpaqueSecret = (): string => randomBytes(32).toString('base64url');

const OPAQUE_SECRET = /^[A-Za-z0-9_-]{43}$/;
/** Whether `value` has the shape of an opaque secret: anything else is refused before any lookup. */
export const isOpaqueSecret = (value: unknown): value is string => typeof value === 'string' && OPAQUE_SECRET.test(value);

export const hashOpaqueSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('base64url');
