import * as path from 'node:path';
import { protoRoot } from '@crm/proto';
import * as protobuf from 'protobufjs';
import { type ContextApi, type ResourceRoute, pascal, rpcName } from '../context-api';
import { type Migration, runMigrations } from '../migrate';
import { type FieldSpec, type ResourceSpec, filterKeys, isNullable, queryColumn, searchColumnSql, sortKeys } from '../resource';
import { createPgliteClient } from '../sql';

/**
 * Parity of a context's four descriptions of each resource: the declaration (what the gateway
 * validates and documents), the proto message (what travels), the table (what is stored) and its
 * indexes (what makes every list a seek). Returns one line per disagreement, naming the resource
 * and the field, so a field added to one and not the others fails CI with a message that says
 * where.
 *
 * - proto: one field per declared field, of the matching scalar type, proto3 `optional` exactly
 *   where the field may be null, plus `custom_fields` (google.protobuf.Struct) when the resource
 *   keeps custom fields, plus each field's `legacyProtoField` (the same type, deprecated), plus each
 *   `createAnswerFields` entry (proto3 `optional`, no column); the RPC
 *   of each routed operation exists.
 * - table: one column per declared field, of the matching type and nullability, plus
 *   `workspace_id` and (for custom fields) `custom`; nothing else.
 * - indexes: per sort key, one leading (workspace_id, key, id); per filter, one leading
 *   (workspace_id, filter, time field, id), so a filtered list in the default order is a seek
 *   (`svc_uid` is served by its unique index). The primary key is (workspace_id, id)
 *   (packages/kit/README.md, "Tenancy in every key").
 */
export interface ParityOptions {
  api: ContextApi<any, readonly ResourceRoute[]>;
  migrations: readonly Migration[];
  /** The context's proto file under proto/, e.g. `crm/people/v1/people.proto`. */
  protoFile: string;
  /** Columns a service keeps for itself beside a resource's (engine state), by table: never API fields. */
  internalColumns?: Readonly<Record<string, readonly string[]>>;
}

const PROTO_TYPES: Record<FieldSpec['type'], string> = {
  uuid: 'string',
  string: 'string',
  text: 'string',
  email: 'string',
  url: 'string',
  datetime: 'string',
  enum: 'string',
  integer: 'int32',
  boolean: 'bool',
  json: 'google.protobuf.Value',
};

const SQL_TYPES: Record<FieldSpec['type'], string> = {
  uuid: 'uuid',
  string: 'text',
  text: 'text',
  email: 'text',
  url: 'text',
  datetime: 'timestamp with time zone',
  enum: 'text',
  integer: 'integer',
  boolean: 'boolean',
  json: 'jsonb',
};

/** What the store may hold in a field: null only where a write may leave or set it null. */
const storedNullable = (field: FieldSpec) => isNullable(field) && !field.required;

function loadProto(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(protoRoot, target));
  return root.loadSync(file, { keepCase: true });
}

