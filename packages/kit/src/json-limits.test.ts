import fc from 'fast-check';
import { parseBodyValue } from './field-values';
import { JSON_LIMITS, codePointLength, findJsonProblem, numberProblem, printableKey, textProblem } from './json-limits';
import { defineResource } from './resource';
import { validateWrite } from './record-codec';
import { parseDateTime } from './time';

const notes = defineResource({
  name: 'notes',
  singular: 'note',
  table: 'notes',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  fields: {
    id: { type: 'uuid', readOnly: true, nullable: false },
    svc_uid: { type: 'string', maxLength: 255 },
    title: { type: 'string', maxLength: 5 },
    created_at: { type: 'datetime', readOnly: true, nullable: false, sort: true },
    updated_at: { type: 'datetime', readOnly: true, nullable: false },
  },
});
const strictNotes = defineResource({ ...notes, customFields: false });

/** Any string, lone surrogates and NULs included (UTF-16 units at random). */
const anyString = fc.string({ unit: 'binary' });
/** Strings every store keeps: well-formed Unicode without NUL. */
const storable = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000') && !s.startsWith('\uFEFF'));

describe('text', () => {
  test('a string is storable exactly when it is well-formed Unicode without NUL, not beginning with a BOM', () => {
    const storable = (s: string) => s.isWellFormed() && !s.includes('\u0000') && !s.startsWith('\uFEFF');
    fc.assert(fc.property(anyString, (s) => expect(textProblem(s) === undefined).toBe(storable(s))));
    fc.assert(fc.property(anyString, (s) => expect(textProblem(`\uFEFF${s}`)).toBeDefined()));
    expect(textProblem('a\uFEFFb')).toBeUndefined();
  });

  test('lengths count code points, as JSON Schema does', () => {
    fc.assert(fc.property(anyString, (s) => expect(codePointLength(s)).toBe([...s].length)));
    expect(codePointLength('😀'.repeat(5))).toBe(5);
    expect(parseBodyValue({ type: 'string', maxLength: 5 }, '😀'.repeat(5))).toEqual({ ok: true, value: '😀'.repeat(5) });
    expect(parseBodyValue({ type: 'string', maxLength: 5 }, '😀'.repeat(6))).toEqual({ ok: false, message: 'must be at most 5 characters' });
  });

  test('names that cannot be printed are escaped, the rest kept', () => {
    expect(printableKey('a\u0000b')).toBe('a\\u0000b');
    expect(printableKey('x\uD800')).toBe('x\\ud800');
    expect(printableKey('😀 ok')).toBe('😀 ok');
  });
});

describe('numbers', () => {
  test('finite numbers and exact integers pass; the rest are named', () => {
    fc.assert(fc.property(fc.double({ noNaN: false }), (n) => {
      const exact = Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n));
      expect(numberProblem(n) === undefined).toBe(exact);
    }));
    expect(numberProblem(JSON.parse('1e400') as number)).toBe('must be a finite number');
    expect(numberProblem(2 ** 53)).toMatch(/kept exactly/);
    expect(numberProblem(2 ** 53 - 1)).toBeUndefined();
  });
});

/** JSON with its integers brought within 2^53, the ones a JSON number keeps exactly. */
const exactNumbers = (value: unknown): unknown => {
  if (typeof value === 'number') return Number.isSafeInteger(value) || !Number.isInteger(value) ? value : Math.sign(value) * Number.MAX_SAFE_INTEGER;
  if (Array.isArray(value)) return value.map(exactNumbers);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exactNumbers(v)]));
  return value;
};

