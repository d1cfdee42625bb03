import fc from 'fast-check';

/**
 * Request parts generated from the gateway's own OpenAPI description: values that follow an
 * operation's schemas, and the hostile values a careless or malicious client sends instead. The
 * fuzzer mixes the two, so most requests are nearly valid and reach deep into the services.
 */
type Json = Record<string, any>;

/** `$ref`s resolved against the document. */
export function resolver(document: Json) {
  return function resolve(schema: Json | undefined): Json {
    let s = schema ?? {};
    for (let hops = 0; s.$ref && hops < 10; hops++) {
      s = String(s.$ref)
        .replace(/^#\//, '')
        .split('/')
        .reduce((node: Json, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    }
    return s ?? {};
  };
}

// ---------------------------------------------------------------------------------------------
// Hostile values: every Unicode oddity, boundary numbers, wrong types, size and depth.

const ODD_TEXT = [
  '',
  ' ',
  '\u0000',
  'nul\u0000byte',
  '\uD800',
  'lone\uDC00low',
  '\u202Eevil\u202C', // right-to-left override
  '\u200F\u200E', // RTL and LTR marks
  '\uFEFF', // byte-order mark
  'e\u0301\u0301\u0301', // combining accents
  '😀👍🏽👨‍👩‍👧‍👦',
  '\u{10FFFF}',
  '\\',
  '"quoted"',
  "'; DROP TABLE contacts; --",
  '%00',
  '%',
  '_',
  '${7*7}{{7*7}}{% raw %}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\r\n\t',
  'null',
  'true',
  '0',
  '-1',
  'NaN',
  '1e400',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-05:00',
  '2026-02-30T10:00:00Z',
  '2026-05-15T10:00:00',
  '2026-05-15',
  '+010000-01-01T00:00:00Z',
  '2026-05-15T24:00:00Z',
  'a@b',
  'user@example.com',
  'http://',
  'javascript:alert(1)',
  'toString',
  '__proto__',
  'constructor',
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_TEXT) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(256, 1_001, 10_001, 20_000).chain((n) => fc.constantFrom('x'.repeat(n), '😀'.repeat(n), 'é'.repeat(n))) },
);

const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, -2147483649, 2147483648, 2 ** 31 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e21, 1e308, -1e308, Number.MIN_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A structure nested past every limit, or just inside one. */
const deep: fc.Arbitrary<unknown> = fc.constantFrom(7, 8, 9, 31, 33, 300).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 3 === 2 ? [value] : { d: value };
  return value;
});

export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: oddString },
  { weight: 3, arbitrary: oddNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': '' }) },
  { weight: 1, arbitrary: fc.array(oddString, { maxLength: 600 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(oddString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(120, 150).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))) },
);

/** Property names a client might send: reserved, prototype members, odd characters, very long. */
export const oddName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\uD800',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'constructor',
    'isPrototypeOf',
    'prototype',
    '__defineGetter__',
    'id',
    'workspace_id',
    'created_at',
    'custom',
    'custom_fields',
    'object',
    '$where',
    'a.b',
    'a"b',
    ' ',
    '😀',
    'x'.repeat(100),
    'x'.repeat(101),
    'SELECT',
    'email',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

// ---------------------------------------------------------------------------------------------
// Valid values from a schema.

const FORMAT: Record<string, fc.Arbitrary<string>> = {
  uuid: fc.uuid({ version: 7 }),
  email: fc.tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}$/), fc.constantFrom('example.com', 'acme.test')).map(([local, domain]) => `${local}@${domain}`),
  uri: fc.webUrl().filter((url) => url.length <= 2048 && /^https?:\/\//.test(url)),
  'date-time': fc
    .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
};

