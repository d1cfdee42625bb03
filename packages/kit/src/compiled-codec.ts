import { fromProtoValue, toProtoValue } from './proto-values';
import type { ResourceSpec } from './resource';

type Row = Record<string, unknown>;

/**
 * A declaration's three record mappings (row → record, record → message, message → record),
 * compiled once into functions that build each object as one literal of the declared fields.
 *
 * Why: a list answer maps every row three times, and a loop over the declaration that sets
 * `record[key]` is a keyed store of a changing shape per field. Measured on a page of 50 contacts,
 * the loops cost 3 to 17 times what the literals do (packages/kit/README.md, "The request path's
 * own cost"; the figures: test/bench/HISTORY.md, 2026-11-26, "People: where a list's time goes").
 * The field names are the declaration's (`defineResource` admits only `[a-z][a-z0-9_]*`), written
 * as quoted keys all the same.
 */
export interface RecordCodec {
  /** A row as the API returns it: declared fields in order (Date → ISO string, missing → null), then custom ones. */
  rowToRecord(row: Row): Row;
  /** The resource's gRPC message: declared fields that hold a value (json as a Value, also in its legacyProtoField), the rest in `custom_fields`. */
  recordToMessage(record: Row): Row;
  /** The record a message carries: every declared field (absent → its legacyProtoField, else null), then the custom ones. */
  messageToRecord(message: Row): Row;
}

const codecs = new WeakMap<ResourceSpec, RecordCodec>();

/** The compiled mappings of a declaration (compiled on first use, then reused). */
export function recordCodec(spec: ResourceSpec): RecordCodec {
  let codec = codecs.get(spec);
  if (!codec) {
    codec = compile(spec);
    codecs.set(spec, codec);
  }
  return codec;
}

const plain = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : (value ?? null));

function compile(spec: ResourceSpec): RecordCodec {
  const names = Object.keys(spec.fields);
  const declared = new Set(names);
  const isJson = (name: string) => spec.fields[name]!.type === 'json';
  const key = (name: string) => JSON.stringify(name);
  // A json field's old proto field (legacyProtoField): written alongside, read when the own is absent.
  const legacy = (name: string) => spec.fields[name]!.legacyProtoField;
  const hasOwn = Object.hasOwn;

  const rowToRecord = new Function(
    'plain',
    'hasOwn',
    `return function rowToRecord(row) {
      const record = { ${names.map((name) => `${key(name)}: plain(row[${key(name)}])`).join(', ')} };
      const custom = row.custom;
      if (custom) for (const name of Object.keys(custom)) if (!hasOwn(record, name)) record[name] = custom[name];
      return record;
    }`,
  )(plain, hasOwn) as RecordCodec['rowToRecord'];

  const recordToMessage = new Function(
    'toProtoValue',
    'declared',
    `return function recordToMessage(record) {
      const message = {};
      let value;
      ${names
        .map(
          (name) =>
            `value = record[${key(name)}]; if (value !== null && value !== undefined) ${legacy(name) ? `message[${key(legacy(name)!)}] = ` : ''}message[${key(name)}] = ${isJson(name) ? 'toProtoValue(value)' : 'value'};`,
        )
        .join('\n')}
      const fields = {};
      for (const name of Object.keys(record)) if (!declared.has(name)) fields[name] = toProtoValue(record[name]);
      message.custom_fields = { fields };
      return message;
    }`,
  )(toProtoValue, declared) as RecordCodec['recordToMessage'];

  const messageToRecord = new Function(
    'fromProtoValue',
    'hasOwn',
    `return function messageToRecord(message) {
      let value;
      const record = { ${names
        .map(
          (name) =>
            `${key(name)}: (value = message[${key(name)}]) === undefined || value === null ${
              legacy(name) ? `? ((value = message[${key(legacy(name)!)}]) === undefined || value === null ? null : fromProtoValue(value))` : '? null'
            } : ${isJson(name) ? 'fromProtoValue(value)' : 'value'}`,
        )
        .join(', ')} };
      const fields = message.custom_fields ? message.custom_fields.fields : undefined;
      if (fields) for (const name of Object.keys(fields)) if (!hasOwn(record, name)) record[name] = fromProtoValue(fields[name]);
      return record;
    }`,
  )(fromProtoValue, hasOwn) as RecordCodec['messageToRecord'];

  return { rowToRecord, recordToMessage, messageToRecord };
}