describe('findJsonProblem', () => {
  test('any JSON a client can send whose strings and names are storable passes', () => {
    fc.assert(
      fc.property(fc.dictionary(storable, fc.jsonValue({ maxDepth: 6, stringUnit: 'grapheme' }).map(exactNumbers)), (body) => {
        fc.pre(!JSON.stringify(body).includes('\\u0000') && !JSON.stringify(body).includes('"\uFEFF'));
        expect(findJsonProblem(body)).toBeUndefined();
      }),
    );
  });

  test('one NUL or lone surrogate anywhere, in a value or a name, is found and its path named', () => {
    const bad = fc.constantFrom('\u0000', '\uD800', '\uDFFF', 'a\u0000', '\uDC00x');
    fc.assert(
      fc.property(fc.array(fc.oneof(storable.filter((k) => k !== ''), fc.nat({ max: 3 })), { maxLength: 6 }), bad, fc.boolean(), (path, poison, inName) => {
        // Builds {p0: {p1: [...]}} down the path, the poison as the last value or the last name.
        let value: unknown = inName ? { [`k${poison}`]: 1 } : poison;
        for (const step of [...path].reverse()) {
          value = typeof step === 'number' ? [...Array(step).fill(0), value] : { [step]: value };
        }
        const body = { outer: value };
        const problem = findJsonProblem(body);
        expect(problem).toBeDefined();
        const expected = ['outer', ...path].reduce<string>((at, step) => (typeof step === 'number' ? `${at}[${step}]` : `${at}.${printableKey(step)}`), '').slice(1);
        expect(problem!.field).toBe(inName ? `${expected}.${printableKey(`k${poison}`)}` : expected);
      }),
    );
  });

  test('nesting past the limit is refused without using the stack, at any depth', () => {
    const nest = (depth: number) => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
      return value;
    };
    expect(findJsonProblem(nest(JSON_LIMITS.maxDepth))).toBeUndefined();
    expect(findJsonProblem(nest(JSON_LIMITS.maxDepth + 1))?.message).toBe(`nests objects and arrays more than ${JSON_LIMITS.maxDepth} levels deep`);
    expect(findJsonProblem(nest(200_000))?.message).toMatch(/levels deep/);
  });
});

describe('validateWrite', () => {
  test('names of Object.prototype members are properties like any other', () => {
    const names = ['toString', 'valueOf', 'hasOwnProperty', 'constructor', 'isPrototypeOf', '__defineGetter__', 'toLocaleString'];
    for (const name of names) {
      expect(validateWrite(notes, { title: 'a', [name]: 'x' }, 'create').customSet).toEqual({ [name]: 'x' });
      expect(validateWrite(notes, { [name]: null }, 'update')).toEqual({ fields: {}, customSet: {}, customUnset: [name] });
      expect(() => validateWrite(strictNotes, { title: 'a', [name]: 'x' }, 'create')).toThrow(expect.objectContaining({
        code: 'validation_failed',
        details: [{ field: name, message: 'is not a field of this resource' }],
      }));
    }
  });

  test('custom fields: depth, size and names are bounded, and problems are named by path', () => {
    let deep: unknown = 1;
    for (let i = 0; i < JSON_LIMITS.customMaxDepth; i++) deep = { a: deep };
    expect(validateWrite(notes, { ok: deep }, 'create').customSet).toEqual({ ok: deep });
    expect(() => validateWrite(notes, { tooDeep: { a: deep } }, 'create')).toThrow(expect.objectContaining({
      details: [{ field: `tooDeep${'.a'.repeat(JSON_LIMITS.customMaxDepth)}`, message: expect.stringMatching(/levels deep/) }],
    }));
    expect(() => validateWrite(notes, { big: 'x'.repeat(JSON_LIMITS.customMaxBytes) }, 'create')).toThrow(expect.objectContaining({
      details: [{ field: '(body)', message: expect.stringMatching(/32768 bytes/) }],
    }));
    expect(() => validateWrite(notes, { tags: ['a', { name: 'b\u0000' }] }, 'create')).toThrow(expect.objectContaining({
      details: [{ field: 'tags[1].name', message: 'must not contain NUL (U+0000) characters' }],
    }));
    expect(() => validateWrite(notes, { 'bad\u0000name': 1 }, 'create')).toThrow(expect.objectContaining({
      details: [{ field: 'bad\\u0000name', message: 'property name must not contain NUL (U+0000) characters' }],
    }));
    expect(validateWrite(notes, { ['😀'.repeat(JSON_LIMITS.maxCustomKeyLength)]: 1 }, 'create').customSet).toEqual({ ['😀'.repeat(JSON_LIMITS.maxCustomKeyLength)]: 1 });
  });
});

describe('date-times every store can hold', () => {
  test('years 0001 to 9999 in UTC, whatever the offset', () => {
    expect(parseDateTime('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseDateTime('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    for (const outside of ['0000-01-01T00:00:00Z', '0000-12-31T23:59:59Z', '9999-12-31T23:59:59-05:00', '0001-01-01T00:30:00+01:00']) {
      expect([outside, parseDateTime(outside)]).toEqual([outside, undefined]);
    }
  });

  test('whatever is accepted writes back as an ISO string that parses to the same instant', () => {
    const dates = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(fc.property(dates, fc.integer({ min: -14 * 60, max: 14 * 60 }), (date, offsetMinutes) => {
      const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      const text = `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      fc.pre(/^\d{4}-/.test(local));
      const parsed = parseDateTime(text);
      expect(parsed?.getTime()).toBe(date.getTime());
      expect(parsed!.toISOString()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }));
  });
});