export function valueFor(document: Json, schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = resolver(document)(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => valueFor(document, a, depth + 1)));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string'];
  const options = types.map((type) => {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 1000, (s.minimum ?? 0) + 100_000) });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'array':
        return fc.array(valueFor(document, s.items, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
      case 'object':
        return depth > 6 ? fc.constant({}) : objectFor(document, s, depth);
      default: {
        if (s.format && FORMAT[s.format]) return FORMAT[s.format]!;
        // The free-text patterns (no NUL; for a search term, no control character either) are every
        // storable string: text of any script, not the pattern's alphabet.
        const search = s.pattern?.endsWith('[^\\u0000-\\u001F\\u007F]*$');
        if (s.pattern && !search && !s.pattern.endsWith('[^\\u0000]*$')) {
          return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 255));
        }
        return fc
          .string({ unit: 'grapheme', minLength: Math.max(1, s.minLength ?? 1), maxLength: Math.min(s.maxLength ?? 40, 40) })
          .filter((v) => v.trim() !== '' && !v.includes('\u0000') && !v.startsWith('\uFEFF'))
          // A search term's minimum counts code points of the trimmed term (gateway/README.md, Query strings).
          .filter((v) => !search || (!/[\u0000-\u001f\u007f]/.test(v) && [...v.trim()].length >= (s.minLength ?? 1)));
      }
    }
  });
  return fc.oneof(...options);
}

function objectFor(document: Json, schema: Json, depth: number): fc.Arbitrary<Json> {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set<string>(schema.required ?? []);
  const writable = Object.entries(properties).filter(([, p]) => !resolver(document)(p).readOnly);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of writable) record[name] = valueFor(document, property, depth + 1);
  return fc.record(record, { requiredKeys: writable.map(([name]) => name).filter((name) => required.has(name)) });
}

// ---------------------------------------------------------------------------------------------
// Values just past (or just on) the edges of one field's own schema: the mutation that reaches a
// store, because the rest of the request stays valid.

const EDGE_DATES = [
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59Z',
  '0001-01-01T00:00:00Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59-05:00',
  '9999-12-31T19:00:00-05:00',
  '+010000-01-01T00:00:00Z',
  '2026-02-30T10:00:00Z',
  '2024-02-29T23:59:60Z',
  '2026-05-15T10:00:00',
  '2026-05-15T10:00:00.123456789+14:00',
  '2026-05-15T10:00:00-14:59',
  '2026-05-15',
];

export function edgeValueFor(document: Json, schema: Json | undefined): fc.Arbitrary<unknown> {
  const s = resolver(document)(schema);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const max = typeof s.maxLength === 'number' ? s.maxLength : 255;
  if (s.format === 'date-time') return fc.constantFrom(...EDGE_DATES);
  if (s.format === 'uuid') return fc.constantFrom('00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF', '01a20b80-6f3b-7673-83a5-6b94b961bab5', 'not-a-uuid', '{01a20b80-6f3b-7673-83a5-6b94b961bab5}');
  if (s.format === 'idn-email' || s.format === 'email') {
    return fc.constantFrom('a..b@example.com', 'josé@exämple.de', 'a@b', `${'x'.repeat(max)}@example.com`, ' a@example.com', 'a@example.com\u0000', 'A@EXAMPLE.COM', 'a+tag@sub.example.co');
  }
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]).filter((v) => typeof v === 'string').map((v) => String(v).toUpperCase()), '', ' ');
  if (types.includes('integer') || types.includes('number')) {
    const min = typeof s.minimum === 'number' ? s.minimum : -2147483648;
    const top = typeof s.maximum === 'number' ? s.maximum : 2147483647;
    return fc.constantFrom(min, top, min - 1, top + 1, 0.5, -0, 2 ** 53 + 2, '1');
  }
  if (types.includes('string')) {
    return fc.constantFrom('😀'.repeat(max), '😀'.repeat(max + 1), 'x'.repeat(max + 1), 'e\u0301'.repeat(Math.ceil(max / 2)), 'a\u0000b', '\uD800', '\u202Eevil', ' ', '');
  }
  if (types.includes('array')) {
    const items = typeof s.maxItems === 'number' ? s.maxItems : 100;
    return fc.constantFrom([], Array.from({ length: items + 1 }, () => '01a20b80-6f3b-7673-83a5-6b94b961bab5'), [null], ['\u0000']);
  }
  return oddValue;
}

// ---------------------------------------------------------------------------------------------
// Bodies: valid, mutated, or not JSON at all.

export interface BodyCase {
  /** The text sent, or undefined for no body. */
  text?: string;
  contentType?: string;
  /** The value the text encodes when it is JSON built here (for read-back checks). */
  sent?: unknown;
}

const json = (value: unknown): BodyCase => ({ text: JSON.stringify(value), contentType: 'application/json', sent: value });

