import {
  DEFAULT_LIMIT,
  ERROR_TABLE,
  type ErrorCode,
  JSON_LIMITS,
  type FieldSpec,
  type ResourceSpec,
  filterKeys,
  isNullable,
  searchKeys,
  sortKeys,
} from '@crm/kit';
import { CURSOR, DATE_TIME, MAX_ERROR_MESSAGE, RATE_HEADERS, REQUEST_ID, RETRY_AFTER, SEARCH_PATTERN, TEXT_PATTERN, UUID, email, pageSchema } from './openapi-schemas';
import { createAnswerExample, createExample, errorExample, recordExample, updateExample } from './openapi-examples';
import { withGuides } from './openapi-guides';
import { IDEMPOTENCY_KEY } from './plugins/idempotency';
import { TRACKING_OPENAPI } from './routes/tracking.routes';
import { OPERATION_METHODS, type Operation, type ResourceRouteOptions } from './routes/resource.routes';

/**
 * The OpenAPI 3.1 description, generated from the declarations the gateway validates with (resource
 * declarations and the routes registered from them), so it cannot drift from what is enforced.
 */
type Schema = Record<string, unknown>;

export const API_VERSION = '2.0.0';

function fieldSchema(field: FieldSpec): Schema {
  const base: Schema = (() => {
    switch (field.type) {
      case 'uuid':
        return { ...UUID };
      case 'string':
        return { type: 'string', maxLength: field.maxLength ?? 255, pattern: TEXT_PATTERN };
      case 'text':
        return { type: 'string', maxLength: field.maxLength ?? 10_000, pattern: TEXT_PATTERN };
      case 'email':
        return email(field.maxLength ?? 254);
      case 'url':
        // What kit's parseBodyValue takes: http or https, any case, then no whitespace (not every
        // string of format uri is one, nor the reverse).
        return { type: 'string', maxLength: field.maxLength ?? 2048, pattern: URL_PATTERN };
      case 'integer':
        return { type: 'integer', format: 'int32', minimum: field.min ?? -2147483648, maximum: field.max ?? 2147483647 };
      case 'boolean':
        return { type: 'boolean' };
      case 'datetime':
        return { ...DATE_TIME };
      case 'enum':
        return { type: 'string', enum: [...field.values!] };
      case 'json':
        return { ...(field.schema ?? { type: 'object' }) };
    }
  })();
  return nullableIf(base, isNullable(field));
}

function nullableIf(base: Schema, nullable: boolean): Schema {
  if (nullable) {
    if (base.enum) return { ...base, type: ['string', 'null'], enum: [...(base.enum as string[]), null] };
    return { ...base, type: [base.type as string, 'null'] };
  }
  return base;
}

/**
 * A property's schema: its type, then one line from the declaration (and the type's own note), and
 * whether the list filters on it. A field a reader might filter on but the list does not is
 * declared `filter: false` and says so. A required field is never null in a body (kit's
 * validateWrite refuses it), so its body schema does not offer null.
 */
function propertySchema(name: string, field: FieldSpec, body: boolean): Schema {
  const schema = body && field.required ? fieldSchema({ ...field, nullable: false }) : fieldSchema(field);
  const filter = field.filter ? `List filter: \`?${name}=\`.` : field.filter === false ? 'Not a list filter.' : undefined;
  const description = [field.description, schema.description as string | undefined, filter].filter(Boolean).join(' ');
  return { ...schema, ...(description ? { description } : {}), ...(field.readOnly && !body ? { readOnly: true } : {}) };
}

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s\\u0000]+$';

/** A custom field's name, as kit's validateWrite takes it: 1 to 100 characters of storable text. */
const CUSTOM_FIELD_NAME: Schema = { minLength: 1, maxLength: JSON_LIMITS.maxCustomKeyLength, pattern: TEXT_PATTERN };
const CUSTOM_FIELDS_NOTE =
  `Other properties are custom fields (names of 1 to ${JSON_LIMITS.maxCustomKeyLength} characters; at most ${JSON_LIMITS.maxCustomFields} per request, ` +
  `${JSON_LIMITS.customMaxBytes} bytes of JSON in all, nested at most ${JSON_LIMITS.customMaxDepth} deep); null removes one on update.`;

/** The indefinite article a record's name takes: "an organization", "a contact". */
const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

const pascal = (snake: string) => snake.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

