import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { CONTEXTS } from '../contexts';
import { inlineScriptHashes } from './docs.routes';

/**
 * /docs as the gateway serves it, without a browser (test/e2e/docs.browser.test.ts renders it in
 * Chromium): everything from the gateway itself, under a policy that names no other origin.
 */
let app: FastifyInstance;

beforeAll(async () => {
  app = await buildApp({
    resolveKey: async () => {
      throw new Error('the reference needs no key');
    },
    resources: CONTEXTS.flatMap((context) => context.routes(undefined as never, 0)),
    logger: false,
  });
});
afterAll(() => app.close());

test('/docs redirects to /docs/, whose page loads its script from the gateway and reads /openapi.json', async () => {
  const redirect = await app.inject({ url: '/docs' });
  expect(redirect.statusCode).toBe(301);
  expect(redirect.headers.location).toBe('/docs/');

  const page = await app.inject({ url: '/docs/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  const sources = [...page.body.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
  expect(sources).toEqual(['js/scalar.js']);
  // No address of another origin anywhere in the page: no CDN, no fonts, no proxy.
  expect(page.body).not.toMatch(/https?:\/\//);
  expect(page.body).toContain('"url": "/openapi.json"');
  for (const [option, value] of Object.entries({ withDefaultFonts: false, telemetry: false, hideClientButton: true })) {
    expect(page.body).toContain(`"${option}": ${value}`);
  }

  const script = await app.inject({ url: '/docs/js/scalar.js' });
  expect(script.statusCode).toBe(200);
  expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
  expect(script.body).toContain('createApiReference');
  // Five megabytes a reader's browser keeps for an hour instead of fetching on every visit.
  expect(script.headers['cache-control']).toBe('public, max-age=3600');
});

test("the page's policy allows its own inline start-up script by hash, this origin otherwise, and no framing", async () => {
  const page = await app.inject({ url: '/docs/' });
  const csp = String(page.headers['content-security-policy']);
  const inline = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(page.body)![1]!;
  const hash = createHash('sha256').update(inline).digest('base64');
  expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toMatch(/https?:|'unsafe-eval'|\*/);
  expect(page.headers['x-frame-options']).toBe('DENY');
  expect(page.headers['x-content-type-options']).toBe('nosniff');
  // The API's own answers are not given the page's policy.
  expect((await app.inject({ url: '/openapi.json' })).headers['content-security-policy']).toBeUndefined();
});

test('inlineScriptHashes hashes inline scripts only, not those loaded by src', () => {
  const html = '<script src="a.js"></script><script>one()</script><script type="module">two()</script>';
  const sha = (text: string) => createHash('sha256').update(text).digest('base64');
  expect(inlineScriptHashes(html)).toEqual([sha('one()'), sha('two()')]);
});
