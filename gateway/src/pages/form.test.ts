import { CrmError } from '@crm/kit';
import fc from 'fast-check';
import { field, fields, parseForm } from './form';

const refused = (body: string) => {
  try {
    parseForm(body);
  } catch (error) {
    return error instanceof CrmError ? error.code : 'other';
  }
  return 'parsed';
};

describe('a page form is read strictly', () => {
  test('fields, repeated fields, + as space and percent-escapes', () => {
    const form = parseForm('email=a%40b.test&scopes=contacts%3Aread&scopes=*&name=my+key&empty=&bare');
    expect(field(form, 'email')).toBe('a@b.test');
    expect(fields(form, 'scopes')).toEqual(['contacts:read', '*']);
    expect(field(form, 'name')).toBe('my key');
    expect(field(form, 'empty')).toBe('');
    expect(field(form, 'bare')).toBe('');
    expect(field(form, 'missing')).toBe('');
    expect(fields(form, 'missing')).toEqual([]);
  });

  test('a field the page sends once, sent twice, is refused as invalid', () => {
    expect(() => field(parseForm('email=a&email=b'), 'email')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  test('no field name reaches a prototype', () => {
    const form = parseForm('__proto__=x&constructor=y&toString=z');
    expect(Object.getPrototypeOf(form)).toBeNull();
    expect(field(form, '__proto__')).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  test.each([
    ['escapes that are not UTF-8', 'password=%FF%FE'],
    ['an escaped lone surrogate', 'password=%ED%A0%80'],
    ['a broken escape', 'password=%E2%82'],
    ['raw bytes outside ASCII', 'password=caf\u00e9'],
    ['a raw control character', 'password=a\nb'],
    ['too many fields', Array.from({ length: 201 }, (_, i) => `f${i}=1`).join('&')],
    ['a value past the bound', `name=${'a'.repeat(4_097)}`],
  ])('%s: 400', (_what, body) => {
    expect(refused(body)).toBe('invalid_request');
  });

  test('whatever the body, the answer is a form or a 400, never another failure', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (body) => {
        expect(['parsed', 'invalid_request']).toContain(refused(body));
      }),
      { numRuns: 500 },
    );
  });
});