function recordSchemas(spec: ResourceSpec, operations: readonly Operation[]): Record<string, Schema> {
  const name = pascal(spec.singular);
  const properties = Object.fromEntries(Object.entries(spec.fields).map(([key, field]) => [key, propertySchema(key, field, false)]));
  const writable = Object.fromEntries(
    Object.entries(spec.fields)
      .filter(([, field]) => !field.readOnly)
      .map(([key, field]) => [key, propertySchema(key, field, true)]),
  );
  const required = Object.entries(spec.fields)
    .filter(([, f]) => f.required && !f.readOnly)
    .map(([k]) => k);
  const schemas: Record<string, Schema> = {
    [name]: {
      type: 'object',
      description: [spec.description, spec.customFields ? 'Extra properties are custom fields, stored and returned as given.' : undefined].filter(Boolean).join(' ') || undefined,
      properties,
      required: Object.keys(spec.fields),
      additionalProperties: true,
    },
  };
  const answerOnly = Object.entries(spec.createAnswerFields ?? {});
  if (answerOnly.length) {
    // The create's answer (and that of any route that issues them again): the record and the fields
    // shown once, which no read returns.
    schemas[`${name}Created`] = {
      description: `The ${spec.singular.replace(/_/g, ' ')} as its create answers it: the record and ${answerOnly.map(([key]) => `\`${key}\``).join(', ')}, which no read returns.`,
      allOf: [
        ref(name),
        {
          type: 'object',
          properties: Object.fromEntries(answerOnly.map(([key, field]) => [key, propertySchema(key, field, false)])),
          required: answerOnly.map(([key]) => key),
        },
      ],
    };
  }
  if (operations.includes('create')) {
    const oneOf = spec.requireOneOf ?? [];
    schemas[`${name}Create`] = {
      type: 'object',
      properties: writable,
      ...(required.length ? { required } : {}),
      // At least one of them with a value (not null, not empty): the service's checkRequireOneOf.
      ...(oneOf.length
        ? { anyOf: oneOf.map((key) => ({ required: [key], properties: { [key]: { ...fieldSchema({ ...spec.fields[key]!, nullable: false }), minLength: 1, description: `${key}, set and not empty.` } } })) }
        : {}),
      additionalProperties: spec.customFields,
      ...(spec.customFields ? { propertyNames: CUSTOM_FIELD_NAME } : {}),
      description: [oneOf.length ? `At least one of ${oneOf.join(', ')} must be set.` : undefined, spec.customFields ? CUSTOM_FIELDS_NOTE : undefined].filter(Boolean).join(' ') || undefined,
    };
  }
  if (operations.includes('update')) {
    schemas[`${name}Update`] = {
      type: 'object',
      description: ['Merge patch: given fields are set, null clears a nullable field (or removes a custom field).', spec.customFields ? CUSTOM_FIELDS_NOTE : undefined].filter(Boolean).join(' '),
      properties: writable,
      additionalProperties: spec.customFields,
      ...(spec.customFields ? { propertyNames: CUSTOM_FIELD_NAME } : {}),
    };
  }
  return schemas;
}

const ref = (schema: string) => ({ $ref: `#/components/schemas/${schema}` });
const errorRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

const ERROR_RESPONSES: Record<string, { status: number; description: string; codes: ErrorCode[] }> = {
  BadRequest: { status: 400, description: 'Malformed request: bad JSON, bad or unknown query parameter, bad cursor, non-UUID id.', codes: ['invalid_request'] },
  Unauthorized: { status: 401, description: 'API key missing, malformed, unknown or revoked.', codes: ['unauthorized'] },
  Forbidden: { status: 403, description: 'The key lacks the scope; `details.required_scope` names it.', codes: ['forbidden'] },
  NotFound: { status: 404, description: 'No such record in this workspace.', codes: ['not_found'] },
  Conflict: { status: 409, description: 'Uniqueness violation or illegal state transition.', codes: ['conflict'] },
  PayloadTooLarge: { status: 413, description: 'Body over 1 MiB.', codes: ['payload_too_large'] },
  UnsupportedMediaType: { status: 415, description: 'Body is not application/json.', codes: ['unsupported_media_type'] },
  ValidationFailed: { status: 422, description: 'Body failed validation; `details` lists `{field, message}`.', codes: ['validation_failed', 'idempotency_key_reused'] },
  RateLimited: { status: 429, description: 'Per-key or per-workspace rate limit; wait `Retry-After` seconds.', codes: ['rate_limited'] },
  Internal: { status: 500, description: 'Unexpected error; safe to retry with an Idempotency-Key.', codes: ['internal'] },
  Unavailable: { status: 503, description: 'A backing service is down; retry after `Retry-After` seconds.', codes: ['unavailable'] },
  Timeout: { status: 504, description: 'A backing service missed its deadline.', codes: ['timeout'] },
};

const errorsByStatus = (...names: string[]) => Object.fromEntries(names.map((n) => [String(ERROR_RESPONSES[n]!.status), errorRef(n)]));

/** Errors any authenticated call can meet, whatever the operation. */
const COMMON_ERRORS = Object.fromEntries(
  ['Unauthorized', 'Forbidden', 'RateLimited', 'Internal', 'Unavailable', 'Timeout'].map((n) => [String(ERROR_RESPONSES[n]!.status), errorRef(n)]),
);


function listParameters(spec: ResourceSpec): Schema[] {
  const keys = sortKeys(spec);
  const q = searchKeys(spec);
  const params: Schema[] = [
    { name: 'limit', in: 'query', description: `Page size (default ${DEFAULT_LIMIT}).`, schema: { type: 'integer', format: 'int32', minimum: 1, maximum: spec.maxLimit, default: DEFAULT_LIMIT } },
    { name: 'cursor', in: 'query', description: "Opaque cursor: the previous page's next_cursor, with the same query.", schema: CURSOR },
    {
      name: 'sort',
      in: 'query',
      description: `Comma-separated keys, '-' for descending. Keys: ${keys.join(', ')}. Default: -${spec.timeField}.`,
      schema: { type: 'string', minLength: 1, maxLength: keys.reduce((n, k) => n + k.length + 2, 0), pattern: `^-?(${keys.join('|')})(,-?(${keys.join('|')}))*$` },
    },
    { name: 'since', in: 'query', description: `Lower bound (inclusive) on ${spec.timeField}.`, schema: DATE_TIME },
    { name: 'until', in: 'query', description: `Upper bound (exclusive) on ${spec.timeField}.`, schema: DATE_TIME },
    { name: 'updated_since', in: 'query', description: 'Only rows with updated_at strictly after this.', schema: DATE_TIME },
  ];
  if (q.length) {
    params.push({
      name: 'q',
      in: 'query',
      description:
        `Case-insensitive substring search over ${q.join(', ')} (a match lies within one field; \`%\` and \`_\` are literal), 1 to 200 characters, not blank. ` +
        'A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: ' +
        "no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match.",
      schema: { type: 'string', minLength: 1, maxLength: 200, pattern: SEARCH_PATTERN },
    });
  }
  for (const key of filterKeys(spec)) {
    const { type, ...rest } = fieldSchema({ ...spec.fields[key]!, nullable: false });
    params.push({ name: key, in: 'query', description: `Equality filter on ${key}.`, schema: { type, ...rest } });
  }
  return params;
}

function operationObject(spec: ResourceSpec, operation: Operation, scopeResource: string): Schema {
  const { action } = OPERATION_METHODS[operation];
  const name = pascal(spec.singular);
  const scope = `${scopeResource}:${action}`;
  const errors = (...names: string[]) => ({
    ...Object.fromEntries(names.map((n) => [String(ERROR_RESPONSES[n]!.status), errorRef(n)])),
    ...COMMON_ERRORS,
  });
  const record = recordExample(spec);
  const data = (schema: Schema, example: unknown) => ({
    'application/json': { schema: { type: 'object', properties: { data: { ...schema, description: `The ${spec.singular.replace(/_/g, ' ')}.` } }, required: ['data'] }, example: { data: example } },
  });
  const base = { tags: [spec.name], security: [{ apiKey: [] }], 'x-required-scope': scope };
  const description = [spec.operationDocs?.[operation], GENERIC_DOCS[operation](spec), `Requires scope \`${scope}\`.`].filter(Boolean).join(' ');
  switch (operation) {
    case 'list':
      return {
        ...base,
        operationId: `list${pascal(spec.name)}`,
        summary: `List ${spec.name.replace(/_/g, ' ')}`,
        description,
        parameters: listParameters(spec),
        responses: {
          '200': {
            description: 'A page.',
            headers: RATE_HEADERS,
            content: { 'application/json': { schema: pageSchema(ref(name), spec.maxLimit), example: { data: [record], next_cursor: EXAMPLE_CURSOR, has_more: true } } },
          },
          ...errors('BadRequest'),
        },
      };
    case 'get':
      return { ...base, operationId: `get${name}`, summary: `Get ${article(spec.singular)} ${spec.singular.replace(/_/g, ' ')}`, description, responses: { '200': { description: `The ${spec.singular}.`, headers: RATE_HEADERS, content: data(ref(name), record) }, ...errors('BadRequest', 'NotFound') } };
    case 'create': {
      const body = createExample(spec);
      return {
        ...base,
        operationId: `create${name}`,
        summary: `Create ${article(spec.singular)} ${spec.singular.replace(/_/g, ' ')}`,
        description,
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}Create`), example: body } } },
        responses: {
          '201': {
            description: `The created ${spec.singular}.`,
            headers: RATE_HEADERS,
            content: spec.createAnswerFields ? data(ref(`${name}Created`), { ...createAnswerExample(spec), ...body }) : data(ref(name), { ...record, ...body }),
          },
          ...errors('BadRequest', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed'),
        },
      };
    }
    case 'update': {
      const body = updateExample(spec);
      return {
        ...base,
        operationId: `update${name}`,
        summary: `Update ${article(spec.singular)} ${spec.singular.replace(/_/g, ' ')}`,
        description,
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}Update`), example: body } } },
        responses: { '200': { description: `The updated ${spec.singular}.`, headers: RATE_HEADERS, content: data(ref(name), { ...record, ...body }) }, ...errors('BadRequest', 'NotFound', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed') },
      };
    }
    case 'delete':
      return { ...base, operationId: `delete${name}`, summary: `Delete ${article(spec.singular)} ${spec.singular.replace(/_/g, ' ')}`, description, parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }], responses: { '204': { description: 'Deleted.', headers: RATE_HEADERS }, ...errors('BadRequest', 'NotFound', 'Conflict') } };
  }
}

