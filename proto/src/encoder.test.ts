import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import * as protobuf from 'protobufjs';
import { compileEncoder } from './encoder';
import { loadPeople, loadTypes, protoRoot } from './index';

/**
 * The compiled encoder against protobufjs, the serializer it replaces: for every message of every
 * proto, generated values (well-formed ones, and ones of the wrong kind that protobufjs coerces or
 * refuses) give the same bytes, or both throw.
 */
const files = readdirSync(path.join(protoRoot, 'crm')).flatMap((context) =>
  readdirSync(path.join(protoRoot, 'crm', context, 'v1'))
    .filter((name) => name.endsWith('.proto'))
    .map((name) => `crm/${context}/v1/${name}`),
);

function typesOf(namespace: protobuf.NamespaceBase): protobuf.Type[] {
  return namespace.nestedArray.flatMap((nested) => [
    ...(nested instanceof protobuf.Type ? [nested] : []),
    ...(nested instanceof protobuf.Namespace || nested instanceof protobuf.Type ? typesOf(nested) : []),
  ]);
}

const types = new Map<string, protobuf.Type>();
const servedTypes = new Set<string>();
for (const file of files) {
  const root = loadTypes(file);
  for (const type of typesOf(root)) if (!types.has(type.fullName)) types.set(type.fullName, type);
  const services = (ns: protobuf.NamespaceBase): protobuf.Service[] =>
    ns.nestedArray.flatMap((n) => (n instanceof protobuf.Service ? [n] : n instanceof protobuf.Namespace ? services(n) : []));
  for (const service of services(root)) {
    for (const method of service.methodsArray) {
      method.resolve();
      servedTypes.add(method.resolvedRequestType!.fullName);
      servedTypes.add(method.resolvedResponseType!.fullName);
    }
  }
}

/** UTF-16 units above ASCII, lone surrogates among them: 30 to 50 of them are 60 to 150 bytes. */
const wide = fc.string({ unit: fc.integer({ min: 0x80, max: 0xffff }).map((unit) => String.fromCharCode(unit)), minLength: 30, maxLength: 50 });
/** Text of every kind: lone surrogates, astral characters, and strings past 40 characters and 127 bytes. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 45 }),
  wide,
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: 'binary', minLength: 38, maxLength: 300 }),
);
const anyScalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean());

function valueOf(field: protobuf.Field, depth: number): fc.Arbitrary<unknown> {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    // Now and then the wrong kind where a message belongs: both serializers must refuse it.
    return fc.oneof({ weight: 20, arbitrary: messageOf(resolved, depth + 1) }, { weight: 1, arbitrary: anyScalar });
  }
  if (resolved instanceof protobuf.Enum) return fc.oneof(fc.constantFrom(...Object.keys(resolved.values)), fc.integer({ min: -3, max: 3 }), text);
  switch (field.type) {
    case 'string':
      return fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: anyScalar });
    case 'int32':
      return fc.oneof(fc.integer(), fc.integer({ min: -5, max: 300 }), fc.double(), fc.integer().map(String), text);
    case 'bool':
      return fc.oneof(fc.boolean(), anyScalar);
    case 'double':
      return fc.oneof(fc.double(), fc.integer(), text);
    default:
      return anyScalar;
  }
}

function fieldOf(field: protobuf.Field, depth: number): fc.Arbitrary<unknown> {
  field.resolve();
  const one = valueOf(field, depth);
  const value =
    field instanceof protobuf.MapField
      ? fc.oneof({ weight: 10, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), one, { maxKeys: 4 }) }, { weight: 1, arbitrary: anyScalar })
      : field.repeated
        ? fc.oneof({ weight: 10, arbitrary: fc.array(one, { maxLength: 4 }) }, { weight: 1, arbitrary: anyScalar })
        : one;
  return fc.oneof({ weight: 3, arbitrary: value }, fc.constant(null), fc.constant(undefined));
}

const cache = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

function messageOf(type: protobuf.Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  // Deep enough to nest a Struct in a list in a Struct; deeper, messages are empty.
  if (depth > 4) return fc.constant({});
  const key = `${type.fullName}@${depth}`;
  let arbitrary = cache.get(key);
  if (!arbitrary) {
    arbitrary = fc.record(Object.fromEntries(type.fieldsArray.map((field) => [field.name, fieldOf(field, depth)])), { requiredKeys: [] });
    cache.set(key, arbitrary);
  }
  return arbitrary;
}

function protobufjsBytes(type: protobuf.Type, value: object): Buffer | 'throws' {
  try {
    return Buffer.from(type.encode(type.fromObject(value)).finish());
  } catch {
    return 'throws';
  }
}

function compiledBytes(encode: (value: object) => Buffer, value: object): Buffer | 'throws' {
  try {
    return encode(value);
  } catch {
    return 'throws';
  }
}

const compiled = [...types.values()].map((type) => [type, compileEncoder(type)] as const).filter(([, encode]) => encode !== undefined);

test('every request and response of every service compiles but the one that carries bytes', () => {
  const left = [...servedTypes].filter((name) => !compileEncoder(types.get(name)!));
  expect(left).toEqual(['.crm.messaging.v1.IngestMailRequest']);
  expect(compiled.length).toBeGreaterThan(100);
});

describe.each(compiled.map(([type, encode]) => [type.fullName, type, encode!] as const))('%s', (_name, type, encode) => {
  test('the same bytes as protobufjs, or both refuse', () => {
    fc.assert(
      fc.property(messageOf(type), (value) => {
        const theirs = protobufjsBytes(type, value);
        const ours = compiledBytes(encode, value);
        if (theirs === 'throws' || ours === 'throws') expect(ours).toBe(theirs);
        else expect(ours.toString('hex')).toBe(theirs.toString('hex'));
      }),
      { numRuns: 60 },
    );
  });
});

describe('lengths', () => {
  const people = loadPeople().crm.people.v1.PeopleService.service;
  const contacts = loadTypes('crm/people/v1/people.proto').lookupType('crm.people.v1.ListContactsResponse');
  const contact = (i: number, note: string) => ({
    id: `c-${i}`,
    first_name: 'Zoë',
    email: `z${i}@example.com`,
    priority: i,
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-26T10:00:00.000Z',
    custom_fields: { fields: { note: { stringValue: note }, list: { listValue: { values: [{ structValue: { fields: { deep: { stringValue: note } } } }] } } } },
  });

  test.each([
    ['a page of 500 (past the first buffer)', Array.from({ length: 500 }, (_, i) => contact(i, 'short'))],
    ['a record of 127, 128, 16,383 and 16,384 bytes of custom text', [0, 1, 100, 101, 16_300, 16_400, 3_000_000].map((n, i) => contact(i, 'x'.repeat(n)))],
  ])('%s: the bytes protobufjs writes, and the service definition uses them', (_name, data) => {
    const value = { data, page: { next_cursor: 'abc', has_more: true } };
    const bytes = people.ListContacts.responseSerialize(value as never);
    expect(bytes.toString('hex')).toBe(Buffer.from(contacts.encode(contacts.fromObject(value)).finish()).toString('hex'));
    const back = people.ListContacts.responseDeserialize(bytes);
    expect(back.data.map((c) => c.custom_fields?.fields?.note?.stringValue)).toEqual(data.map((c) => c.custom_fields.fields.note.stringValue));
  });

  test('an array where a message belongs is refused, as by @grpc/proto-loader', () => {
    expect(() => people.ListContacts.responseSerialize([] as never)).toThrow(/got array instead/);
  });
});
