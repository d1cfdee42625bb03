import fc from 'fast-check';
import { recordCodec } from './compiled-codec';
import { fromProtoValue, fromStruct, toProtoValue, toStruct } from './proto-values';
import { type ResourceSpec, baseFields, defineResource } from './resource';

/**
 * The compiled mappings against the loops they replaced, written out plainly here as the oracle:
 * same keys in the same order, same values, for rows and records of every field type with custom
 * properties that collide with declared names and with Object.prototype's.
 */
const notes = defineResource({
  name: 'notes',
  singular: 'note',
  table: 'notes',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    title: { type: 'string' },
    rank: { type: 'integer', sort: true },
    done: { type: 'boolean' },
    due_at: { type: 'datetime', nullable: true },
    meta: { type: 'json' },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: baseFields.updated_at,
  },
});

function oracleRowToRecord(spec: ResourceSpec, row: Record<string, unknown>) {
  const record: Record<string, unknown> = {};
  for (const key of Object.keys(spec.fields)) {
    const value = row[key];
    record[key] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  const custom = row.custom as Record<string, unknown> | null | undefined;
  if (custom) for (const [key, value] of Object.entries(custom)) if (!Object.hasOwn(record, key)) record[key] = value;
  return record;
}

function oracleRecordToMessage(spec: ResourceSpec, record: Record<string, unknown>) {
  const message: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const field = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (field) {
      if (value !== null && value !== undefined) message[key] = field.type === 'json' ? toProtoValue(value) : value;
    } else {
      custom[key] = value;
    }
  }
  message.custom_fields = toStruct(custom);
  return message;
}

function oracleMessageToRecord(spec: ResourceSpec, message: Record<string, unknown>) {
  const record: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(spec.fields)) {
    const value = message[key];
    record[key] = value === undefined || value === null ? null : field.type === 'json' ? fromProtoValue(value as never) : value;
  }
  for (const [key, value] of Object.entries(fromStruct(message.custom_fields as never))) if (!Object.hasOwn(record, key)) record[key] = value;
  return record;
}

/** JSON without `__proto__` keys: the gateway's body parser refuses them (400), so none is ever stored. */
const hasProtoKey = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && (Object.hasOwn(value, '__proto__') || Object.values(value).some(hasProtoKey));
const json = (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>).filter((value) => !hasProtoKey(value));
/** Custom names: ordinary ones, declared ones, and members of Object.prototype. */
const customName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s !== '__proto__'),
  fc.constantFrom('title', 'rank', 'id', 'custom', 'toString', 'constructor', 'hasOwnProperty', 'valueOf'),
);
const custom = fc.option(fc.dictionary(customName, json, { maxKeys: 6 }), { nil: null });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null), fc.constant(undefined));
const date = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true });

const row = fc.record(
  {
    id: fc.uuid(),
    svc_uid: optional(fc.string()),
    title: optional(fc.string()),
    rank: optional(fc.integer()),
    done: optional(fc.boolean()),
    due_at: optional(fc.oneof(date, date.map((d) => d.toISOString()))),
    meta: optional(json),
    created_at: date,
    updated_at: date,
    custom,
  },
  { requiredKeys: ['id', 'created_at'] },
);

const codec = recordCodec(notes);
const inOrder = (value: unknown) => JSON.stringify(value);

test('row → record: the declared fields in order (dates as ISO strings, missing as null), then the custom ones', () => {
  fc.assert(
    fc.property(row, (r) => {
      const record = codec.rowToRecord(r);
      expect(inOrder(record)).toBe(inOrder(oracleRowToRecord(notes, r)));
      expect(Object.keys(record).filter((key) => Object.hasOwn(notes.fields, key))).toEqual(Object.keys(notes.fields));
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    }),
    { numRuns: 500 },
  );
});

