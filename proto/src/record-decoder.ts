import * as protobuf from 'protobufjs';

/**
 * Decodes a resource's message straight into its API record, and a list answer into records: one
 * pass over the bytes instead of three (protobufjs's `decode`, its `toObject`, then kit's
 * `messageToRecord`). The gateway's resource routes read every answer this way (proto/README.md,
 * "The request path's encoding"; the figures: test/bench/HISTORY.md, 2026-11-26, "People: where a
 * list's time goes").
 *
 * The record is exactly what the three passes give (gateway/src/routes/record-decoding.test.ts
 * holds every resource of every context to them): each declared field in order (absent: null for
 * an optional or a message field, the proto3 default for another), a json field as the JSON value
 * its `google.protobuf.Value` holds (when absent, its old field's, `legacy`, if it has one), then
 * the custom properties of `custom_fields` that do not repeat a declared name. Bytes are read by
 * protobufjs's own Reader. A `__proto__` custom key is left out, as the three passes leave it out.
 */
export interface RecordField {
  name: string;
  /** Carried as a google.protobuf.Value. */
  json: boolean;
  /**
   * A json field's old, deprecated proto field (the declaration's `legacyProtoField`): read when
   * the field's own number is absent from the message, as messageToRecord reads it.
   */
  legacy?: string;
}

export type RecordOf = (bytes: Buffer) => Record<string, unknown>;
export type RecordPageOf = (bytes: Buffer) => { data: Record<string, unknown>[]; page: { next_cursor: string; has_more: boolean } | null };

type Reader = protobuf.Reader;
const limit = () => protobuf.util.recursionLimit;

/** Opens a nested message of `length` bytes (undefined: the whole buffer): its end, and the limit to restore. */
function open(r: Reader, length: number | undefined, depth: number): [end: number, outer: number | undefined] {
  if (depth > limit()) throw Error('maximum nesting depth exceeded');
  if (length === undefined) return [r.len, undefined];
  const end = r.pos + length;
  if (end > r.len) throw RangeError('index out of range');
  const outer = r.len;
  r.len = end;
  return [end, outer];
}

function close(r: Reader, end: number, outer: number | undefined): void {
  if (outer === undefined) return;
  if (r.pos !== end) throw RangeError('index out of range');
  r.len = outer;
}

/** A google.protobuf.Value as the JSON value it holds (its last-numbered member that is set). */
export function readValue(r: Reader, length: number | undefined, depth: number): unknown {
  const [end, outer] = open(r, length, depth);
  let kind = 0;
  let value: unknown = null;
  const take = (member: number, read: unknown) => {
    // Several members on the wire: toObject names the one of highest number, whatever the order.
    if (member >= kind) {
      kind = member;
      value = read;
    }
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t >>> 3) {
      case 1:
        r.int32();
        take(1, null);
        break;
      case 2:
        take(2, r.double());
        break;
      case 3:
        take(3, r.string());
        break;
      case 4:
        take(4, r.bool());
        break;
      case 5:
        take(5, readStruct(r, r.uint32(), depth + 1));
        break;
      case 6:
        take(6, readList(r, r.uint32(), depth + 1));
        break;
      default:
        r.skipType(t & 7, depth);
    }
  }
  close(r, end, outer);
  return value;
}

/** A google.protobuf.Struct as a plain object. */
export function readStruct(r: Reader, length: number | undefined, depth: number): Record<string, unknown> {
  const [end, outer] = open(r, length, depth);
  const out: Record<string, unknown> = {};
  while (r.pos < end) {
    const t = r.uint32();
    if (t >>> 3 !== 1) {
      r.skipType(t & 7, depth);
      continue;
    }
    const entryEnd = r.uint32() + r.pos;
    if (entryEnd > r.len) throw RangeError('index out of range');
    r.len = entryEnd;
    let key = '';
    let value: unknown;
    let present = false;
    while (r.pos < entryEnd) {
      const t2 = r.uint32();
      switch (t2 >>> 3) {
        case 1:
          key = r.string();
          break;
        case 2:
          value = readValue(r, r.uint32(), depth + 1);
          present = true;
          break;
        default:
          r.skipType(t2 & 7, depth);
      }
    }
    if (r.pos !== entryEnd) throw RangeError('index out of range');
    r.len = end;
    // An entry without a value is one protobufjs's toObject fails on.
    if (!present) throw new TypeError('a Struct entry has no value');
    if (key !== '__proto__') out[key] = value;
  }
  close(r, end, outer);
  return out;
}

function readList(r: Reader, length: number, depth: number): unknown[] {
  const [end, outer] = open(r, length, depth);
  const values: unknown[] = [];
  while (r.pos < end) {
    const t = r.uint32();
    if (t >>> 3 === 1) values.push(readValue(r, r.uint32(), depth + 1));
    else r.skipType(t & 7, depth);
  }
  close(r, end, outer);
  return values;
}

class Unsupported extends Error {}

const SCALAR_READ: Record<string, { read: string; absent: string }> = {
  string: { read: 'r.string()', absent: '""' },
  int32: { read: 'r.int32()', absent: '0' },
  bool: { read: 'r.bool()', absent: 'false' },
  double: { read: 'r.double()', absent: '0' },
};

type ReadRecord = (r: Reader, length: number | undefined, depth: number) => Record<string, unknown>;

