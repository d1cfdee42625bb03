import { createHash } from 'node:crypto';
import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

/**
 * `/docs`: the API reference, rendered in the browser by Scalar from the gateway's own
 * `/openapi.json`. The page and its one script (`/docs/js/scalar.js`) come from the installed
 * package, so a deployment without internet access serves it whole: no CDN, no web fonts, no
 * request proxy, no telemetry, no AI agent. `/docs` redirects to `/docs/`, whose relative script
 * URL resolves under it.
 */
export const DOCS_PREFIX = '/docs';

/** The code samples shown for each operation, as `target/client`: curl, and fetch in the browser and in Node. */
export const SAMPLE_CLIENTS = ['shell/curl', 'js/fetch', 'node/fetch'] as const;

/**
 * Every target Scalar knows (its `GROUPED_CLIENTS`, @scalar/types), so that all but SAMPLE_CLIENTS
 * are hidden. A target a later Scalar adds would show until it is listed here.
 */
const SCALAR_TARGETS: Record<string, readonly string[]> = {
  c: ['libcurl'],
  clojure: ['clj_http'],
  csharp: ['httpclient', 'restsharp'],
  dart: ['http'],
  fsharp: ['httpclient'],
  go: ['native'],
  http: ['http1.1'],
  java: ['asynchttp', 'nethttp', 'okhttp', 'unirest'],
  js: ['axios', 'fetch', 'jquery', 'ofetch', 'xhr'],
  julia: ['http'],
  kotlin: ['okhttp'],
  node: ['axios', 'fetch', 'ofetch', 'undici'],
  objc: ['nsurlsession'],
  ocaml: ['cohttp'],
  php: ['curl', 'guzzle', 'laravel'],
  powershell: ['restmethod', 'webrequest'],
  python: ['python3', 'requests', 'aiohttp', 'httpx_sync', 'httpx_async'],
  r: ['httr2'],
  ruby: ['native'],
  rust: ['reqwest'],
  shell: ['curl', 'httpie', 'wget'],
  swift: ['nsurlsession'],
};

const hiddenClients = Object.fromEntries(
  Object.entries(SCALAR_TARGETS).map(([target, clients]) => {
    const hidden = clients.filter((client) => !(SAMPLE_CLIENTS as readonly string[]).includes(`${target}/${client}`));
    // A target none of whose clients is shown is hidden whole.
    return [target, hidden.length === clients.length ? true : hidden];
  }),
);

/**
 * The page's policy: scripts from this origin plus the page's own inline start-up script (by its
 * hash, computed from what is sent), styles from this origin and inline (Scalar injects its
 * stylesheet and sets style attributes at run time), data: images (its icons), fetches to this
 * origin only. Never framed. Looser than the settings pages' (pages.routes.ts, PAGE_CSP), which
 * allow no inline style at all; /docs holds no session and no form.
 */
function docsCsp(scriptHashes: readonly string[]): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${scriptHashes.map((h) => `'sha256-${h}'`).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The SHA-256 (base64) of each inline script of an HTML page, as a CSP hash source names it. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    hashes.push(createHash('sha256').update(match[1]!, 'utf8').digest('base64'));
  }
  return hashes;
}

export function registerDocs(app: FastifyInstance): void {
  // A scope of its own: its headers apply to the reference's routes only.
  app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('X-Frame-Options', 'DENY');
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html') && typeof payload === 'string') {
        reply.header('Content-Security-Policy', docsCsp(inlineScriptHashes(payload)));
      }
      // The 5 MB script changes only with the installed package: an hour's reuse spares a reader
      // downloading it on every visit, and an upgrade reaches them within the hour.
      if (type.startsWith('application/javascript')) reply.header('Cache-Control', 'public, max-age=3600');
      return payload;
    });
    await scope.register(scalarApiReference, {
      routePrefix: DOCS_PREFIX,
      logLevel: 'warn',
      configuration: {
        // Read from the gateway, as clients read it; the package does not serve a copy of its own.
        url: '/openapi.json',
        pageTitle: 'Outreach CRM API reference',
        title: 'Outreach CRM API',
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        hideClientButton: true,
        documentDownloadType: 'json',
        operationTitleSource: 'summary',
        hiddenClients,
        featuredClients: [...SAMPLE_CLIENTS],
        defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
        // The samples and "Test Request" use the address the page was opened at (the document's
        // own servers default to a local `npm start`), so they are copied as they run, and the
        // page's connect-src 'self' holds.
        servers: [{ url: '/', description: 'This gateway' }],
      },
    });
  });
}
