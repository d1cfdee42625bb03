/**
 * `/docs` in a real browser (issue #35, item 1): Debian's Chromium, driven by playwright-core,
 * against the all-in-one `crm start` on embedded backends, as a newcomer opens it.
 *
 * - The reference is served whole by the gateway: the page, its script and the OpenAPI document
 *   it reads; no request leaves the gateway's origin (no CDN, fonts, proxy or telemetry).
 * - Navigation by tag: one sidebar group per bounded context, named as the document's tags.
 * - Search finds an operation and opens it; the operation shows a curl sample, and a JavaScript one.
 * - The page's policy (CSP) keeps scripts and connections to the gateway and refuses framing; the
 *   console shows no refusal. A screenshot is saved as .ci/out/screenshots/docs.png.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BrowserChecks, SCREENSHOT_DIR, chromiumAvailable, launchChromium } from '../support/browser';
import { type CrmProcess, freePort, startCrm } from '../support/processes';

// A system start (migrations on PGlite) and a browser: minutes on a loaded machine, not seconds.
jest.setTimeout(180_000);

const embedded = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '', PUBLIC_URL: '' };
/** Scalar renders the document in the browser: a 5 MB script and a 400 KB document on a loaded machine. */
const RENDER = { timeoutMs: 60_000, intervalMs: 250 };

const suite = chromiumAvailable() ? describe : describe.skip;

suite('/docs in Chromium', () => {
  let dataDir: string;
  let crm: CrmProcess | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let checks: BrowserChecks;
  let origin: string;
  let page: Page;
  /** Every URL the page asked for, from the first navigation on. */
  const requested: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crm-docs-'));
    crm = startCrm('all-in-one', ['start'], {
      ...embedded,
      CRM_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      DIRECTORY_ADDR: `127.0.0.1:${await freePort()}`,
    });
    const started = crm;
    origin = await expectEventually(
      () => {
        if (started.child.exitCode !== null) throw new Error(`crm start exited:\n${started.output()}`);
        const match = /listening on (http:\/\/\S+)/.exec(started.output());
        expect(match).not.toBeNull();
        return match![1]!;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    browser = await launchChromium();
    checks = new BrowserChecks(browser, origin);
    context = await checks.newContext();
    page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
  });

  afterAll(async () => {
    await browser?.close();
    await crm?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the gateway serves the page, its script and its document, under a policy that keeps them to its origin', async () => {
    const response = await page.goto(`${origin}/docs`);
    // /docs redirects to /docs/, where the page's relative script URL resolves under /docs/.
    expect(new URL(page.url()).pathname).toBe('/docs/');
    expect(response!.status()).toBe(200);
    const csp = response!.headers()['content-security-policy'] ?? '';
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    // Scripts: the gateway's own file, and the page's inline start-up script by its hash only.
    expect(directives['script-src']![0]).toBe("'self'");
    for (const source of directives['script-src']!.slice(1)) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);

    // The rendered document: its title, from the gateway's own /openapi.json.
    await expectEventually(async () => expect(await page.getByRole('heading', { name: 'Outreach CRM Platform API' }).count()).toBeGreaterThan(0), RENDER);
    const fetched = requested.map((url) => new URL(url)).filter((url) => url.origin === origin).map((url) => url.pathname);
    expect(fetched).toEqual(expect.arrayContaining(['/docs/', '/docs/js/scalar.js', '/openapi.json']));
  });

  test('navigation by tag: one sidebar group per context, each opening its operations', async () => {
    const document = (await (await fetch(`${origin}/openapi.json`)).json()) as { tags: { name: string }[] };
    const tags = document.tags.map((t) => t.name);
    expect(tags).toEqual(['People', 'Flows', 'Messaging', 'Activities', 'Directory', 'Webhooks']);
    const sidebar = page.locator('aside, nav').first();
    for (const tag of tags) await expectEventually(async () => expect(await sidebar.getByText(tag, { exact: true }).count()).toBeGreaterThan(0), RENDER);
    // The guides come first, as an introduction.
    expect(await sidebar.getByText('Introduction', { exact: true }).count()).toBeGreaterThan(0);
    await sidebar.getByText('Flows', { exact: true }).first().click();
    await expectEventually(async () => expect(await sidebar.getByText('List flows', { exact: true }).count()).toBeGreaterThan(0), RENDER);
  });

  test('search finds an operation and opens it; it shows a curl sample and a JavaScript one', async () => {
    await page.getByRole('button', { name: /search/i }).first().click();
    await page.keyboard.type('contacts');
    // The results are the dialog's options, each an operation with its method and path.
    const result = page.getByRole('option').filter({ hasText: /List contacts[\s\S]*\/v1\/contacts/ });
    await expectEventually(async () => expect(await result.count()).toBeGreaterThan(0), RENDER);
    await result.first().click();
    await expectEventually(() => expect(decodeURIComponent(new URL(page.url()).hash)).toMatch(/GET\/v1\/contacts$/), RENDER);

    const samples = async () => (await page.locator('pre, code').allInnerTexts()).join('\n');
    // On the address the page was opened at: copied as it runs.
    await expectEventually(async () => expect(await samples()).toContain(`curl '${origin}/v1/contacts`), RENDER);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'docs.png') });

    // The samples offered are curl and fetch (in the browser and in Node), nothing else.
    await page.getByRole('button', { name: /Shell Curl/ }).first().click();
    const offered = page.getByRole('listbox').first();
    await expectEventually(async () => expect((await offered.innerText()).split('\n').map((l) => l.trim()).filter(Boolean).sort()).toEqual(['Curl', 'Fetch', 'Fetch', 'JavaScript', 'Node.js', 'Shell']), RENDER);
    await page.keyboard.press('Escape');
    await page.getByText('JavaScript', { exact: true }).first().click();
    await expectEventually(async () => expect(await samples()).toContain(`fetch('${origin}/v1/contacts`), RENDER);
  });

  test('no request left the gateway, and the console shows no error (no CSP refusal)', () => {
    const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url));
    expect(elsewhere).toEqual([]);
    expect(requested.length).toBeGreaterThanOrEqual(4);
    expect(checks.problems).toEqual([]);
  });
});
