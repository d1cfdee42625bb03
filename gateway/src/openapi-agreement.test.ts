import { CrmError, RESERVED_BODY_KEYS, type ResourceSpec, checkRequireOneOf, validateWrite } from '@crm/kit';
import { parsePoolMembersBody } from '@crm/people-contract';
import { webhookEndpoints } from '@crm/webhooks-contract';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { edgeValueFor, oddName, oddValue, resolver, valueFor } from '../../test/fuzz/schema-arbitraries';
import { CONTEXTS } from './contexts';
import { describeApi } from './openapi';
import { parseEnrollBody } from './routes/flows.routes';
import { OPERATION_METHODS } from './routes/resource.routes';

/**
 * The document is what the API does (issue #35, item 3): for every operation with a JSON body,
 * bodies generated from its request schema (valid ones, one field at or past its edge, wrong types,
 * odd property names) are put to the document (ajv) and to the validators the gateway runs before
 * it calls a service: whatever one accepts the other accepts, and whatever one refuses (422) the
 * other refuses. Required fields, nullability, enums, lengths, formats, custom field names and
 * "at least one of" are all held.
 *
 * Not held here, because a JSON Schema cannot say them and each is stated in its description
 * instead: the rules a service checks with the rest of the write (a flow's graph, a Liquid source
 * that must parse, a meeting's end after its start, ids that must name records, sent_emails'
 * subject and body unless template_id), a custom field's value limits (depth, bytes, count), the
 * octet limits of an email address, and unpaired UTF-16 surrogates (JSON Schema sees code points).
 * Generated bodies keep to those: json fields take their declared example, custom values are plain.
 *
 * One leniency of the API is left out of the document on purpose: a body's read-only fields (`id`,
 * `created_at`, ...) and reserved keys (`workspace_id`, `custom`, ...) are ignored, so a client may
 * send back a record it read (gateway/README.md, "Records"). A resource with custom fields documents
 * any property as allowed anyway; one without (`additionalProperties: false`) does not offer them.
 * For those, the document's verdict is taken on the body without the ignored names, and every other
 * unknown property is held: refused by both.
 */
type Json = Record<string, any>;
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.AGREEMENT_RUNS ?? 300);

const document = describeApi(CONTEXTS) as Json;
const resolve = resolver(document);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// idn-email is paired with the exact pattern the API enforces; the pattern does the checking.
ajv.addFormat('idn-email', true);
ajv.addSchema(document, 'openapi');

interface Case {
  operation: string;
  /** JSON pointer to the request schema. */
  schema: string;
  /** The gateway's validation of the body, as its handler runs it. */
  validate: (body: unknown) => void;
  /** json fields: their shape is the owning service's to check (held at their example). */
  fixed: Record<string, unknown>;
  /** Whether the body may carry custom fields. */
  custom: boolean;
  /** Names the API ignores in this body and a document of `additionalProperties: false` does not offer (see above). */
  ignored: ReadonlySet<string>;
}

/** What validateWrite ignores in a body: the declared read-only fields and the reserved keys. */
const ignoredNames = (spec: ResourceSpec): ReadonlySet<string> =>
  new Set([...Object.entries(spec.fields).filter(([, field]) => field.readOnly).map(([name]) => name), ...RESERVED_BODY_KEYS]);

const jsonFields = (spec: ResourceSpec) =>
  Object.fromEntries(
    Object.entries(spec.fields)
      .filter(([, f]) => f.type === 'json' && !f.readOnly)
      .map(([name, f]) => [name, f.example ?? {}]),
  );

function cases(): Case[] {
  const out: Case[] = [];
  for (const route of CONTEXTS.flatMap((context) => context.routes(undefined as never, 0))) {
    const { spec } = route;
    for (const operation of route.operations) {
      if (operation !== 'create' && operation !== 'update') continue;
      const { method, item } = OPERATION_METHODS[operation];
      const path = `/v1/${spec.name}${item ? '/{id}' : ''}`;
      out.push({
        operation: `${method} ${path}`,
        schema: `#/paths/${path.replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`,
        validate: (body) => {
          validateWrite(spec, body, operation);
          // The service's check of the merged record; on create the body is the record.
          if (operation === 'create') checkRequireOneOf(spec, body as Record<string, unknown>);
        },
        fixed: jsonFields(spec),
        custom: spec.customFields,
        ignored: spec.customFields ? new Set() : ignoredNames(spec),
      });
    }
  }
  const custom = (method: string, path: string, validate: (body: unknown) => unknown) => ({
    operation: `${method} ${path}`,
    schema: `#/paths/${path.replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`,
    validate: (body: unknown) => void validate(body),
    fixed: {},
    custom: false,
    ignored: new Set<string>(),
  });
  out.push(custom('POST', '/v1/pools/{id}/members', parsePoolMembersBody), custom('DELETE', '/v1/pools/{id}/members', parsePoolMembersBody));
  out.push(custom('POST', '/v1/flows/{id}/enrollments', parseEnrollBody));
  return out;
}

/** Unpaired surrogates: refused by the API, not expressible in a JSON Schema (see above). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const hasLoneSurrogate = (value: unknown): boolean =>
  typeof value === 'string' ? LONE_SURROGATE.test(value) : value !== null && typeof value === 'object' ? Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v)) : false;

/**
 * Values only a description can rule out (see above): an address past RFC 5321's octet limits with
 * no more characters than the schema allows, a date-time within the years 0001 to 9999 as written
 * but not once in UTC.
 */