export function bodyFor(document: Json, schema: Json | undefined): fc.Arbitrary<BodyCase> {
  const valid = valueFor(document, schema ?? { type: 'object' });
  const asObject = valid.map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {}));
  const mutated = fc
    .tuple(asObject, fc.array(fc.tuple(fc.nat(), oddValue), { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(oddName, oddValue), { maxLength: 3 }))
    .map(([body, replacements, extra]) => {
      const out: Json = { ...body };
      const keys = Object.keys(out);
      for (const [index, value] of replacements) if (keys.length) out[keys[index % keys.length]!] = value;
      for (const [name, value] of extra) out[name] = value;
      return json(out);
    });
  // One field at its edge, the rest valid: what gets through to a store when a limit is missing.
  const properties = Object.entries((resolver(document)(schema).properties ?? {}) as Record<string, Json>).filter(([, p]) => !resolver(document)(p).readOnly);
  const oneEdge = properties.length
    ? fc
        .tuple(asObject, fc.constantFrom(...properties))
        .chain(([body, [name, property]]) => edgeValueFor(document, property).map((value) => json({ ...body, [name]: value })))
    : asObject.map(json);
  const raw = fc.oneof(
    asObject.map((body) => ({ ...json(body), text: JSON.stringify(body).slice(0, -1) })), // truncated
    asObject.map((body) => ({ text: `{"__proto__":{"polluted":true},${JSON.stringify(body).slice(1)}`, contentType: 'application/json' })),
    asObject.map((body) => ({ text: `{"constructor":{"prototype":{"polluted":true}},${JSON.stringify(body).slice(1)}`, contentType: 'application/json' })),
    asObject.map((body) => ({ text: `{"dup":1,"dup":2,${JSON.stringify(body).slice(1)}`, contentType: 'application/json' })),
    fc.constantFrom('', '{', '}', '[]', 'null', '"text"', '1', '{"a":}', '{"a":1,}', "{'a':1}", '{"a":"\\ud800"}', '{"a":"\\u0000"}', '\uFEFF{}', '{"a":1e999}').map((text) => ({ text, contentType: 'application/json' })),
    asObject.map((body) => ({ text: JSON.stringify(body), contentType: 'text/plain' })),
    asObject.map((body) => ({ text: JSON.stringify(body), contentType: 'application/x-www-form-urlencoded' })),
    asObject.map((body) => ({ text: JSON.stringify(body), contentType: 'application/json; charset=latin1' })),
    asObject.map((body) => ({ text: JSON.stringify(body), contentType: 'multipart/form-data; boundary=x' })),
    fc.constant<BodyCase>({}),
  );
  return fc.oneof({ weight: 3, arbitrary: valid.map(json) }, { weight: 4, arbitrary: oneEdge }, { weight: 3, arbitrary: mutated }, { weight: 2, arbitrary: raw });
}

// ---------------------------------------------------------------------------------------------
// Query strings and path ids.

export function queryFor(document: Json, parameters: Json[]): fc.Arbitrary<[string, string][]> {
  const resolve = resolver(document);
  const query = parameters.map(resolve).filter((p) => p.in === 'query');
  const one = (p: Json): fc.Arbitrary<[string, string][]> =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: valueFor(document, p.schema).map((v) => [[p.name, String(v)]] as [string, string][]) },
      { weight: 2, arbitrary: oddString.map((v) => [[p.name, v]] as [string, string][]) },
      { weight: 1, arbitrary: fc.tuple(oddString, oddString).map(([a, b]) => [[p.name, a], [p.name, b]] as [string, string][]) },
    );
  const unknown = fc.oneof(
    { weight: 6, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.tuple(oddName, oddString).map(([k, v]) => [[k, v]] as [string, string][]) },
  );
  return fc.tuple(...query.map(one), unknown).map((parts) => parts.flat());
}

export function pathIdFor(known: () => string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => known()).chain((ids) => (ids.length ? fc.constantFrom(...ids) : fc.uuid({ version: 7 }))) },
    { weight: 2, arbitrary: fc.uuid({ version: 7 }) },
    { weight: 1, arbitrary: fc.uuid({ version: 7 }).map((id) => id.toUpperCase()) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom('0', '-1', 'null', 'undefined', 'abc', '%00', '%2F', '..', '.', '%E2%80%AE', '%F0%9F%98%80', '%ED%A0%80', '%FF', 'x'.repeat(2000), '00000000-0000-0000-0000-000000000000', '{id}', ' '),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, 'x'))),
      ),
    },
  );
}
