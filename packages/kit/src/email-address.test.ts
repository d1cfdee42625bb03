import fc from 'fast-check';
import { EMAIL_LIMITS, EMAIL_PATTERN, emailAddressProblem } from './email-address';
import { parseBodyValue } from './field-values';

/** Characters an atom may hold, of 1 to 4 UTF-8 bytes each: lengths in octets and characters differ. */
const UNITS = ['a', 'Z', '7', '-', '_', '+', 'é', 'ß', '€', 'ह', '😀'] as const;
const octets = (s: string) => Buffer.byteLength(s, 'utf8');

/** Exactly `n` octets of atom characters, multi-byte where `picks` choose them (padded with `a`). */
function atom(n: number, picks: readonly number[]): string {
  let text = '';
  let size = 0;
  for (const pick of picks) {
    const unit = UNITS[pick % UNITS.length]!;
    if (size + octets(unit) > n) break;
    text += unit;
    size += octets(unit);
  }
  return text + 'a'.repeat(n - size);
}

const picks = fc.array(fc.nat(), { minLength: 0, maxLength: 300 });
/** Around a limit, and anywhere below and past it. */
const around = (limit: number) => fc.oneof(fc.constantFrom(limit - 1, limit, limit + 1), fc.integer({ min: 1, max: limit + 20 }));

/** A domain of exactly `n` octets (n ≥ 3) in at least two labels, none over 63 octets. */
function domainOf(n: number, picks: readonly number[]): string {
  const count = Math.max(2, Math.ceil((n + 1) / (EMAIL_LIMITS.label + 1)));
  const sizes = Array.from({ length: count }, () => 1);
  let left = n - (count - 1) - count;
  // A random share for each label first, then whatever is left where it still fits.
  for (let i = 0; i < count && left > 0; i++) {
    const add = Math.min(EMAIL_LIMITS.label - 1, left, (picks[i] ?? 0) % EMAIL_LIMITS.label);
    sizes[i]! += add;
    left -= add;
  }
  for (let i = 0; i < count && left > 0; i++) {
    const add = Math.min(EMAIL_LIMITS.label - sizes[i]!, left);
    sizes[i]! += add;
    left -= add;
  }
  return sizes.map((size, i) => atom(size, picks.slice(i * 20))).join('.');
}

describe('RFC 5321 limits, in octets', () => {
  test('a local part is taken up to 64 octets, a label up to 63, whatever characters make them up', () => {
    fc.assert(
      fc.property(around(EMAIL_LIMITS.localPart), around(EMAIL_LIMITS.label), fc.integer({ min: 1, max: 3 }), picks, (local, label, others, chosen) => {
        const address = `${atom(local, chosen)}@${[atom(label, chosen.slice(7)), ...Array.from({ length: others }, () => 'io')].join('.')}`;
        expect(octets(address.split('@')[0]!)).toBe(local);
        const problem = emailAddressProblem(address);
        const total = octets(address);
        expect(problem === undefined).toBe(local <= 64 && label <= 63 && total <= 254);
        expect(problem?.includes(`local part must be at most 64 octets (UTF-8 bytes); it has ${local}`) ?? false).toBe(local > 64);
        expect(problem?.includes(`each domain label must be at most 63 octets (UTF-8 bytes); one has ${label}`) ?? false).toBe(label > 63);
      }),
    );
  });

  test('a whole address is taken up to 254 octets', () => {
    fc.assert(
      fc.property(around(EMAIL_LIMITS.address), fc.integer({ min: 1, max: EMAIL_LIMITS.localPart }), picks, (total, local, chosen) => {
        fc.pre(total - local - 1 >= 3);
        const address = `${atom(local, chosen)}@${domainOf(total - local - 1, chosen.slice(3))}`;
        expect(octets(address)).toBe(total);
        expect(Math.max(...address.split('@')[1]!.split('.').map(octets))).toBeLessThanOrEqual(63);
        expect(EMAIL_PATTERN.test(address)).toBe(true);
        expect(emailAddressProblem(address)).toBe(total <= 254 ? undefined : `must be at most 254 octets (UTF-8 bytes); it has ${total}`);
      }),
    );
  });

  test('multi-byte characters count their bytes, not their characters', () => {
    // 32 é are 32 characters and 64 octets; one more ASCII character is a 65-octet local part.
    expect(emailAddressProblem(`${'é'.repeat(32)}@example.com`)).toBeUndefined();
    expect(emailAddressProblem(`${'é'.repeat(32)}a@example.com`)).toBe('local part must be at most 64 octets (UTF-8 bytes); it has 65');
    expect(emailAddressProblem(`${'😀'.repeat(16)}@example.com`)).toBeUndefined();
    expect(emailAddressProblem(`${'😀'.repeat(16)}a@example.com`)).toMatch(/it has 65$/);
    expect(emailAddressProblem(`ada@${'€'.repeat(21)}.com`)).toBeUndefined();
    expect(emailAddressProblem(`ada@${'€'.repeat(21)}a.com`)).toBe('each domain label must be at most 63 octets (UTF-8 bytes); one has 64');
  });

  test('every limit broken is named, after the syntax', () => {
    const address = `${'a'.repeat(65)}@${'b'.repeat(64)}.${'c'.repeat(63)}.${'d'.repeat(63)}.io`;
    expect(emailAddressProblem(address)).toBe(
      'local part must be at most 64 octets (UTF-8 bytes); it has 65; ' +
        'each domain label must be at most 63 octets (UTF-8 bytes); one has 64; ' +
        'must be at most 254 octets (UTF-8 bytes); it has 261',
    );
    expect(emailAddressProblem(`${'a'.repeat(65)}@example`)).toBe('must be an email address');
    for (const bad of ['a..b@example.com', '.a@example.com', 'a@b', 'a b@example.com', '"a"@example.com', 'a@[127.0.0.1]', 'a@@b.io', 'a\u0000@b.io', '\uFEFFa@b.io']) {
      expect(emailAddressProblem(bad)).toBe('must be an email address');
    }
    expect(emailAddressProblem('ada.lovelace+crm@exämple.co.uk')).toBeUndefined();
  });

  test('an email field refuses what the rule refuses, with its message', () => {
    const field = { type: 'email' } as const;
    const long = `${'a'.repeat(65)}@example.com`;
    expect(parseBodyValue(field, long)).toEqual({ ok: false, message: 'local part must be at most 64 octets (UTF-8 bytes); it has 65' });
    expect(parseBodyValue(field, `${'a'.repeat(64)}@example.com`)).toEqual({ ok: true, value: `${'a'.repeat(64)}@example.com` });
    expect(parseBodyValue(field, 42)).toEqual({ ok: false, message: 'must be an email address' });
    // A field's own, lower maxLength still holds.
    expect(parseBodyValue({ type: 'email', maxLength: 10 }, 'ada@example.com')).toEqual({ ok: false, message: 'must be at most 10 characters' });
  });
});