/** A cursor of the shape the API hands out (opaque: send back what `next_cursor` held). */
const EXAMPLE_CURSOR = 'eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I';

/** What every resource's generic operations do, from its declaration; a resource adds its own sentence first. */
const GENERIC_DOCS: Record<Operation, (spec: ResourceSpec) => string> = {
  list: (spec) => {
    const filters = filterKeys(spec);
    const search = searchKeys(spec);
    return (
      `Returns the workspace's ${spec.name.replace(/_/g, ' ')} a page at a time, by default newest first on \`${spec.timeField}\`; ` +
      'follow `next_cursor` (with the same query) until it is null to read them all. ' +
      (filters.length ? `Filters by equality on ${filters.map((f) => `\`${f}\``).join(', ')}; ` : '') +
      `bounds \`${spec.timeField}\` with \`since\`/\`until\`, and \`updated_at\` with \`updated_since\` (use it to sync changes)` +
      (search.length ? `; \`q\` searches ${search.map((f) => `\`${f}\``).join(', ')}.` : '.')
    );
  },
  get: (spec) => `Returns one ${spec.singular.replace(/_/g, ' ')} by id; 404 if the workspace has none with that id.`,
  create: (spec) =>
    `Creates a ${spec.singular.replace(/_/g, ' ')} and returns it (201) with the fields the server set. ` +
    'Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer.' +
    (spec.customFields ? ' Properties that are not fields are kept as custom fields.' : ''),
  update: (spec) =>
    `Changes a ${spec.singular.replace(/_/g, ' ')} by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed.`,
  delete: (spec) => `Deletes a ${spec.singular.replace(/_/g, ' ')}; 204 with no body, 404 if the workspace has none with that id.`,
};

export function buildOpenApi(resources: readonly ResourceRouteOptions[]): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  const schemas: Record<string, Schema> = {
    Error: {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          description: 'What went wrong.',
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_TABLE), description: 'A stable machine-readable code: branch on it, not on the message.' },
            message: { type: 'string', maxLength: MAX_ERROR_MESSAGE, pattern: TEXT_PATTERN, description: 'A sentence for people, up to 1,000 characters; it may change.' },
            details: { description: 'More by code: `[{field, message}]` on 422 validation_failed, `{required_scope}` on 403, `{parameter}` on 400.' },
            request_id: { ...REQUEST_ID, description: 'The request id (also the X-Request-Id header): quote it when reporting a problem.' },
            type: { type: 'string', enum: ['rate_limit_error'], description: 'On 429: rate_limit_error.' },
          },
          required: ['code', 'message', 'request_id'],
        },
      },
      required: ['error'],
    },
  };
  for (const resource of resources) {
    Object.assign(schemas, recordSchemas(resource.spec, resource.operations));
    for (const operation of resource.operations) {
      const { method, item } = OPERATION_METHODS[operation];
      const path = `/v1/${resource.spec.name}${item ? '/{id}' : ''}`;
      const entry = (paths[path] ??= {});
      if (item) entry.parameters = [{ $ref: '#/components/parameters/Id' }] as unknown as Schema;
      entry[method.toLowerCase()] = operationObject(resource.spec, operation, resource.scope ?? resource.spec.name);
    }
    // Custom routes describe themselves but for their scope; every operation gets the errors any call can meet.
    for (const route of resource.routes ?? []) {
      for (const spec of route.describes ?? []) Object.assign(schemas, recordSchemas(spec, ['get']));
      if (!route.openapi) continue;
      const path = `/v1/${resource.spec.name}${route.path.replace(/:(\w+)/g, '{$1}')}`;
      const given = route.openapi as Schema & { responses?: Record<string, unknown> };
      // A route with a body meets the body's errors like any write: 400 bad JSON, 413, 415, 422. So
      // does a POST that takes none (rotate_secret, retry): the gateway reads whatever body a POST
      // carries before any route, and refuses a malformed one the same way.
      const bodyErrors = given.requestBody || route.method === 'POST' ? errorsByStatus('BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed') : {};
      // Its answers passed the rate limiter like any other: they carry the same headers.
      const answers = Object.fromEntries(
        Object.entries(given.responses ?? {}).map(([status, response]) =>
          status.startsWith('2') ? [status, { ...(response as Schema), headers: { ...RATE_HEADERS, ...((response as Schema).headers as Schema | undefined) } }] : [status, response],
        ),
      );
      // The scope it declares is the one the auth hook enforces; the document states it from there.
      (paths[path] ??= {})[route.method.toLowerCase()] = {
        ...given,
        description: [given.description, `Requires scope \`${route.scope}\`.`].filter(Boolean).join(' '),
        security: [{ apiKey: [] }],
        'x-required-scope': route.scope,
        responses: { ...COMMON_ERRORS, ...bodyErrors, ...answers },
      };
    }
  }
  // The public paths of sent emails (tracking and unsubscribe): no API key, a signed token instead.
  Object.assign(paths, structuredClone(TRACKING_OPENAPI));
  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([name, r]) => [
      name,
      {
        description: `${r.description} Codes: ${r.codes.join(', ')}.`,
        // The rate-limit headers come with every answer to an authenticated request (they are set as
        // the limiter admits it), so with every error but 401; optional, as an error met before
        // authentication (a path the router refuses, the directory down) has none.
        headers: {
          ...(r.status === 401 ? { 'X-Request-Id': RATE_HEADERS['X-Request-Id'] } : RATE_HEADERS),
          ...(r.status === 429 || r.status === 503 ? RETRY_AFTER : {}),
        },
        content: {
          'application/json': {
            schema: ref('Error'),
            examples: Object.fromEntries(r.codes.map((code) => [code, { summary: code, value: errorExample(code) }])),
          },
        },
      },
    ]),
  );
  // The guides every operation shares, and one tag per context: openapi-guides.ts.
  return withGuides({
    openapi: '3.1.0',
    info: {
      title: 'Outreach CRM Platform API',
      version: API_VERSION,
      description:
        'Contacts, companies, pools, outreach flows, email and activities. Paths are served under both `/v1` and `/api/v1`. ' +
        'Every request carries `Authorization: Bearer <API_KEY>`; each operation names the scope it requires.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Public: the API is meant for clients outside the deployment. The default base URL is a local
    // `npm start`; a production deployment serves the same paths at its own address.
    servers: [
      { url: '{base_url}', description: 'Paths as /v1/... (local by default; your production gateway otherwise)', 'x-internal': false, variables: { base_url: { default: 'http://127.0.0.1:8080' } } },
      { url: '{base_url}/api', description: 'The same paths under /api/v1/... (local by default; your production gateway otherwise)', 'x-internal': false, variables: { base_url: { default: 'http://127.0.0.1:8080' } } },
    ],
    security: [{ apiKey: [] }],
    tags: [...new Map(resources.map((r) => [r.spec.name, { name: r.spec.name, description: `${pascal(r.spec.singular)} records.` }])).values()],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'API key: `svc_<env>_<32 base64url characters>`.' } },
      parameters: {
        Id: { name: 'id', in: 'path', required: true, schema: UUID },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a retry safe: the same key with the same request replays the first answer for 24 hours.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
        },
      },
      responses,
      schemas,
    },
  });
}

/**
 * The description of every context's routes, without connecting to anything: route declarations
 * only wrap their client in closures, so none is needed to describe them.
 */
export function describeApi(contexts: readonly { routes(client: never, deadlineMs: number): ResourceRouteOptions[] }[]): Schema {
  return buildOpenApi(contexts.flatMap((context) => context.routes(undefined as never, 0)));
}
