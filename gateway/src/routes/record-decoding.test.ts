import { activitiesApi } from '@crm/activities-contract';
import { directoryApi } from '@crm/directory-contract';
import { flowsApi } from '@crm/flows-contract';
import { type ApiRecord, type ResourceSpec, messageToRecord, rpcName } from '@crm/kit';
import { messagingApi } from '@crm/messaging-contract';
import { peopleApi } from '@crm/people-contract';
import { typesOfMethod } from '@crm/proto';
import type * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { Writer } from 'protobufjs';
import type * as protobuf from 'protobufjs';
import { messageOf } from '../../../proto/src/testing/messages';
import { recordDecodersOf } from './resource.routes';

/**
 * The gateway reads resource answers straight into records (@crm/proto's record-decoder). For
 * every resource of every context, the bytes of generated answers (and random bytes) give what the
 * three passes it replaces give: the method's own deserializer (protobufjs decode and toObject),
 * then messageToRecord. Same keys in the same order, same values, or both refuse.
 */
const apis = [peopleApi, activitiesApi, directoryApi, messagingApi, flowsApi];
const resources = apis.flatMap((api) => {
  const service = api.service().service as grpc.ServiceDefinition;
  return api.routes
    .filter((route) => route.operations.includes('get') && route.operations.includes('list'))
    .map((route) => ({ spec: route.spec as ResourceSpec, service }));
});

type Outcome = { value: unknown } | 'throws';
const outcome = (read: () => unknown): Outcome => {
  try {
    return { value: read() };
  } catch {
    return 'throws';
  }
};

/** The value with every object's keys as an ordered list, so the order is compared too. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value && typeof value === 'object') return Object.entries(value).map(([key, inner]) => [key, ordered(inner)]);
  return value;
}

function same(expected: Outcome, actual: Outcome): void {
  if (expected === 'throws' || actual === 'throws') expect(actual).toBe(expected);
  else expect(ordered(actual.value)).toEqual(ordered(expected.value));
}

/** Bytes protobufjs writes for a generated value it accepts. */
const encodedBy = (type: protobuf.Type) =>
  messageOf(type).map((value) => {
    try {
      return Buffer.from(type.encode(type.fromObject(value)).finish());
    } catch {
      return undefined;
    }
  });

test('every resource with a get and a list is read straight into records', () => {
  expect(resources.length).toBeGreaterThan(10);
  expect(resources.filter(({ spec, service }) => !recordDecodersOf(service, spec)).map(({ spec }) => spec.name)).toEqual([]);
});

describe.each(resources.map(({ spec, service }) => [spec.name, spec, service] as const))('%s', (_name, spec, service) => {
  const get = service[rpcName(spec, 'get')]!;
  const list = service[rpcName(spec, 'list')]!;
  const decoders = recordDecodersOf(service, spec)!;
  const threePasses = (bytes: Buffer): ApiRecord => messageToRecord(spec, get.responseDeserialize(bytes) as object);
  const threePassesPage = (bytes: Buffer) => {
    const response = list.responseDeserialize(bytes) as { data: object[]; page: unknown };
    return { data: response.data.map((message) => messageToRecord(spec, message)), page: response.page };
  };

  test('a record: what the three passes give, or both refuse', () => {
    fc.assert(
      fc.property(encodedBy(typesOfMethod(get.path)!.response), fc.uint8Array({ maxLength: 48 }), (bytes, noise) => {
        if (bytes) same(outcome(() => threePasses(bytes)), outcome(() => decoders.record(bytes)));
        same(outcome(() => threePasses(Buffer.from(noise))), outcome(() => decoders.record(Buffer.from(noise))));
      }),
      { numRuns: 80 },
    );
  });

  test('a page: what the three passes give, or both refuse', () => {
    fc.assert(
      fc.property(encodedBy(typesOfMethod(list.path)!.response), (bytes) => {
        if (bytes) same(outcome(() => threePassesPage(bytes)), outcome(() => decoders.page(bytes)));
      }),
      { numRuns: 40 },
    );
  });
});

describe('the cases generated values do not reach', () => {
  const { spec, service } = resources.find((r) => r.spec.name === 'contacts')!;
  const get = service[rpcName(spec, 'get')]!;
  const decoders = recordDecodersOf(service, spec)!;
  const contact = typesOfMethod(get.path)!.response;
  const value = contact.lookupType('google.protobuf.Value');
  const threePasses = (bytes: Buffer) => outcome(() => messageToRecord(spec, get.responseDeserialize(bytes) as object));
  const ours = (bytes: Buffer) => outcome(() => decoders.record(bytes));
  /** A contact whose custom_fields hold one entry `key` with these Value bytes as they are. */
  const withCustom = (key: string, valueBytes: Uint8Array) => {
    const entry = Writer.create().uint32(0x0a).string(key).uint32(0x12).bytes(valueBytes).finish();
    const struct = Writer.create().uint32(0x0a).bytes(entry).finish();
    return Buffer.from(Writer.create().uint32(0x0a).string('c-1').uint32((99 << 3) | 2).bytes(struct).finish());
  };
  const valueBytes = (...members: object[]) => Buffer.concat(members.map((m) => Buffer.from(value.encode(value.fromObject(m)).finish())));

  test.each([
    ['a string then a number', valueBytes({ stringValue: 'a' }, { numberValue: 2 })],
    ['a number then a string', valueBytes({ numberValue: 2 }, { stringValue: 'a' })],
    ['the same member twice', valueBytes({ stringValue: 'first' }, { stringValue: 'second' })],
    ['null then a list', valueBytes({ nullValue: 'NULL_VALUE' }, { listValue: { values: [{ boolValue: true }] } })],
    ['no member', Buffer.alloc(0)],
  ])('a Value with %s reads as the three passes read it', (_name, bytes) => {
    const encoded = withCustom('k', bytes);
    expect(ours(encoded)).toEqual(threePasses(encoded));
    expect(ours(encoded)).not.toBe('throws');
  });

  test('a custom key __proto__ is left out, as the three passes leave it out', () => {
    const encoded = withCustom('__proto__', valueBytes({ structValue: { fields: { polluted: { boolValue: true } } } }));
    const read = ours(encoded) as { value: Record<string, unknown> };
    expect(read).toEqual(threePasses(encoded));
    expect(Object.hasOwn(read.value, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(read.value)).toBe(Object.prototype);
  });
});
