import { CrmError } from './errors';
import { isShortSearch, parseListQuery } from './list-query';
import { sampleContacts as contacts } from './testing/sample-resource';

const parse = (raw: Record<string, string | string[]>) => parseListQuery(contacts, raw);
const rejects = (raw: Record<string, string | string[]>, parameter: string) => {
  let caught: unknown;
  try {
    parse(raw);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(CrmError);
  expect(caught).toMatchObject({ code: 'invalid_request', details: { parameter } });
  expect((caught as Error).message).toContain(parameter);
};

describe('parseListQuery (contacts)', () => {
  test('defaults: 50 rows, newest first by created_at', () => {
    expect(parse({})).toEqual({ limit: 50, sort: [{ field: 'created_at', direction: 'desc' }], filters: [] });
  });

  test('multi-sort with directions', () => {
    expect(parse({ sort: '-last_engagement_at,last_name' }).sort).toEqual([
      { field: 'last_engagement_at', direction: 'desc' },
      { field: 'last_name', direction: 'asc' },
    ]);
  });

  test.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ sort: 'email' }, 'sort'],
    [{ sort: 'last_name,-last_name' }, 'sort'],
    [{ sort: '' }, 'sort'],
    [{ since: '2026-05-15' }, 'since'],
    [{ since: '2026-05-15T10:00:00' }, 'since'],
    [{ until: '2026-02-30T10:00:00Z' }, 'until'],
    [{ updated_since: 'yesterday' }, 'updated_since'],
    [{ owner_id: 'not-a-uuid' }, 'owner_id'],
    [{ country: '' }, 'country'],
    [{ q: '   ' }, 'q'],
    [{ q: 'x'.repeat(201) }, 'q'],
    [{ q: '' }, 'q'],
    [{ q: 'ab\u001fcd' }, 'q'],
    [{ q: 'tab\there' }, 'q'],
    [{ cursor: '' }, 'cursor'],
    [{ colour: 'red' }, 'colour'],
    [{ first_name: 'Ann' }, 'first_name'],
    [{ country: ['DE', 'FR'] }, 'country'],
  ])('%j is a 400 naming %s', (raw, parameter) => rejects(raw, parameter));

  test('typed filters: uuid lower-cased, strings kept', () => {
    const q = parse({ owner_id: '0190A0B0-0000-7000-8000-000000000001', country: 'DE', svc_uid: 'ext-1' });
    expect(q.filters).toEqual([
      { field: 'svc_uid', value: 'ext-1' },
      { field: 'owner_id', value: '0190a0b0-0000-7000-8000-000000000001' },
      { field: 'country', value: 'DE' },
    ]);
  });

  test('date-times with offsets are accepted and normalised', () => {
    const q = parse({ since: '2026-05-15T12:00:00+02:00', until: '2026-05-16T10:00:00.5Z' });
    expect(q.since?.toISOString()).toBe('2026-05-15T10:00:00.000Z');
    expect(q.until?.toISOString()).toBe('2026-05-16T10:00:00.500Z');
  });
});

describe('q', () => {
  test('a term of any length from 1 to 200 code points is accepted as given, surrounding spaces included', () => {
    for (const q of ['a', 'Z', 'ø', '😀', '%', '_', 'Li', ' ab ', 'ø_', '😀😀', 'Ann', '😀😀😀', 'x'.repeat(200), '😀'.repeat(200)]) {
      expect(parseListQuery(contacts, { q }).q).toBe(q);
    }
  });

  test('blank terms stay refused, saying why', () => {
    for (const q of ['', ' ', '   ']) expect(() => parseListQuery(contacts, { q })).toThrow(/q must not be empty/);
  });

  test('a term is short (served by the bounded walk) below 3 code points, surrounding spaces aside', () => {
    expect(['a', 'Li', ' ab ', '😀😀', '%_', ' ø'].map(isShortSearch)).toEqual([true, true, true, true, true, true]);
    expect(['Ann', '😀😀😀', ' a b ', 'a_b'].map(isShortSearch)).toEqual([false, false, false, false]);
  });
});
