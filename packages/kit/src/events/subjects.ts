/**
 * NATS subject syntax and matching, implemented once so the in-process bus filters exactly as
 * JetStream does: tokens are separated by `.`, `*` matches exactly one token and `>` (last token
 * only) matches one or more remaining tokens.
 */

const WHITESPACE = /\s/;

function validTokens(subject: string): string[] | undefined {
  if (subject.length === 0 || WHITESPACE.test(subject)) return undefined;
  const tokens = subject.split('.');
  return tokens.every((token) => token.length > 0) ? tokens : undefined;
}

/** A concrete subject, as an event's `type` must be: no empty token, no wildcard token. */
export function isConcreteSubject(subject: string): boolean {
  const tokens = validTokens(subject);
  return tokens !== undefined && tokens.every((token) => token !== '*' && token !== '>');
}

/** A subscription filter: wildcards allowed, `>` only as the last token. */
export function isSubjectFilter(filter: string): boolean {
  const tokens = validTokens(filter);
  return tokens !== undefined && tokens.every((token, index) => token !== '>' || index === tokens.length - 1);
}

export function subjectMatches(filter: string, subject: string): boolean {
  const filterTokens = filter.split('.');
  const subjectTokens = subject.split('.');
  for (let i = 0; i < filterTokens.length; i++) {
    const token = filterTokens[i];
    if (token === '>') return subjectTokens.length > i;
    if (i >= subjectTokens.length) return false;
    if (token !== '*' && token !== subjectTokens[i]) return false;
  }
  return filterTokens.length === subjectTokens.length;
}

export function matchesAny(filters: readonly string[], subject: string): boolean {
  return filters.some((filter) => subjectMatches(filter, subject));
}