function protoProblems(root: protobuf.Root, pkg: string, service: string, route: ResourceRoute): string[] {
  const { spec } = route;
  const problems: string[] = [];
  const where = `${spec.name}: proto ${pkg}.${pascal(spec.singular)}`;
  let message: protobuf.Type;
  try {
    message = root.lookupType(`${pkg}.${pascal(spec.singular)}`);
  } catch {
    return [`${where} does not exist`];
  }
  for (const [name, field] of Object.entries(spec.fields)) {
    const proto = message.fields[name];
    if (!proto) {
      problems.push(`${where} has no field ${name} (declared ${field.type})`);
      continue;
    }
    if (proto.type !== PROTO_TYPES[field.type] || proto.repeated) {
      problems.push(`${where}.${name} is ${proto.repeated ? 'repeated ' : ''}${proto.type}, the declaration says ${field.type} (${PROTO_TYPES[field.type]})`);
    }
    const optional = Boolean(proto.options?.proto3_optional);
    if (optional !== storedNullable(field)) {
      problems.push(`${where}.${name} is ${optional ? '' : 'not '}optional, but the field ${storedNullable(field) ? 'may' : 'may not'} be null`);
    }
    if (field.legacyProtoField !== undefined) {
      const legacy = message.fields[field.legacyProtoField];
      if (!legacy) problems.push(`${where} has no field ${field.legacyProtoField}, the legacyProtoField of ${name}`);
      else if (legacy.type !== proto.type || legacy.repeated || legacy.options?.deprecated !== true) {
        problems.push(`${where}.${field.legacyProtoField}, the legacyProtoField of ${name}, must be a [deprecated = true] ${proto.type} like it`);
      }
    }
  }
  // A create answer field (a secret shown once): in the message, proto3 optional, set only in that answer.
  for (const [name, field] of Object.entries(spec.createAnswerFields ?? {})) {
    const proto = message.fields[name];
    if (!proto) problems.push(`${where} has no field ${name} (a create answer field, ${field.type})`);
    else if (proto.type !== PROTO_TYPES[field.type] || proto.repeated || !proto.options?.proto3_optional) {
      problems.push(`${where}.${name} must be an optional ${PROTO_TYPES[field.type]}: a create answer field, unset in every other answer`);
    }
  }
  const legacyNames = new Set(Object.values(spec.fields).flatMap((field) => (field.legacyProtoField === undefined ? [] : [field.legacyProtoField])));
  for (const name of Object.keys(message.fields)) {
    if (legacyNames.has(name) || Object.hasOwn(spec.createAnswerFields ?? {}, name)) continue;
    if (name === 'custom_fields') {
      if (!spec.customFields) problems.push(`${where} has custom_fields, but ${spec.name} keeps no custom fields`);
      else if (message.fields[name]!.type !== 'google.protobuf.Struct') problems.push(`${where}.custom_fields is not a google.protobuf.Struct`);
    } else if (!Object.hasOwn(spec.fields, name)) {
      problems.push(`${where} has field ${name}, which the declaration lacks`);
    }
  }
  if (spec.customFields && !message.fields.custom_fields) problems.push(`${where} has no custom_fields`);
  const methods = root.lookupService(`${pkg}.${service}`).methods;
  for (const operation of route.operations) {
    const rpc = rpcName(spec, operation);
    if (!methods[rpc]) problems.push(`${spec.name}: ${pkg}.${service} has no RPC ${rpc} (operation ${operation})`);
  }
  return problems;
}

