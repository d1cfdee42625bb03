import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseListQuery } from '@crm/kit';
import { contacts } from '@crm/people-contract';
import { buildApp } from './app';
import { CONTEXTS } from './contexts';
import { describeApi } from './openapi';

const REDOCLY = path.resolve(__dirname, '../../node_modules/@redocly/cli/bin/cli.js');
const document = describeApi(CONTEXTS) as any;

describe('OpenAPI description', () => {
  test('passes the Redocly linter (recommended rules) with no error or warning', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const result = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=json'], { encoding: 'utf8', timeout: 60_000 });
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: { message: string }[] };
    expect(report.problems.map((p) => p.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  test('describes every routed operation with its scope, typed parameters and both server prefixes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers.map((s: { url: string }) => s.url)).toEqual(['{base_url}', '{base_url}/api']);
    const list = document.paths['/v1/contacts'].get;
    expect(list['x-required-scope']).toBe('contacts:read');
    const param = (name: string) => list.parameters.find((p: { name: string }) => p.name === name);
    expect(param('limit').schema).toMatchObject({ minimum: 1, maximum: 100 });
    expect(param('owner_id').schema).toEqual({ type: 'string', format: 'uuid', minLength: 36, maxLength: 36 });
    expect(param('sort').schema.pattern).toContain('last_engagement_at');
    expect(document.paths['/v1/contacts/{id}'].delete['x-required-scope']).toBe('contacts:delete');
    expect(document.paths['/v1/contacts'].post.responses['422']).toEqual({ $ref: '#/components/responses/ValidationFailed' });
    expect(document.components.schemas.Contact.properties.last_engagement_at).toMatchObject({ readOnly: true, type: ['string', 'null'] });
    expect(document.components.schemas.ContactCreate.properties).not.toHaveProperty('created_at');
    // Custom routes are described too, with the errors every call can meet.
    const addMembers = document.paths['/v1/pools/{id}/members'].post;
    expect(addMembers['x-required-scope']).toBe('pool_contacts:write');
    expect(Object.keys(addMembers.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '422', '429', '503']));
    expect(document.paths['/v1/pools/{id}/members'].delete['x-required-scope']).toBe('pool_contacts:delete');
    // Both webhook resources need the one scope resource `webhooks` (DESIGN.md section 4).
    expect(document.paths['/v1/webhook_endpoints'].get['x-required-scope']).toBe('webhooks:read');
    expect(document.paths['/v1/webhook_endpoints'].post['x-required-scope']).toBe('webhooks:write');
    expect(document.paths['/v1/webhook_endpoints/{id}'].delete['x-required-scope']).toBe('webhooks:delete');
    expect(document.paths['/v1/webhook_endpoints/{id}/rotate_secret'].post['x-required-scope']).toBe('webhooks:write');
    expect(document.paths['/v1/webhook_deliveries'].get['x-required-scope']).toBe('webhooks:read');
    expect(document.paths['/v1/webhook_deliveries/{id}/retry'].post['x-required-scope']).toBe('webhooks:write');
  });

  test("a webhook endpoint's secret: no field of the record, only in the answers of create and rotate_secret", () => {
    const schemas = document.components.schemas;
    // The record (get, list, update) has no secret at all, and takes no unknown property in a body.
    expect(Object.keys(schemas.WebhookEndpoint.properties)).not.toContain('secret');
    expect(schemas.WebhookEndpointCreate.additionalProperties).toBe(false);
    expect(schemas.WebhookEndpointUpdate.additionalProperties).toBe(false);
    expect(Object.keys(schemas.WebhookEndpointCreate.properties)).not.toContain('secret');
    // The create's answer: the record and its secret, a schema of its own.
    expect(schemas.WebhookEndpointCreated.allOf[0]).toEqual({ $ref: '#/components/schemas/WebhookEndpoint' });
    expect(schemas.WebhookEndpointCreated.allOf[1]).toMatchObject({ properties: { secret: { type: 'string', readOnly: true } }, required: ['secret'] });
    const answerOf = (path: string, method: string, status: string) => document.paths[path][method].responses[status].content['application/json'];
    for (const [path, method, status] of [['/v1/webhook_endpoints', 'post', '201'], ['/v1/webhook_endpoints/{id}/rotate_secret', 'post', '200']]) {
      const answer = answerOf(path!, method!, status!);
      expect(answer.schema.properties.data.$ref).toBe('#/components/schemas/WebhookEndpointCreated');
      expect(answer.example.data.secret).toMatch(/^whsec_/);
    }
    for (const [path, status] of [['/v1/webhook_endpoints/{id}', '200'], ['/v1/webhook_endpoints', '200']]) {
      expect(JSON.stringify(answerOf(path!, 'get', status!))).not.toContain('secret');
    }
    expect(answerOf('/v1/webhook_endpoints/{id}', 'patch', '200').schema.properties.data.$ref).toBe('#/components/schemas/WebhookEndpoint');
  });

  test('q: the schema admits exactly the terms the gateway accepts, whatever their length', () => {
    const q = document.paths['/v1/contacts'].get.parameters.find((p: { name: string }) => p.name === 'q');
    const pattern = new RegExp(q.schema.pattern, 'u');
    const described = (term: string) => pattern.test(term) && [...term].length >= q.schema.minLength && [...term].length <= q.schema.maxLength;
    const accepted = (term: string) => {
      try {
        parseListQuery(contacts, { q: term });
        return true;
      } catch {
        return false;
      }
    };
    for (const term of ['a', 'ø', '😀', 'Li', ' a ', '%_', 'Ann', 'x'.repeat(200), '😀'.repeat(200), '', ' ', '\u3000', 'a\tb', '\u007f', 'x'.repeat(201), '\uFEFFab']) {
      expect([term, described(term)]).toEqual([term, accepted(term)]);
    }
  });

  test('states, on every operation, the scope the router enforces', async () => {
    // The scope each route registers with (the auth hook reads it from there), seen as Fastify adds it.
    const enforced = new Map<string, string | undefined>();
    const app = await buildApp({
      resolveKey: async () => {
        throw new Error('no request is made');
      },
      resources: CONTEXTS.flatMap((context) => context.routes(undefined as never, 0)),
      logger: false,
      register: (instance) =>
        instance.addHook('onRoute', (route) => {
          const url = route.url.replace(/:(\w+)/g, '{$1}');
          if (!url.startsWith('/v1/')) return;
          for (const method of [route.method].flat()) {
            if (method !== 'HEAD') enforced.set(`${method.toLowerCase()} ${url}`, route.config?.scope);
          }
        }),
    });
    await app.ready();
    await app.close();
    const documented = new Map<string, string>();
    const open: string[] = [];
    for (const [url, item] of Object.entries(document.paths as Record<string, Record<string, { 'x-required-scope'?: string; description?: string; security?: unknown[] }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        // The public paths of sent emails take a signed token, not a key: no scope.
        if (operation.security?.length === 0) {
          open.push(`${method} ${url}`);
          continue;
        }
        documented.set(`${method} ${url}`, operation['x-required-scope']!);
        expect(operation.description).toContain(`Requires scope \`${operation['x-required-scope']}\`.`);
      }
    }
    // Every scoped route is documented with its scope, and the document describes no other.
    const scoped = new Map([...enforced].filter((entry): entry is [string, string] => entry[1] !== undefined));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(scoped));
    expect(scoped.size).toBeGreaterThan(60);
    expect(open.sort()).toEqual(['get /t/c/{token}', 'get /t/o/{token}', 'get /u/{token}', 'post /u/{token}']);
  });

  test('OrganizationCreate: name is required and never null, as the API enforces', () => {
    expect(document.components.schemas.OrganizationCreate.required).toEqual(['name']);
    expect(document.components.schemas.OrganizationCreate.properties.name.type).toBe('string');
    expect(document.components.schemas.OrganizationUpdate.properties.name.type).toBe('string');
    // The record itself is unchanged.
    expect(document.components.schemas.Organization.properties.name).toMatchObject({ type: ['string', 'null'] });
  });

  test('sent_emails filter on flow_id', () => {
    const names = document.paths['/v1/sent_emails'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['flow_id', 'flow_enrollment_id', 'contact_id']));
  });
});

