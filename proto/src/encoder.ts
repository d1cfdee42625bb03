import * as protobuf from 'protobufjs';

/**
 * A message's serializer, compiled from its protobufjs type: the same bytes as what
 * @grpc/proto-loader does (`Type.encode(Type.fromObject(value)).finish()`), written in one pass
 * into one buffer.
 *
 * Why: protobufjs first queues an operation per value (measuring each string's UTF-8 length), then
 * runs the queue into the buffer. For a page of 50 contacts that was about 0.45 ms of the people
 * service's CPU per list answer, the largest single piece after the query (proto/README.md, "The
 * request path's encoding"; the figures: test/bench/HISTORY.md, 2026-11-26, "People: where a
 * list's time goes"). Here strings of fewer than 40 characters are written as they are
 * read, and a nested message reserves one byte for its length and moves its bytes on only when it
 * turns out longer than 127.
 *
 * The conversions are protobufjs's own: `String()`, `| 0`, `Number()`, `Boolean()`, enum names to
 * numbers; a value that is not an object where a message is expected, or an array where a repeated
 * field is, throws. Only the field kinds this project's protos use are compiled (string, int32,
 * bool, double, enums, messages, repeated strings and messages, packed repeated bools and int32s,
 * maps from strings to strings, int32 or messages); a type with any other kind is left to
 * protobufjs (`compileEncoder` answers undefined). `proto/src/encoder.test.ts` holds every message
 * of every proto to protobufjs's bytes.
 */
export type Encoder = (value: object) => Buffer;

const RECURSION_LIMIT = () => protobuf.util.recursionLimit;

/** The shared output: one buffer that grows as needed, copied out at the end of each message. */
class Sink {
  buf = Buffer.allocUnsafe(64 * 1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
      this.buf.copy(next, 0, 0, this.pos);
      this.buf = next;
    }
  }

  varint(value: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (value > 127) {
      buf[pos++] = (value & 127) | 128;
      value >>>= 7;
    }
    buf[pos++] = value;
    this.pos = pos;
  }

  /** protobufjs's `int32`: a negative value is ten bytes, sign-extended to 64 bits. */
  int32(value: number): void {
    if (!(value < 0)) {
      this.varint(value >>> 0);
      return;
    }
    const bits = protobuf.util.LongBits.fromNumber(value);
    let lo = bits.lo;
    let hi = bits.hi;
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  bool(value: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /**
   * A length-prefixed string. Under 40 characters it is at most 117 bytes, so its length is one
   * byte, and it is encoded here as protobufjs's `utf8.write` does (a lone surrogate as three bytes);
   * longer ones go to Buffer's encoder, as protobufjs sends them.
   */
  string(value: string): void {
    const n = value.length;
    if (n >= 40) {
      const length = Buffer.byteLength(value);
      this.varint(length);
      this.ensure(length);
      this.pos += this.buf.write(value, this.pos, length, 'utf8');
      return;
    }
    this.ensure(1 + 3 * n);
    const buf = this.buf;
    const start = this.pos + 1;
    let pos = start;
    for (let i = 0; i < n; i++) {
      let c = value.charCodeAt(i);
      if (c < 128) {
        buf[pos++] = c;
      } else if (c < 2048) {
        buf[pos++] = (c >> 6) | 192;
        buf[pos++] = (c & 63) | 128;
      } else {
        const next = i + 1 < n ? value.charCodeAt(i + 1) : 0;
        if ((c & 0xfc00) === 0xd800 && (next & 0xfc00) === 0xdc00) {
          c = 0x10000 + ((c & 0x03ff) << 10) + (next & 0x03ff);
          i++;
          buf[pos++] = (c >> 18) | 240;
          buf[pos++] = ((c >> 12) & 63) | 128;
          buf[pos++] = ((c >> 6) & 63) | 128;
          buf[pos++] = (c & 63) | 128;
        } else {
          buf[pos++] = (c >> 12) | 224;
          buf[pos++] = ((c >> 6) & 63) | 128;
          buf[pos++] = (c & 63) | 128;
        }
      }
    }
    buf[start - 1] = pos - start;
    this.pos = pos;
  }

  /** Starts a length-delimited part: one byte is reserved for its length. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the part begun at `start`, moving its bytes on when its length needs more than one byte. */
  end(start: number): void {
    const length = this.pos - start - 1;
    if (length < 128) {
      this.buf[start] = length;
      return;
    }
    let size = 1;
    for (let rest = length >>> 7; rest; rest >>>= 7) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    this.pos += size - 1;
    const end = this.pos;
    this.pos = start;
    this.varint(length);
    this.pos = end;
  }
}

const isObject = (value: unknown): boolean => Boolean(value) && typeof value === 'object';

class Unsupported extends Error {}

/** What the generated code calls: the sink's methods and the checks, by short names. */
interface Runtime {
  isObject: typeof isObject;
  hasOwn: typeof Object.hasOwn;
  limit: () => number;
}

type Writer = (value: Record<string, unknown>, sink: Sink, depth: number) => void;

/** The body that writes one value of a field's type (`v`), its tag already written. */
function valueCode(field: protobuf.Field, types: protobuf.Type[], v: string, where: string): string {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    let index = types.indexOf(resolved);
    if (index < 0) index = types.push(resolved) - 1;
    return `if (!rt.isObject(${v})) throw TypeError(${JSON.stringify(`${where}: object expected`)});
      { const start = sink.begin(); writers[${index}](${v}, sink, depth + 1); sink.end(start); }`;
  }
  if (resolved instanceof protobuf.Enum) throw new Unsupported('enum here');
  switch (field.type) {
    case 'string':
      return `sink.string(String(${v}));`;
    case 'int32':
      return `sink.int32(${v} | 0);`;
    case 'bool':
      return `sink.bool(Boolean(${v}));`;
    case 'double':
      return `sink.double(Number(${v}));`;
    default:
      throw new Unsupported(field.type);
  }
}