function inexpressible(value: unknown): boolean {
  if (typeof value === 'string') {
    const at = value.lastIndexOf('@');
    if (at > 0) {
      const octets = (s: string) => Buffer.byteLength(s, 'utf8');
      if (octets(value.slice(0, at)) > 64 || octets(value) > 254 || value.slice(at + 1).split('.').some((label) => octets(label) > 63)) return true;
    }
    if (/^\d{4}-\d{2}-\d{2}[Tt ]/.test(value)) {
      const time = Date.parse(value.replace(' ', 'T'));
      if (!Number.isNaN(time) && (time < Date.parse('0001-01-01T00:00:00Z') || time > Date.parse('9999-12-31T23:59:59.999Z'))) return true;
    }
    return false;
  }
  if (value && typeof value === 'object') return Object.values(value).some(inexpressible);
  return false;
}

/** Plain custom values: what a schema of `additionalProperties: true` can promise. */
const plainValue: fc.Arbitrary<unknown> = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000') && !s.startsWith('\uFEFF')));

function bodies(c: Case): fc.Arbitrary<unknown> {
  const schema = resolve({ $ref: c.schema });
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>).filter(([name]) => !(name in c.fixed));
  // The properties' own values; the cross-property rules (anyOf, oneOf) are what the cases probe.
  const { anyOf: _anyOf, oneOf: _oneOf, ...plain } = schema;
  const base = valueFor(document, { ...plain, properties: Object.fromEntries(properties) }).map((v) => ({ ...(v as Json), ...c.fixed }));
  const names = properties.map(([name]) => name);
  const edited = names.length
    ? fc.tuple(base, fc.constantFrom(...names), fc.boolean()).chain(([body, name, edge]) => {
        const property = Object.fromEntries(properties)[name]!;
        return (edge ? edgeValueFor(document, property) : oddValue).map((value) => ({ ...body, [name]: value }));
      })
    : base;
  const dropped = names.length ? fc.tuple(base, fc.constantFrom(...names)).map(([body, name]) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== name))) : base;
  const extra = fc
    .tuple(base, fc.array(fc.tuple(oddName, plainValue), { minLength: 1, maxLength: 3 }))
    .map(([body, pairs]) => ({ ...body, ...Object.fromEntries(pairs.filter(([name]) => !names.includes(name) && !(name in c.fixed))) }));
  return fc.oneof(base, edited, dropped, extra, fc.constantFrom<unknown>(null, [], 'text', 1, {}));
}

const refused = (validate: (body: unknown) => void, body: unknown): boolean => {
  try {
    validate(body);
    return false;
  } catch (error) {
    if (error instanceof CrmError && error.code === 'validation_failed') return true;
    throw error;
  }
};

describe('every request schema agrees with the validators', () => {
  const all = cases();

  test('every operation with a JSON body is held', () => {
    const withBody = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([, op]) => (op as Json).requestBody?.content?.['application/json'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(all.map((c) => c.operation).sort()).toEqual(withBody.sort());
  });

  test.each(all.map((c) => [c.operation, c] as const))('%s', (_name, c) => {
    const validate = ajv.getSchema(`openapi${c.schema}`);
    if (!validate) throw new Error(`no schema at ${c.schema}`);
    let accepted = 0;
    let refusedBoth = 0;
    fc.assert(
      fc.property(bodies(c), (generated) => {
        // What arrives: the JSON a client sends, parsed (Fastify refuses __proto__ and constructor.prototype with 400 first).
        const body = JSON.parse(JSON.stringify(generated));
        if (hasLoneSurrogate(body) || inexpressible(body) || /"__proto__"|"constructor"/.test(JSON.stringify(body))) return;
        // A name the API ignores (see above) is judged as the API judges it: as if not sent.
        const asJudged = c.ignored.size && body && typeof body === 'object' && !Array.isArray(body) ? Object.fromEntries(Object.entries(body).filter(([name]) => !c.ignored.has(name))) : body;
        const documented = validate(asJudged) as boolean;
        const api = !refused(c.validate, body);
        if (documented !== api) {
          throw new Error(`${c.operation}: the document ${documented ? 'accepts' : 'refuses'} and the API ${api ? 'accepts' : 'refuses'} ${JSON.stringify(body).slice(0, 400)}${documented ? '' : `\ndocument: ${ajv.errorsText(validate.errors)}`}`);
        }
        if (api) accepted++;
        else refusedBoth++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Both sides were exercised.
    expect(accepted).toBeGreaterThan(0);
    expect(refusedBoth).toBeGreaterThan(0);
  });

  test('a resource without custom fields refuses an unknown property: both (WebhookEndpointCreate, WebhookEndpointUpdate)', () => {
    for (const [schema, mode, valid] of [
      ['WebhookEndpointCreate', 'create', { url: 'https://example.com/hooks' }],
      ['WebhookEndpointUpdate', 'update', { enabled: false }],
    ] as const) {
      const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`)!;
      expect(document.components.schemas[schema].additionalProperties).toBe(false);
      expect(validate(valid)).toBe(true);
      expect(() => validateWrite(webhookEndpoints, valid, mode)).not.toThrow();
      expect(validate({ ...valid, dup: 2 })).toBe(false);
      expect(() => validateWrite(webhookEndpoints, { ...valid, dup: 2 }, mode)).toThrow(expect.objectContaining({ code: 'validation_failed', details: [{ field: 'dup', message: 'is not a field of this resource' }] }));
    }
  });

  test('null for a required field: refused by both (OrganizationCreate.name)', () => {
    const validate = ajv.getSchema('openapi#/components/schemas/OrganizationCreate')!;
    expect(validate({ name: null })).toBe(false);
    expect(validate({ name: 'Acme' })).toBe(true);
    expect(validate({})).toBe(false);
  });
});
