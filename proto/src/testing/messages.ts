import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import * as protobuf from 'protobufjs';
import { loadTypes, protoRoot } from '../index';

/**
 * Every message type of every proto of the project (and the well-known types they use), the types
 * its services take and answer, and values for each: well-formed ones and ones of the wrong kind.
 * What the compiled encoder is tested over.
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

export const types = new Map<string, protobuf.Type>();
export const servedTypes = new Set<string>();
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

export function messageOf(type: protobuf.Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
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