test('record → message → record: the same as the loops, and the record comes back whole', () => {
  fc.assert(
    fc.property(row, (r) => {
      const record = codec.rowToRecord(r);
      const message = codec.recordToMessage(record);
      expect(inOrder(message)).toBe(inOrder(oracleRecordToMessage(notes, record)));
      const back = codec.messageToRecord(message);
      expect(inOrder(back)).toBe(inOrder(oracleMessageToRecord(notes, message)));
      expect(back).toEqual(record);
    }),
    { numRuns: 500 },
  );
});

test('a message without custom_fields, or with absent fields, reads as nulls', () => {
  expect(codec.messageToRecord({ id: 'x' })).toEqual({ id: 'x', svc_uid: null, title: null, rank: null, done: null, due_at: null, meta: null, created_at: null, updated_at: null });
  expect(codec.recordToMessage({ id: 'x', title: null, rank: 0, done: false })).toEqual({ id: 'x', rank: 0, done: false, custom_fields: { fields: {} } });
});

test('each declaration is compiled once, and two declarations never share a codec', () => {
  const other = defineResource({ ...notes, name: 'others', fields: { id: baseFields.id, svc_uid: baseFields.svc_uid, created_at: notes.fields.created_at, updated_at: baseFields.updated_at } });
  expect(recordCodec(notes)).toBe(codec);
  expect(recordCodec(other)).not.toBe(codec);
  expect(recordCodec(other).rowToRecord({ id: 'a', title: 't', created_at: null })).toEqual({ id: 'a', svc_uid: null, created_at: null, updated_at: null });
});

describe('a json field whose proto field moved to a new number (legacyProtoField)', () => {
  const moved = defineResource({ ...notes, name: 'moved_notes', fields: { ...notes.fields, meta: { type: 'json', legacyProtoField: 'legacy_meta' } } });
  const movedCodec = recordCodec(moved);

  test('is written to its own field and to the old one, for callers of the previous release', () => {
    const message = movedCodec.recordToMessage({ id: 'x', meta: { a: [1, 'b'] } });
    expect(message.meta).toEqual(toProtoValue({ a: [1, 'b'] }));
    expect(message.legacy_meta).toEqual(message.meta);
    expect(movedCodec.recordToMessage({ id: 'x', meta: null })).not.toHaveProperty('legacy_meta');
  });

  test('is read from its own field, else (a message of the previous release) from the old one, never as a field of its own', () => {
    const old = toProtoValue({ v: 'old' });
    expect(movedCodec.messageToRecord({ id: 'x', meta: toProtoValue({ v: 'new' }), legacy_meta: old }).meta).toEqual({ v: 'new' });
    // proto-loader's `defaults` gives an absent message field as null.
    expect(movedCodec.messageToRecord({ id: 'x', meta: null, legacy_meta: old }).meta).toEqual({ v: 'old' });
    expect(movedCodec.messageToRecord({ id: 'x', legacy_meta: old }).meta).toEqual({ v: 'old' });
    expect(movedCodec.messageToRecord({ id: 'x', meta: null, legacy_meta: null }).meta).toBeNull();
    expect(Object.keys(movedCodec.messageToRecord({ id: 'x', legacy_meta: old }))).toEqual(Object.keys(moved.fields));
    // The codec without the declaration's knob reads no fallback: the knob is what the tests above hold.
    expect(codec.messageToRecord({ id: 'x', legacy_meta: old }).meta).toBeNull();
  });

  test('defineResource takes one only on a json field, naming no declared field', () => {
    const withMeta = (meta: object) => () => defineResource({ ...notes, name: 'bad_notes', fields: { ...notes.fields, meta } as typeof notes.fields });
    expect(withMeta({ type: 'string', legacyProtoField: 'legacy_meta' })).toThrow(/legacyProtoField/);
    expect(withMeta({ type: 'json', legacyProtoField: 'title' })).toThrow(/legacyProtoField/);
    expect(withMeta({ type: 'json', legacyProtoField: 'custom_fields' })).toThrow(/legacyProtoField/);
    expect(withMeta({ type: 'json', legacyProtoField: 'Legacy-Meta' })).toThrow(/legacyProtoField/);
    expect(withMeta({ type: 'json', legacyProtoField: 'legacy_meta' })).not.toThrow();
  });
});
