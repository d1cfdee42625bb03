import fc from 'fast-check';
import { CrmError } from '@crm/kit';
import { PERFORMANCE_WINDOWS, TIMELINE_KINDS, parsePerformanceQuery, parseTimelineQuery } from './views';

const refused = (run: () => unknown, parameter: string) => {
  const error = (() => {
    try {
      run();
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  expect(error).toBeInstanceOf(CrmError);
  expect((error as CrmError).code).toBe('invalid_request');
  expect((error as CrmError).details).toEqual({ parameter });
};

describe('timeline query', () => {
  test('accepts the documented parameters, typed', () => {
    expect(parseTimelineQuery({})).toEqual({ limit: 50 });
    expect(parseTimelineQuery({ limit: '100', kind: 'call_log', since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00+01:00', cursor: 'a.b' })).toEqual({
      limit: 100,
      kind: 'call_log',
      since: new Date('2026-01-01T00:00:00Z'),
      until: new Date('2026-01-31T23:00:00Z'),
      cursor: 'a.b',
    });
  });

  test('refuses, naming the parameter: unknown, repeated, out of range, malformed', () => {
    refused(() => parseTimelineQuery({ sort: 'occurred_at' }), 'sort');
    refused(() => parseTimelineQuery({ kind: ['task', 'meeting'] }), 'kind');
    refused(() => parseTimelineQuery({ limit: '0' }), 'limit');
    refused(() => parseTimelineQuery({ limit: '101' }), 'limit');
    refused(() => parseTimelineQuery({ kind: 'sent_emails' }), 'kind');
    refused(() => parseTimelineQuery({ since: '2026-01-01' }), 'since');
    refused(() => parseTimelineQuery({ cursor: '' }), 'cursor');
    refused(() => parseTimelineQuery({ cursor: 'a\u0000b' }), 'cursor');
  });

  test('any query string either parses within the documented ranges or is a 400 naming a parameter (generated)', () => {
    const name = fc.oneof(fc.constantFrom('limit', 'kind', 'since', 'until', 'cursor', 'window', 'q'), fc.string({ maxLength: 8 }));
    const value = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...TIMELINE_KINDS, '1', '50', '100', '2026-05-01T00:00:00Z'), fc.array(fc.string(), { minLength: 2, maxLength: 2 }));
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 4 }), (raw) => {
        try {
          const query = parseTimelineQuery(raw);
          expect(query.limit).toBeGreaterThanOrEqual(1);
          expect(query.limit).toBeLessThanOrEqual(100);
          if (query.kind) expect(TIMELINE_KINDS).toContain(query.kind);
        } catch (error) {
          expect(error).toBeInstanceOf(CrmError);
          expect((error as CrmError).code).toBe('invalid_request');
          expect(Object.keys(raw)).toContain(((error as CrmError).details as { parameter: string }).parameter);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('performance query', () => {
  test('window is one of four, 30d when absent; anything else is 400', () => {
    expect(parsePerformanceQuery({})).toBe('30d');
    for (const window of Object.keys(PERFORMANCE_WINDOWS)) expect(parsePerformanceQuery({ window })).toBe(window);
    for (const window of ['1y', '', '24H', 'toString', '__proto__']) refused(() => parsePerformanceQuery({ window }), 'window');
    refused(() => parsePerformanceQuery({ days: '7' }), 'days');
    refused(() => parsePerformanceQuery({ window: ['7d', '30d'] }), 'window');
  });
});
