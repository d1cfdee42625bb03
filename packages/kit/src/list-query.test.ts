import { CrmError } from './errors';
import { parseListQuery } from './list-query';
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
    [{ q: 'ab' }, 'q'],
    [{ q: ' ab ' }, 'q'],
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
  test('three characters is the shortest term, counted in code points after trimming; the message says why', () => {
    expect(parseListQuery(contacts, { q: 'Ann' }).q).toBe('Ann');
    expect(parseListQuery(contacts, { q: '😀😀😀' }).q).toBe('😀😀😀');
    expect(() => parseListQuery(contacts, { q: '😀😀' })).toThrow(/q must be at least 3 characters \(a shorter term would read every record\)/);
  });
});
