import { CrmError } from '@crm/kit';
import { DEFAULT_KEY_ENV, generateKey, hashKey, isValidKeyEnv, isWellFormedKey, keyDisplayPrefix } from './api-key';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('generateKey', () => {
  it('issues svc_<env>_<32 base64url chars>, live by default', () => {
    expect(DEFAULT_KEY_ENV).toBe('live');
    expect(generateKey()).toMatch(/^svc_live_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('test')).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('a1234567890bcdef')).toMatch(/^svc_a1234567890bcdef_[A-Za-z0-9_-]{32}$/);
  });

  it('issues a different key every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey()));
    expect(keys.size).toBe(1000);
  });

  it.each(['', 'Live', '1live', 'live_eu', 'live-eu', 'a1234567890bcdefg'])('refuses env %p', (env) => {
    expect(isValidKeyEnv(env)).toBe(false);
    expect(() => generateKey(env)).toThrow(CrmError);
    try {
      generateKey(env);
    } catch (err) {
      expect((err as CrmError).code).toBe('validation_failed');
      expect((err as CrmError).details).toEqual([{ field: 'env', message: expect.any(String) }]);
    }
  });
});

describe('isWellFormedKey', () => {
  it('accepts the keys it issues', () => {
    for (const env of ['live', 'test', 'dev2', 'x']) {
      for (let i = 0; i < 50; i++) expect(isWellFormedKey(generateKey(env))).toBe(true);
    }
  });

  it('keeps the published checksum algorithm (CRC-32 of the rest, 6 base64url digits)', () => {
    // Computed independently (Python zlib.crc32); a change here would invalidate every issued key.
    expect(isWellFormedKey('svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAABaWUVO')).toBe(true);
    expect(isWellFormedKey('svc_test_abcdefghijklmnopqrstuvwxyzBnLMlV')).toBe(true);
  });

  it('rejects every single-character change of a key', () => {
    const key = generateKey();
    for (let i = 0; i < key.length; i++) {
      const original = key[i]!;
      const replacement = BASE64URL[(BASE64URL.indexOf(original) + 1) % 64]!;
      expect(isWellFormedKey(key.slice(0, i) + replacement + key.slice(i + 1))).toBe(false);
    }
  });

  it('rejects the wrong shape', () => {
    const key = generateKey();
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedKey(`${key}A`)).toBe(false);
    expect(isWellFormedKey(key.replace('svc_', 'sk_'))).toBe(false);
    expect(isWellFormedKey(key.replace('svc_live_', 'svc_LIVE_'))).toBe(false);
    expect(isWellFormedKey(` ${key}`)).toBe(false);
    expect(isWellFormedKey('')).toBe(false);
    expect(isWellFormedKey(undefined)).toBe(false);
    expect(isWellFormedKey(42)).toBe(false);
  });

  it('rejects random strings that only look like keys', () => {
    // Right shape, arbitrary body: the checksum lets a real key be told from noise offline.
    expect(isWellFormedKey('svc_live_0123456789abcdefghijklmnopqrstuv')).toBe(false);
    expect(isWellFormedKey('svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
  });
});

describe('hashKey', () => {
  it('is a stable 64-char hex digest that depends on the pepper', () => {
    const key = generateKey();
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).toBe(hashKey(key));
    expect(hashKey(key, 'pepper-a')).toBe(hashKey(key, 'pepper-a'));
    expect(hashKey(key, 'pepper-a')).not.toBe(hashKey(key, 'pepper-b'));
    expect(hashKey(key, 'pepper-a')).not.toBe(hashKey(key));
    expect(hashKey(generateKey(), 'pepper-a')).not.toBe(hashKey(key, 'pepper-a'));
  });
});

describe('keyDisplayPrefix', () => {
  it('shows the env and 4 characters, never the secret part', () => {
    expect(keyDisplayPrefix('svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAABaWUVO')).toBe('svc_live_AAAA');
    expect(keyDisplayPrefix('svc_test_abcdefghijklmnopqrstuvwxyzBnLMlV')).toBe('svc_test_abcd');
  });
});
