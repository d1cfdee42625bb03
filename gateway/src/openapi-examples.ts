import { ERROR_TABLE, type ErrorCode, type FieldSpec, type ResourceSpec, isNullable } from '@crm/kit';

/**
 * The examples of the OpenAPI description, built from the same declarations as its schemas: a
 * field's declared `example`, else a value of its type within its limits. A create example holds
 * the required fields and those with a declared example, so it is a body the API accepts as written
 * (ids that name other records aside: the replay test substitutes records of its own).
 */
type Json = Record<string, unknown>;

/** A stable, valid v4 UUID per name, so an id reads the same in every example that shows it. */
export function exampleUuid(name: string): string {
  let h = 2166136261;
  const hex: string[] = [];
  for (let round = 0; hex.join('').length < 32; round++) {
    for (const c of `${name}#${round}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    hex.push(h.toString(16).padStart(8, '0'));
  }
  const s = hex.join('').slice(0, 32).split('');
  s[12] = '4';
  s[16] = '89ab'[parseInt(s[16]!, 16) % 4]!;
  const x = s.join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export const EXAMPLE_TIME = '2026-03-02T09:30:00Z';

/** A field's example: its declared one, else one of its type (the record's own id is named by its resource). */
export function fieldExample(spec: ResourceSpec, name: string, field: FieldSpec): unknown {
  if (field.example !== undefined) return field.example;
  switch (field.type) {
    case 'uuid':
      return exampleUuid(name === 'id' ? spec.singular : name.replace(/_id$/, ''));
    case 'string':
      return name === 'svc_uid' ? `ext-${spec.singular}-1042` : 'Example';
    case 'text':
      return 'Example text.';
    case 'email':
      return 'ada@example.com';
    case 'url':
      return 'https://example.com';
    case 'integer':
      return Math.min(Math.max(field.min ?? 0, 1), field.max ?? 1);
    case 'boolean':
      return true;
    case 'datetime':
      return EXAMPLE_TIME;
    case 'enum':
      return field.values![0];
    case 'json':
      return field.schema?.type === 'array' ? [] : {};
  }
}

/** A record as the API returns it. */
export function recordExample(spec: ResourceSpec): Json {
  return Object.fromEntries(Object.entries(spec.fields).map(([name, field]) => [name, fieldExample(spec, name, field)]));
}

/** A create's answer: the record and its create answer fields (a secret shown once). */
export function createAnswerExample(spec: ResourceSpec): Json {
  return { ...recordExample(spec), ...Object.fromEntries(Object.entries(spec.createAnswerFields ?? {}).map(([name, field]) => [name, fieldExample(spec, name, field)])) };
}

/** A create body the API accepts: the required fields and those with a declared example. */
export function createExample(spec: ResourceSpec): Json {
  const body = Object.fromEntries(
    Object.entries(spec.fields)
      .filter(([, field]) => !field.readOnly && (field.required || field.example !== undefined))
      .map(([name, field]) => [name, fieldExample(spec, name, field)]),
  );
  const oneOf = spec.requireOneOf ?? [];
  if (oneOf.length && !oneOf.some((name) => body[name] !== undefined && body[name] !== null)) {
    body[oneOf[0]!] = fieldExample(spec, oneOf[0]!, spec.fields[oneOf[0]!]!);
  }
  return body;
}

/** A merge patch changing one field: the first writable one with a declared example, else the first writable one. */
export function updateExample(spec: ResourceSpec): Json {
  if (spec.updateExample) return { ...spec.updateExample };
  const writable = Object.entries(spec.fields).filter(([name, field]) => !field.readOnly && name !== 'svc_uid');
  const [name, field] = writable.find(([, f]) => f.example !== undefined && !f.required) ?? writable.find(([, f]) => f.example !== undefined) ?? writable[0]!;
  return { [name]: field.example !== undefined || !isNullable(field) || field.required ? fieldExample(spec, name, field) : null };
}

const ERROR_MESSAGES: { readonly [C in ErrorCode]: [string, unknown?] } = {
  invalid_request: ['unknown query parameter colour', { parameter: 'colour' }],
  unauthorized: ['missing or invalid API key'],
  forbidden: ['this key lacks scope contacts:write', { required_scope: 'contacts:write' }],
  not_found: ['no such record'],
  method_not_allowed: ['method not allowed'],
  request_timeout: ['the request was not received in time'],
  conflict: ['a record with this email already exists', { field: 'email' }],
  payload_too_large: ['body over 1048576 bytes'],
  unsupported_media_type: ['the body must be application/json'],
  validation_failed: ['validation failed', [{ field: 'email', message: 'must be an email address' }]],
  idempotency_key_reused: ['this Idempotency-Key was used with a different request'],
  rate_limited: ['rate limit exceeded; retry after 2 seconds'],
  send_quota_exhausted: ["the workspace's sending quota is used up for today"],
  internal: ['internal error'],
  unavailable: ['a backing service is unavailable; retry after 1 second'],
  timeout: ['a backing service did not answer in time'],
};

/** An error envelope as the gateway sends it for this code. */
export function errorExample(code: ErrorCode): Json {
  const [message, details] = ERROR_MESSAGES[code];
  return {
    error: {
      code,
      message,
      ...(details !== undefined ? { details } : {}),
      request_id: 'req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30',
      ...(ERROR_TABLE[code].http === 429 && code === 'rate_limited' ? { type: 'rate_limit_error' } : {}),
    },
  };
}
