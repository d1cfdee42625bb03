/**
 * A resource described once. The list-query parser, the keyset SQL compiler, the body validator,
 * the row/record codec and (later) the OpenAPI description are all driven by this declaration, so a
 * new resource is mostly a declaration and a migration.
 */
export type FieldType = 'uuid' | 'string' | 'text' | 'email' | 'url' | 'integer' | 'boolean' | 'datetime' | 'enum' | 'json';

export interface FieldSpec {
  readonly type: FieldType;
  /** Allowed values of an enum field. */
  readonly values?: readonly string[];
  /** Whether null is a legal value (default true for client-writable fields). */
  readonly nullable?: boolean;
  /** Set by the system: ignored in bodies, still returned and usable in queries. */
  readonly readOnly?: boolean;
  /** Must be present (and not null) on create. */
  readonly required?: boolean;
  readonly maxLength?: number;
  /**
   * A `json` field's shape for the OpenAPI description. The owning service validates the value
   * itself (a flow's graph, its schedule); the declaration only carries it as JSON.
   */
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly min?: number;
  readonly max?: number;
  /** Offered as an equality filter on the list. */
  readonly filter?: boolean;
  /** Offered as a sort key on the list. */
  readonly sort?: boolean;
  /** Searched by `q`. */
  readonly search?: boolean;
  /**
   * Another field whose column holds this field's value in every row (written together, never
   * apart): this field's filter, time bounds and sort use that column, so one set of indexes serves
   * both names. A flow run's `started_at` is its enrollment's `enrolled_at`.
   */
  readonly sameAs?: string;
  /**
   * A `json` field whose value moved to a new field number: the name of the old, deprecated field
   * of the resource's proto message that still carries it during a rolling deployment (proto
   * README, Changing a contract). The value is written to both, and read from the field's own
   * number, falling back to the old one when the own is absent (a message from the previous
   * release). Only a message-typed (json) field can tell absent from empty, so only json fields
   * take one. Not part of the API: same name, same values.
   */
  readonly legacyProtoField?: string;
  /**
   * One line for the reference: what the value means, its unit or format, allowed values, who sets
   * it. The OpenAPI description shows it on the property.
   */
  readonly description?: string;
  /** The value the reference's examples show (one is generated from the type when absent). */
  readonly example?: unknown;
}

/** What each generic operation of a resource does and when to use it (the reference shows it). */
export type OperationDocs = Partial<Record<'list' | 'get' | 'create' | 'update' | 'delete', string>>;

export interface ResourceSpec {
  /** Plural path segment and scope resource, e.g. `contacts`. */
  readonly name: string;
  /** Singular noun for messages and events, e.g. `contact`. */
  readonly singular: string;
  readonly table: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** The field `since`/`until` bound; the default order is descending on it. */
  readonly timeField: string;
  readonly maxLimit: number;
  /** Extra properties in bodies are kept and returned as custom fields. */
  readonly customFields: boolean;
  /** On create, at least one of these fields must be given a value. */
  readonly requireOneOf?: readonly string[];
  /** Unique constraints by name → the field a 409 names. */
  readonly uniqueConstraints?: Readonly<Record<string, string>>;
  /**
   * A stored column that `q` searches instead of the search fields one by one: the search fields,
   * lowered, joined by U+001F (which no `q` may contain, so a match never spans two fields), with a
   * trigram index of its own. One `LIKE` per row instead of one `ILIKE` per field, and one index.
   * `searchColumnSql` writes its definition for the migration.
   */
  readonly searchColumn?: string;
  /** What a record is, for the reference (the record schema's description). */
  readonly description?: string;
  /** What each operation does and when to use it, beyond the generic sentence. */
  readonly operationDocs?: OperationDocs;
  /** The merge patch the reference shows for update (default: one field with a declared example). */
  readonly updateExample?: Readonly<Record<string, unknown>>;
  /**
   * Fields the create's answer carries beside the record and no read returns: a value shown once,
   * such as a webhook endpoint's signing secret. They are no column and no field of the record (its
   * schema, a get, a list); they travel in the record's proto message as proto3 `optional` fields
   * set only in that answer (and in the answers of the context's own RPCs that issue them again).
   * The reference describes the create's answer as its own schema, `<Record>Created`.
   */
  readonly createAnswerFields?: Readonly<Record<string, FieldSpec>>;
}

