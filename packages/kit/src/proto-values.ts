import type { Struct, Value } from '@crm/proto';

// google.protobuf.Struct / Value, as @grpc/proto-loader represents them with `oneofs: true`.
export type ProtoValue = Value;
export type ProtoStruct = Struct;

export function toProtoValue(value: unknown): ProtoValue {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toProtoValue) } };
  if (typeof value === 'object') return { structValue: toStruct(value as Record<string, unknown>) };
  throw new Error(`cannot encode ${typeof value} as a protobuf Value`);
}

export function toStruct(object: Record<string, unknown>): ProtoStruct {
  return { fields: Object.fromEntries(Object.entries(object).map(([k, v]) => [k, toProtoValue(v)])) };
}

export function fromProtoValue(value: ProtoValue | undefined | null): unknown {
  if (!value) return null;
  const kind =
    value.kind ??
    (['nullValue', 'numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'] as const).find(
      (k) => value[k] !== undefined && value[k] !== null,
    );
  switch (kind) {
    case 'numberValue':
      return value.numberValue;
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'structValue':
      return fromStruct(value.structValue);
    case 'listValue':
      return (value.listValue?.values ?? []).map(fromProtoValue);
    default:
      return null;
  }
}

export function fromStruct(struct: ProtoStruct | undefined | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) out[key] = fromProtoValue(value);
  return out;
}
