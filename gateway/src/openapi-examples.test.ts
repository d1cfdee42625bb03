import { type FieldType, type ResourceSpec } from '@crm/kit';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { CONTEXTS } from './contexts';
import { describeApi } from './openapi';

/**
 * The reference is worth reading (issue #35, DESIGN.md section 4 "API clients"): every operation
 * says what it does and when to use it, and shows a request and an answer for each status it
 * documents, each valid against its own schema; every property has its line.
 */
type Json = Record<string, any>;
const document = describeApi(CONTEXTS) as Json;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const resolve = (node: Json): { node: Json; pointer: string[] | undefined } => {
  if (!node?.$ref) return { node, pointer: undefined };
  const pointer = String(node.$ref).replace(/^#\//, '').split('/');
  return { node: pointer.reduce((at: Json, part) => at[part.replace(/~1/g, '/').replace(/~0/g, '~')], document), pointer };
};

interface Media {
  /** Where the media object is, as JSON pointer parts. */
  at: string[];
  operation: string;
  /** `request` or the status. */
  part: string;
  type: string;
  media: Json;
}

/** Every media object of every operation: request bodies and responses, $refs followed. */
function media(): Media[] {
  const out: Media[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      const operation = `${method.toUpperCase()} ${path}`;
      const parts: [string, Json, string[]][] = [];
      if (op.requestBody) parts.push(['request', op.requestBody, ['paths', path, method, 'requestBody']]);
      for (const [status, response] of Object.entries(op.responses as Json)) parts.push([status, response as Json, ['paths', path, method, 'responses', status]]);
      for (const [part, given, at] of parts) {
        const { node, pointer } = resolve(given);
        for (const [type, m] of Object.entries((node.content ?? {}) as Json)) out.push({ at: [...(pointer ?? at), 'content', type], operation, part, type, media: m as Json });
      }
    }
  }
  return out;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// idn-email is paired with the exact pattern the API enforces; the pattern does the checking.
ajv.addFormat('idn-email', true);
ajv.addSchema(document, 'openapi');
const pointer = (parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

describe('the reference: examples, summaries and descriptions', () => {
  test('every example validates against the schema of its own media type', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const { at, operation, part, type, media: m } of media()) {
      const values: [string, unknown][] = [
        ...(m.example !== undefined ? ([['example', m.example]] as [string, unknown][]) : []),
        ...Object.entries((m.examples ?? {}) as Json).map(([name, e]) => [name, (e as Json).value] as [string, unknown]),
      ];
      if (!values.length) continue;
      const validate = ajv.getSchema(`openapi#/${pointer([...at, 'schema'])}`);
      if (!validate) throw new Error(`no schema at ${at.join('/')}`);
      for (const [name, value] of values) {
        checked++;
        if (!validate(value)) failures.push(`${operation} ${part} ${type} ${name}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });

  test('every operation has a summary, a description beyond its scope, a request example and an example per documented answer', () => {
    const missing: string[] = [];
    const examples = new Map<string, Set<string>>();
    for (const { operation, part, type, media: m } of media()) {
      // A binary body (the tracking pixel) has no example a reader could use.
      const binary = m.schema?.format === 'binary';
      const has = m.example !== undefined || Object.keys(m.examples ?? {}).length > 0;
      if (!has && !binary) missing.push(`${operation} ${part} ${type}: no example`);
      if (has || binary) (examples.get(operation) ?? examples.set(operation, new Set()).get(operation)!).add(part);
    }
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const method of METHODS.filter((m) => item[m])) {
        operations++;
        const op = item[method];
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.summary?.trim()) missing.push(`${name}: no summary`);
        const prose = String(op.description ?? '').replace(/Requires scope `[^`]+`\./, '').trim();
        if (prose.length < 40) missing.push(`${name}: the description says no more than its scope`);
        const documented = Object.entries(op.responses as Json).filter(([, r]) => resolve(r as Json).node.content).map(([status]) => status);
        if (op.requestBody) documented.push('request');
        for (const part of documented) if (!examples.get(name)?.has(part)) missing.push(`${name} ${part}: no example`);
      }
    }
    expect(missing).toEqual([]);
    expect(operations).toBeGreaterThanOrEqual(78);
  });

  test('every property of every schema has a description', () => {
    const missing: string[] = [];
    let properties = 0;
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      const schema = node as Json;
      if (schema.properties && typeof schema.properties === 'object' && !('type' in schema.properties && typeof schema.properties.type === 'string')) {
        for (const [name, property] of Object.entries(schema.properties as Json)) {
          properties++;
          if (!String((property as Json).description ?? '').trim()) missing.push(`${at}/properties/${name}`);
        }
      }
      for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
    };
    walk(document, '#');
    expect(missing).toEqual([]);
    expect(properties).toBeGreaterThan(500);
  });
});

