import fc from 'fast-check';
import * as protobuf from 'protobufjs';
import { compileEncoder } from './encoder';
import { loadPeople, loadTypes } from './index';
import { messageOf, servedTypes, types } from './testing/messages';

/**
 * The compiled encoder against protobufjs, the serializer it replaces: for every message of every
 * proto, generated values (well-formed ones, and ones of the wrong kind that protobufjs coerces or
 * refuses) give the same bytes, or both throw.
 */
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

/** Generated values of `type` give protobufjs's bytes, or both throw. */
function sameBytesAsProtobufjs(type: protobuf.Type, encode: (value: object) => Buffer, numRuns: number): void {
  fc.assert(
    fc.property(messageOf(type), (value) => {
      const theirs = protobufjsBytes(type, value);
      const ours = compiledBytes(encode, value);
      if (theirs === 'throws' || ours === 'throws') expect(ours).toBe(theirs);
      else expect(ours.toString('hex')).toBe(theirs.toString('hex'));
    }),
    { numRuns },
  );
}

describe.each(compiled.map(([type, encode]) => [type.fullName, type, encode!] as const))('%s', (_name, type, encode) => {
  test('the same bytes as protobufjs, or both refuse', () => sameBytesAsProtobufjs(type, encode, 60));
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

test('packed repeated scalars, also of kinds no proto of ours has yet, give the same bytes as protobufjs', () => {
  const root = protobuf.parse(`syntax = "proto3"; package t; message Packed { repeated int32 counts = 1; repeated bool flags = 2; string name = 3; repeated string tags = 4; }`).root.resolveAll();
  const type = root.lookupType('t.Packed');
  const encode = compileEncoder(type)!;
  expect(encode).toBeDefined();
  sameBytesAsProtobufjs(type, encode, 500);
  // Long enough for the length to take two bytes.
  const many = { counts: Array.from({ length: 200 }, (_, i) => i * 1_000), flags: Array.from({ length: 150 }, (_, i) => i % 3 === 0) };
  expect(compiledBytes(encode, many)).toEqual(protobufjsBytes(type, many));
});
