import { textProblem } from './json-limits';

/**
 * An address a mail server can take: dot-separated atoms (no empty one, so no leading, trailing or
 * doubled dot) on each side of one @, at least two labels in the domain, no space, quote, bracket
 * or other RFC 5322 special. Unicode is allowed (internationalised addresses, RFC 6531). The
 * OpenAPI description publishes this pattern as it is.
 */
export const EMAIL_PATTERN = /^[^\s@"(),:;<>[\]\\.]+(\.[^\s@"(),:;<>[\]\\.]+)*@[^\s@"(),:;<>[\]\\.]+(\.[^\s@"(),:;<>[\]\\.]+)+$/u;

/**
 * RFC 5321 4.5.3.1, in octets: a server refuses a longer local part or domain label, and a path
 * (the address between angle brackets) is at most 256 octets, so an address at most 254. With
 * SMTPUTF8 (RFC 6531) the octets are the UTF-8 bytes, so `é` counts 2.
 */
export const EMAIL_LIMITS = { localPart: 64, label: 63, address: 254 } as const;

const octets = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Why `value` is not an address every write may store (gateway/README.md, "Input limits"), or
 * undefined when it is one. The syntax comes first; each RFC 5321 limit it breaks is then named, so
 * the person fixing it knows which part to shorten.
 */
export function emailAddressProblem(value: string): string | undefined {
  if (textProblem(value) || !EMAIL_PATTERN.test(value)) return 'must be an email address';
  const at = value.indexOf('@');
  const problems: string[] = [];
  const local = octets(value.slice(0, at));
  if (local > EMAIL_LIMITS.localPart) {
    problems.push(`local part must be at most ${EMAIL_LIMITS.localPart} octets (UTF-8 bytes); it has ${local}`);
  }
  const longest = Math.max(...value.slice(at + 1).split('.').map(octets));
  if (longest > EMAIL_LIMITS.label) {
    problems.push(`each domain label must be at most ${EMAIL_LIMITS.label} octets (UTF-8 bytes); one has ${longest}`);
  }
  const total = octets(value);
  if (total > EMAIL_LIMITS.address) {
    problems.push(`must be at most ${EMAIL_LIMITS.address} octets (UTF-8 bytes); it has ${total}`);
  }
  return problems.length ? problems.join('; ') : undefined;
}