/** Every resource the API serves or answers with, from the route tables. */
function resources(): ResourceSpec[] {
  const specs = new Map<string, ResourceSpec>();
  for (const route of CONTEXTS.flatMap((context) => context.routes(undefined as never, 0))) {
    if (route.operations.length) specs.set(route.spec.name, route.spec);
    for (const custom of route.routes ?? []) for (const spec of custom.describes ?? []) specs.set(spec.name, spec);
  }
  return [...specs.values()];
}

describe('the declarations carry the words', () => {
  test('every field of every resource has its one line where it is declared', () => {
    const missing = resources().flatMap((spec) => Object.entries(spec.fields).filter(([, f]) => !f.description?.trim()).map(([name]) => `${spec.name}.${name}`));
    expect(missing).toEqual([]);
  });

  test('every resource with generic operations says what each does and when to use it', () => {
    const missing: string[] = [];
    for (const route of CONTEXTS.flatMap((context) => context.routes(undefined as never, 0))) {
      for (const operation of route.operations) if (!route.spec.operationDocs?.[operation]?.trim()) missing.push(`${route.spec.name} ${operation}`);
      if (route.operations.length && !route.spec.description) missing.push(`${route.spec.name}: no description`);
    }
    expect(missing).toEqual([]);
  });

  // Every field that a record carries and that a reader would filter on is either filterable or
  // documented as not (`filter: false`, shown as "Not a list filter."): ids, references, enums,
  // flags, short strings and numbers. Long text and JSON are searched or read, not matched; times
  // are bounded by since/until on the time field and sorted.
  const FILTERABLE_KINDS: readonly FieldType[] = ['uuid', 'enum', 'boolean', 'string', 'email', 'url', 'integer'];
  test('every field a reader would filter on is a filter or is declared not to be one', () => {
    const undecided = resources().flatMap((spec) =>
      Object.entries(spec.fields)
        .filter(([name, field]) => name !== 'id' && FILTERABLE_KINDS.includes(field.type) && field.filter === undefined)
        .map(([name]) => `${spec.name}.${name}`),
    );
    expect(undecided).toEqual([]);
  });

  test('the document shows which fields filter and which do not, and offers exactly the filters as parameters', () => {
    for (const spec of resources()) {
      const schema = document.components.schemas[spec.singular.replace(/(^|_)([a-z])/g, (_m: string, _s: string, c: string) => c.toUpperCase())];
      for (const [name, field] of Object.entries(spec.fields)) {
        const description = String(schema.properties[name].description);
        if (field.filter) expect([name, description]).toEqual([name, expect.stringContaining(`List filter: \`?${name}=\``)]);
        if (field.filter === false) expect([name, description]).toEqual([name, expect.stringContaining('Not a list filter.')]);
      }
      const list = document.paths[`/v1/${spec.name}`]?.get;
      if (!list) continue;
      const offered = new Set((list.parameters as Json[]).map((p) => p.name));
      for (const [name, field] of Object.entries(spec.fields)) expect([name, offered.has(name)]).toEqual([name, Boolean(field.filter)]);
    }
  });
});