const WIRE_TYPE: Record<string, number> = { string: 2, int32: 0, bool: 0, double: 1 };

function wireType(field: protobuf.Field): number {
  if (field.resolvedType instanceof protobuf.Type) return 2;
  if (field.resolvedType instanceof protobuf.Enum) return 0;
  const wire = WIRE_TYPE[field.type];
  if (wire === undefined) throw new Unsupported(field.type);
  return wire;
}

const tag = (id: number, wire: number) => ((id << 3) | wire) >>> 0;

/** The source of one type's writer; nested types are added to `types` and written by index. */
function typeCode(type: protobuf.Type, types: protobuf.Type[], enums: Record<string, number>[]): string {
  const name = type.fullName;
  const lines: string[] = [];
  for (const field of type.fieldsArray.slice().sort((a, b) => a.id - b.id)) {
    field.resolve();
    // proto2's required fields are written even when unset: left to protobufjs (no proto of ours has one).
    if (field.required) throw new Unsupported('required');
    const key = JSON.stringify(field.name);
    const where = `${name}.${field.name}`;
    if (field instanceof protobuf.MapField) {
      if (field.keyType !== 'string') throw new Unsupported(`map key ${field.keyType}`);
      const valueTag = tag(2, wireType(field));
      lines.push(`v = value[${key}];
        if (v) {
          if (!rt.isObject(v)) throw TypeError(${JSON.stringify(`${where}: object expected`)});
          for (const k of Object.keys(v)) {
            const e = v[k];
            sink.varint(${tag(field.id, 2)});
            const entry = sink.begin();
            sink.varint(10); sink.string(k);
            sink.varint(${valueTag});
            ${valueCode(field, types, 'e', where)}
            sink.end(entry);
          }
        }`);
    } else if (field.repeated && wireType(field) !== 2) {
      // proto3 packs repeated scalars: one length-delimited field holding every value; protobufjs
      // writes nothing for an empty array.
      if (!field.packed || wireType(field) !== 0 || field.resolvedType) throw new Unsupported(`repeated ${field.type}`);
      lines.push(`v = value[${key}];
        if (v) {
          if (!Array.isArray(v)) throw TypeError(${JSON.stringify(`${where}: array expected`)});
          if (v.length) {
            sink.varint(${tag(field.id, 2)});
            const start = sink.begin();
            for (let i = 0; i < v.length; i++) {
              const e = v[i];
              ${valueCode(field, types, 'e', where)}
            }
            sink.end(start);
          }
        }`);
    } else if (field.repeated) {
      lines.push(`v = value[${key}];
        if (v) {
          if (!Array.isArray(v)) throw TypeError(${JSON.stringify(`${where}: array expected`)});
          for (let i = 0; i < v.length; i++) {
            const e = v[i];
            sink.varint(${tag(field.id, 2)});
            ${valueCode(field, types, 'e', where)}
          }
        }`);
    } else if (field.resolvedType instanceof protobuf.Enum) {
      const index = enums.push(field.resolvedType.values) - 1;
      // protobufjs: a number as it is, a known name as its number, anything else left out.
      lines.push(`v = value[${key}];
        v = typeof v === 'number' ? v : typeof v === 'string' && rt.hasOwn(enums[${index}], v) ? enums[${index}][v] : undefined;
        if (v !== undefined) { sink.varint(${tag(field.id, 0)}); sink.int32(v); }`);
    } else {
      lines.push(`v = value[${key}];
        if (v != null) { sink.varint(${tag(field.id, wireType(field))}); ${valueCode(field, types, 'v', where)} }`);
    }
  }
  return `function write(value, sink, depth) {
      if (!rt.isObject(value)) throw TypeError(${JSON.stringify(`${name}: object expected`)});
      if (depth > rt.limit()) throw Error('maximum nesting depth exceeded');
      let v;
      ${lines.join('\n')}
    }`;
}

const sink = new Sink();
const runtime: Runtime = { isObject, hasOwn: Object.hasOwn, limit: RECURSION_LIMIT };

/**
 * The compiled serializer of `type` and every type it holds, or undefined when one of them has a
 * field kind this compiler leaves to protobufjs.
 */
export function compileEncoder(type: protobuf.Type): Encoder | undefined {
  const types: protobuf.Type[] = [type];
  const enums: Record<string, number>[] = [];
  const sources: string[] = [];
  try {
    for (let i = 0; i < types.length; i++) sources.push(typeCode(types[i]!, types, enums));
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  const writers: Writer[] = new Function(
    'rt',
    'enums',
    `const writers = [];
    ${sources.map((source) => `writers.push(${source});`).join('\n')}
    return writers;`,
  )(runtime, enums);
  const write = writers[0]!;
  return (value: object) => {
    // As @grpc/proto-loader's serializer: an array is refused before anything else.
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    sink.pos = 0;
    write(value as Record<string, unknown>, sink, 0);
    const out = Buffer.allocUnsafe(sink.pos);
    sink.buf.copy(out, 0, 0, sink.pos);
    // A very large message does not keep its buffer for every later one.
    if (sink.buf.length > 1024 * 1024) sink.buf = Buffer.allocUnsafe(64 * 1024);
    return out;
  };
}