/** The reader of one resource message, or undefined when a declared field's kind is not one it knows. */
function compileRecordReader(type: protobuf.Type, fields: readonly RecordField[]): ReadRecord | undefined {
  const cases: string[] = [];
  const values: string[] = [];
  let customCase = '';
  for (const [i, declared] of fields.entries()) {
    const field = type.fields[declared.name];
    const key = JSON.stringify(declared.name);
    if (!field) {
      values.push(`${key}: null`);
      continue;
    }
    field.resolve();
    if (field.repeated || field.map) return undefined;
    const optional = Boolean(field.partOf);
    if (declared.json) {
      if (field.resolvedType?.fullName !== '.google.protobuf.Value') return undefined;
      cases.push(`case ${field.id}: m.f${i} = rt.readValue(r, r.uint32(), depth + 1); break;`);
      const legacy = declared.legacy === undefined ? undefined : type.fields[declared.legacy];
      if (legacy) {
        legacy.resolve();
        if (legacy.repeated || legacy.resolvedType?.fullName !== '.google.protobuf.Value') return undefined;
        // The own field starts undefined (absent), the old one null: the own wins whenever present.
        cases.push(`case ${legacy.id}: m.l${i} = rt.readValue(r, r.uint32(), depth + 1); break;`);
        values.push(`${key}: m.f${i} === undefined ? m.l${i} : m.f${i}`);
      } else {
        values.push(`${key}: m.f${i}`);
      }
      continue;
    }
    const scalar = field.resolvedType ? undefined : SCALAR_READ[field.type];
    if (!scalar) return undefined;
    cases.push(`case ${field.id}: m.f${i} = ${scalar.read}; break;`);
    values.push(`${key}: m.f${i} === undefined ? ${optional ? 'null' : scalar.absent} : m.f${i}`);
  }
  // A field of the message that is not declared is read as protobufjs reads it (its wire type is
  // not checked, so a mismatch fails, or not, the same way) and dropped, as messageToRecord drops it.
  const declaredNames = new Set(fields.flatMap((field) => (field.json && field.legacy ? [field.name, field.legacy] : [field.name])));
  const nested: protobuf.Type[] = [];
  for (const field of type.fieldsArray) {
    if (declaredNames.has(field.name) || field.name === 'custom_fields') continue;
    field.resolve();
    if (field.repeated || field.map) return undefined;
    if (field.resolvedType instanceof protobuf.Type) {
      cases.push(`case ${field.id}: rt.nested[${nested.push(field.resolvedType) - 1}].decode(r, r.uint32(), undefined, depth + 1); break;`);
      continue;
    }
    const scalar = field.resolvedType ? undefined : SCALAR_READ[field.type];
    if (!scalar) return undefined;
    cases.push(`case ${field.id}: ${scalar.read}; break;`);
  }
  const custom = type.fields.custom_fields;
  if (custom) {
    custom.resolve();
    if (custom.resolvedType?.fullName !== '.google.protobuf.Struct' || custom.repeated) return undefined;
    customCase = `case ${custom.id}: custom = rt.readStruct(r, r.uint32(), depth + 1); break;`;
  }
  return new Function(
    'rt',
    `return function readRecord(r, length, depth) {
      const [end, outer] = rt.open(r, length, depth);
      const m = { ${fields
        .map((field, i) => (field.json && field.legacy && type.fields[field.legacy] ? `f${i}: undefined, l${i}: null` : `f${i}: ${field.json ? 'null' : 'undefined'}`))
        .join(', ')} };
      let custom;
      while (r.pos < end) {
        const t = r.uint32();
        switch (t >>> 3) {
          ${cases.join('\n')}
          ${customCase}
          default: r.skipType(t & 7, depth);
        }
      }
      rt.close(r, end, outer);
      const record = { ${values.join(', ')} };
      if (custom) for (const name of Object.keys(custom)) if (!Object.hasOwn(record, name)) record[name] = custom[name];
      return record;
    }`,
  )({ open, close, readValue, readStruct, nested }) as ReadRecord;
}

export interface RecordDecoders {
  /** A get, create or update answer: the resource's message. */
  record: RecordOf;
  /** A list answer: `data` (repeated resource message) and `page`. */
  page: RecordPageOf;
}

/**
 * The decoders of a resource whose message is `type` and whose list answer is `listType`, or
 * undefined when either has a shape this module does not read (the caller keeps the three passes).
 */
export function compileRecordDecoders(type: protobuf.Type, listType: protobuf.Type, fields: readonly RecordField[]): RecordDecoders | undefined {
  const readRecord = compileRecordReader(type, fields);
  const data = listType.fields.data;
  const page = listType.fields.page;
  if (!readRecord || !data || !page) return undefined;
  data.resolve();
  page.resolve();
  if (!data.repeated || data.resolvedType !== type || page.repeated || page.resolvedType?.fullName !== '.crm.common.v1.PageInfo') return undefined;
  const readPage = (r: Reader, length: number, depth: number) => {
    const [end, outer] = open(r, length, depth);
    let nextCursor: string | undefined;
    let hasMore: boolean | undefined;
    while (r.pos < end) {
      const t = r.uint32();
      switch (t >>> 3) {
        case 1:
          nextCursor = r.string();
          break;
        case 2:
          hasMore = r.bool();
          break;
        default:
          r.skipType(t & 7, depth);
      }
    }
    close(r, end, outer);
    return { next_cursor: nextCursor ?? '', has_more: hasMore ?? false };
  };
  return {
    record: (bytes) => readRecord(protobuf.Reader.create(bytes), undefined, 0),
    page(bytes) {
      const r = protobuf.Reader.create(bytes);
      const records: Record<string, unknown>[] = [];
      let pageInfo: { next_cursor: string; has_more: boolean } | null = null;
      while (r.pos < r.len) {
        const t = r.uint32();
        switch (t >>> 3) {
          case data.id:
            records.push(readRecord(r, r.uint32(), 1));
            break;
          case page.id:
            pageInfo = readPage(r, r.uint32(), 1);
            break;
          default:
            r.skipType(t & 7, 0);
        }
      }
      return { data: records, page: pageInfo };
    },
  };
}