interface Column {
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

/** One table's disagreements with its declaration (exported for its own test). */
export async function tableProblems(
  query: <R>(text: string, params?: unknown[]) => Promise<R[]>,
  spec: ResourceSpec,
  internal: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  const where = `${spec.name}: table ${spec.table}`;
  const columns = await query<Column>(
    `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
    [spec.table],
  );
  if (!columns.length) return [`${where} does not exist`];
  const byName = new Map(columns.map((c) => [c.column_name, c]));
  for (const [name, field] of Object.entries(spec.fields)) {
    const column = byName.get(name);
    if (!column) {
      problems.push(`${where} has no column ${name} (declared ${field.type})`);
      continue;
    }
    if (column.data_type !== SQL_TYPES[field.type]) problems.push(`${where}.${name} is ${column.data_type}, the declaration says ${field.type} (${SQL_TYPES[field.type]})`);
    const nullable = column.is_nullable === 'YES';
    if (nullable !== storedNullable(field)) {
      problems.push(`${where}.${name} is ${nullable ? 'NULL' : 'NOT NULL'}, but the field ${storedNullable(field) ? 'may' : 'may not'} be null`);
    }
  }
  const expectExtra = (name: string, type: string) => {
    const column = byName.get(name);
    if (!column) problems.push(`${where} has no column ${name}`);
    else if (column.data_type !== type || column.is_nullable !== 'NO') problems.push(`${where}.${name} must be ${type} NOT NULL`);
  };
  expectExtra('workspace_id', 'uuid');
  if (spec.customFields) expectExtra('custom', 'jsonb');
  if (spec.searchColumn) {
    // The search column: generated from the search fields exactly as searchColumnSql writes it.
    const [generated] = await query<{ expression: string | null }>(
      `SELECT pg_get_expr(d.adbin, d.adrelid) AS expression
         FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        WHERE d.adrelid = (current_schema() || '.' || $1)::regclass AND a.attname = $2`,
      [spec.table, spec.searchColumn],
    );
    const normal = (sql: string) => sql.replace(/::text/g, '').replace(/[\s()]/g, '').toLowerCase();
    if (!byName.has(spec.searchColumn)) problems.push(`${where} has no search column ${spec.searchColumn}`);
    else if (!generated?.expression || normal(generated.expression) !== normal(searchColumnSql(spec))) {
      problems.push(`${where}.${spec.searchColumn} is not generated as ${searchColumnSql(spec)} (it is ${generated?.expression ?? 'not generated'})`);
    }
  }
  for (const name of byName.keys()) {
    if (name === spec.searchColumn) continue;
    if (!Object.hasOwn(spec.fields, name) && name !== 'workspace_id' && !(spec.customFields && name === 'custom') && !internal.includes(name)) {
      problems.push(`${where} has column ${name}, which the declaration lacks`);
    }
  }

  const indexes = await query<{ name: string; columns: (string | null)[]; primary: boolean }>(
    `SELECT i.relname AS name, x.indisprimary AS primary,
            array_agg(a.attname ORDER BY k.ord) AS columns
       FROM pg_index x
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_class i ON i.oid = x.indexrelid
       CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
       LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE t.relname = $1 AND t.relnamespace = current_schema()::regnamespace
      GROUP BY i.relname, x.indisprimary`,
    [spec.table],
  );
  const leads = (prefix: string[]) => indexes.some((index) => prefix.every((column, i) => index.columns[i] === column));
  // On the columns the queries use: a field with `sameAs` is served by its twin's indexes.
  const time = queryColumn(spec, spec.timeField);
  for (const key of sortKeys(spec)) {
    const column = queryColumn(spec, key);
    if (!leads(['workspace_id', column, 'id'])) problems.push(`${where} has no index (workspace_id, ${column}, id) for sort key ${key}`);
  }
  for (const filter of filterKeys(spec)) {
    const column = queryColumn(spec, filter);
    if (filter === 'svc_uid') {
      if (!leads(['workspace_id', 'svc_uid'])) problems.push(`${where} has no index (workspace_id, svc_uid) for its svc_uid filter`);
    } else if (!leads(['workspace_id', column, time, 'id'])) {
      problems.push(`${where} has no index (workspace_id, ${column}, ${time}, id) for filter ${filter}`);
    }
  }
  if (spec.searchColumn && !leads(['workspace_id', time, 'id', spec.searchColumn])) {
    problems.push(`${where} has no index (workspace_id, ${time}, id) INCLUDE (${spec.searchColumn}) for the search window`);
  }
  if (spec.searchColumn && !(await query(`SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexdef LIKE '%gin (' || $2 || ' %gin_trgm_ops)%'`, [spec.table, spec.searchColumn])).length) {
    problems.push(`${where} has no trigram index on its search column ${spec.searchColumn}`);
  }
  const primary = indexes.find((index) => index.primary);
  const expected = ['workspace_id', 'id'];
  if (!primary || primary.columns.join() !== expected.join()) {
    problems.push(`${where} primary key is (${primary?.columns.join(', ') ?? 'none'}), expected (${expected.join(', ')})`);
  }
  return problems;
}

/**
 * The proto half alone, for a context whose records are not in Postgres (the directory's documents).
 * `messageExtras` names fields its messages carry for internal callers beyond the declaration
 * (`workspace_id`), which the gateway never shows.
 */
export function checkProtoParity(options: Pick<ParityOptions, 'api' | 'protoFile'> & { messageExtras?: readonly string[] }): string[] {
  const root = loadProto(options.protoFile);
  const service = Object.values(options.api.service().service)[0] as { path: string } | undefined;
  const [pkgAndService] = (service?.path ?? '/').split('/').slice(1);
  const pkg = pkgAndService!.slice(0, pkgAndService!.lastIndexOf('.'));
  const serviceName = pkgAndService!.slice(pkgAndService!.lastIndexOf('.') + 1);
  const extras = new Set(options.messageExtras ?? []);
  return options.api.routes
    .flatMap((route) => protoProblems(root, pkg, serviceName, route))
    .filter((problem) => ![...extras].some((name) => problem.endsWith(`has field ${name}, which the declaration lacks`)));
}

export async function checkContextParity(options: ParityOptions): Promise<string[]> {
  const problems = checkProtoParity(options);

  const db = await createPgliteClient({ schema: `parity_${options.api.name}` });
  try {
    await runMigrations(db, options.migrations);
    const query = async <R>(text: string, params?: unknown[]) => (await db.query<R>(text, params)).rows;
    for (const route of options.api.routes) {
      problems.push(
        ...(await tableProblems(query, route.spec, options.internalColumns?.[route.spec.table] ?? [])),
      );
    }
  } finally {
    await db.close();
  }
  return problems;
}