/** The generated column's expression for a resource with a `searchColumn` (its migration uses it). */
export function searchColumnSql(spec: ResourceSpec): string {
  const parts = searchKeys(spec).map((field) => `coalesce(${field}, '')`);
  return `lower(${parts.join(" || chr(31) || ")})`;
}

export const DEFAULT_LIMIT = 50;

/** Fields every record has (gateway/README.md, "Records"). */
export const baseFields = {
  id: { type: 'uuid', readOnly: true, nullable: false, description: 'The record id (UUID), set by the server on create.' },
  svc_uid: {
    type: 'string',
    maxLength: 255,
    filter: true,
    description: "Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key.",
  },
  created_at: { type: 'datetime', readOnly: true, nullable: false, description: 'When the record was created (RFC 3339, UTC), set by the server.' },
  updated_at: { type: 'datetime', readOnly: true, nullable: false, description: 'When the record last changed (RFC 3339, UTC), set by the server.' },
} as const satisfies Record<string, FieldSpec>;

export function defineResource<const S extends ResourceSpec>(spec: S): S {
  const fields = spec.fields;
  for (const key of ['id', 'svc_uid', 'created_at', 'updated_at']) {
    if (!fields[key]) throw new Error(`${spec.name}: missing base field ${key}`);
  }
  if (!fields[spec.timeField]?.sort) throw new Error(`${spec.name}: time field ${spec.timeField} must be sortable`);
  for (const [name, field] of Object.entries(fields)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`${spec.name}: bad field name ${name}`);
    if (field.type === 'enum' && !field.values?.length) throw new Error(`${spec.name}.${name}: enum without values`);
    if (field.type === 'json' && (field.filter || field.sort || field.search)) throw new Error(`${spec.name}.${name}: a json field is not a filter, sort key or search field`);
    if (field.legacyProtoField !== undefined) {
      const legacy = field.legacyProtoField;
      if (field.type !== 'json' || !/^[a-z][a-z0-9_]*$/.test(legacy) || Object.hasOwn(fields, legacy) || legacy === 'custom_fields') {
        throw new Error(`${spec.name}.${name}: legacyProtoField ${legacy} must be a proto field name of no declared field, on a json field`);
      }
    }
    if (field.sameAs !== undefined) {
      const twin = Object.hasOwn(fields, field.sameAs) ? fields[field.sameAs] : undefined;
      if (!twin || twin.sameAs !== undefined || twin.type !== field.type || isNullable(twin) !== isNullable(field)) {
        throw new Error(`${spec.name}.${name}: sameAs names ${field.sameAs}, which must be another field of the same type and nullability`);
      }
    }
  }
  for (const [name, field] of Object.entries(spec.createAnswerFields ?? {})) {
    if (!/^[a-z][a-z0-9_]*$/.test(name) || Object.hasOwn(fields, name) || name === 'custom_fields') {
      throw new Error(`${spec.name}: create answer field ${name} must be a proto field name of no declared field`);
    }
    if (!field.readOnly || field.type === 'json' || field.filter || field.sort || field.search || field.sameAs !== undefined) {
      throw new Error(`${spec.name}.${name}: a create answer field is read-only, scalar, and no filter, sort key or search field`);
    }
  }
  return spec;
}

/** The column a field's filter, time bounds and sort use: its own, or its twin's (`sameAs`). */
export const queryColumn = (spec: ResourceSpec, name: string): string => spec.fields[name]?.sameAs ?? name;

/**
 * The declared field of this name, never a member of Object.prototype: `toString` or `__proto__`
 * in a body is an unknown property like any other.
 */
export const declaredField = (spec: ResourceSpec, name: string): FieldSpec | undefined =>
  Object.hasOwn(spec.fields, name) ? spec.fields[name] : undefined;

export const isNullable = (field: FieldSpec): boolean => field.nullable ?? !field.readOnly;
export const sortKeys = (spec: ResourceSpec): string[] => Object.keys(spec.fields).filter((k) => spec.fields[k]!.sort);
export const filterKeys = (spec: ResourceSpec): string[] =>
  Object.keys(spec.fields).filter((k) => spec.fields[k]!.filter);
export const searchKeys = (spec: ResourceSpec): string[] =>
  Object.keys(spec.fields).filter((k) => spec.fields[k]!.search);
