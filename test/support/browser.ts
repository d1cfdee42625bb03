import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from 'playwright-core';
import { REPO_ROOT } from './processes';

/**
 * The real-browser suites (test/e2e/*.browser.test.ts): Debian's Chromium driven by playwright-core
 * (no browser download), axe-core audits and screenshots. What a page fails is collected, not thrown
 * at once, so one run reports every page's problems; the suite asserts the list is empty at the end.
 */

/** Debian's package `chromium`; CHROMIUM_PATH names another build. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** CI=true (or CRM_REQUIRE_SERVICES=1, CI's first pass): a missing browser fails instead of skipping. */
const browserRequired = (): boolean => /^(1|true|yes)$/i.test(process.env.CI ?? '') || process.env.CRM_REQUIRE_SERVICES === '1';

/** Whether the browser suites run: yes when Chromium is installed, fail in CI, else skip loudly. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const why = `Chromium is not installed at ${CHROMIUM_PATH} (Debian: apt-get install chromium; or set CHROMIUM_PATH to another build)`;
  if (browserRequired()) throw new Error(`${why}. The browser suites are required in CI (CI=true or CRM_REQUIRE_SERVICES=1).`);
  // eslint-disable-next-line no-console
  console.warn(`${why}: the browser suites are skipped`);
  return false;
}

export async function launchChromium(): Promise<Browser> {
  try {
    // playwright-core passes --no-sandbox itself (chromiumSandbox defaults to false), which root in a
    // container needs; a small /dev/shm must not crash the renderer. The back/forward cache stays on
    // (playwright turns it off by default): the back button must be tested as people's browsers do it.
    return await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--disable-dev-shm-usage'],
      ignoreDefaultArgs: ['--disable-back-forward-cache'],
    });
  } catch (error) {
    throw new Error(`could not start Chromium at ${CHROMIUM_PATH}: ${(error as Error).message}`);
  }
}

/** Where CI keeps what a run produced (.ci/run: CI_OUTPUT_DIR, default .ci/out). */
export const OUTPUT_DIR = path.resolve(REPO_ROOT, process.env.CI_OUTPUT_DIR || '.ci/out');
export const SCREENSHOT_DIR = path.join(OUTPUT_DIR, 'screenshots');
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 360, height: 740 } as const;

/** One page's axe-core figures: violations by impact, and the rule counts. */
export interface AxeFigures {
  page: string;
  path: string;
  violations: number;
  critical: number;
  serious: number;
  moderate: number;
  minor: number;
  passes: number;
  incomplete: number;
  /** `rule-id (impact, n nodes)` of every violation. */
  rules: string[];
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[];
  passes: unknown[];
  incomplete: unknown[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The focused element and whether it shows that it is focused (:focus-visible with an outline or a shadow). */
export interface FocusState {
  tag: string;
  type: string;
  name: string;
  focusVisible: boolean;
  indicator: string;
}

export async function focusState(page: Page): Promise<FocusState> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: 'body', type: '', name: '', focusVisible: false, indicator: 'none' };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 ? `outline ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}` : '';
    const shadow = style.boxShadow && style.boxShadow !== 'none' ? `box-shadow ${style.boxShadow}` : '';
    const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent ?? '';
    return {
      tag: el.tagName.toLowerCase(),
      type: el.getAttribute('type') ?? '',
      name: label.trim().replace(/\s+/g, ' '),
      focusVisible: el.matches(':focus-visible') && Boolean(outline || shadow),
      indicator: outline || shadow || 'none',
    };
  });
}

/**
 * A browser session's checks: every context it opens records, for the gateway's pages, a document
 * answered without `Cache-Control: no-store`, a console error (a CSP refusal shows up there) and an
 * uncaught page error; `audit` runs axe-core, saves the desktop and phone screenshots and checks the
 * page at 360 px.
 */
export class BrowserChecks {
  readonly problems: string[] = [];
  readonly figures: AxeFigures[] = [];
  readonly screenshots: string[] = [];
  /** Every page address a context loaded: a page answered 4xx on purpose is not a console error. */
  private readonly documents = new Set<string>();

  constructor(
    private readonly browser: Browser,
    private readonly origin: string,
  ) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
  }

  /** A URL as the reports show it: the path, with a set-password token elided. */
  where(url: string): string {
    return (url.startsWith(this.origin) ? url.slice(this.origin.length) : url).replace(/token=[^&#]+/, 'token=…');
  }

  async newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await this.browser.newContext({ viewport: DESKTOP, ...options });
    context.on('request', (request) => {
      if (request.resourceType() === 'document') this.documents.add(request.url());
    });
    context.on('response', (response) => {
      const request = response.request();
      if (request.resourceType() !== 'document' || !response.url().startsWith(this.origin)) return;
      const status = response.status();
      if (status >= 300 && status < 400) return;
      const pathname = new URL(response.url()).pathname;
      if (!/^\/(login|logout|settings)(\/|$)/.test(pathname)) return;
      const cacheControl = response.headers()['cache-control'] ?? '';
      if (!/\bno-store\b/.test(cacheControl)) this.problems.push(`${request.method()} ${pathname} (${status}): Cache-Control is "${cacheControl}", not no-store`);
    });
    context.on('page', (page) => this.watch(page));
    return context;
  }

  private watch(page: Page): void {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const at = message.location().url;
      // Chromium asks every origin for a favicon; the pages link none.
      if (at.endsWith('/favicon.ico')) return;
      // A page answered 400, 401, 404 or 422 (a refused form, a used link): the tests check the status.
      if (message.text().startsWith('Failed to load resource') && this.documents.has(at)) return;
      this.problems.push(`console error on ${this.where(page.url())}: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.problems.push(`uncaught error on ${this.where(page.url())}: ${error.message}`));
  }

  private async screenshot(page: Page, name: string): Promise<void> {
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    this.screenshots.push(path.relative(REPO_ROOT, file));
  }

  /**
   * axe-core on the page as it is (no serious or critical violation allowed), a viewport meta
   * element, screenshots at desktop size and at 360×740 (where nothing may scroll sideways).
   * `axe: false` for a context without JavaScript, where axe cannot run.
   */
  async audit(page: Page, name: string, { axe = true }: { axe?: boolean } = {}): Promise<void> {
    const where = this.where(page.url());
    if (axe) {
      // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not
      // govern, so the page is audited with its real policy in force.
      await page.evaluate(AXE_SOURCE);
      const result = await page.evaluate(() => (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, { resultTypes: ['violations'] }));
      const { violations, passes, incomplete } = result as AxeResult;
      const count = (impact: string) => violations.filter((v) => v.impact === impact).length;
      this.figures.push({
        page: name,
        path: where,
        violations: violations.length,
        critical: count('critical'),
        serious: count('serious'),
        moderate: count('moderate'),
        minor: count('minor'),
        passes: passes.length,
        incomplete: incomplete.length,
        rules: violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`),
      });
      for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
        const nodes = v.nodes.map((n) => `${JSON.stringify(n.target)}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`).join('; ');
        this.problems.push(`axe ${v.impact} on ${name} (${where}): ${v.id}: ${v.help}: ${nodes}`);
      }
    }
    const hasViewportMeta = await page.locator('meta[name="viewport"]').count();
    if (!hasViewportMeta) this.problems.push(`${name} (${where}): no <meta name="viewport">, so a phone renders it at desktop width`);
    await this.screenshot(page, `${name}-desktop`);
    const size = page.viewportSize() ?? DESKTOP;
    await page.setViewportSize(PHONE);
    try {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth).catch(() => 0);
      if (overflow > 0) this.problems.push(`${name} (${where}): at ${PHONE.width} px the page scrolls sideways by ${overflow} px`);
      await this.screenshot(page, `${name}-phone`);
    } finally {
      await page.setViewportSize(size);
    }
  }

  /** Writes the figures to <output>/axe.json and returns them as lines for the log. */
  writeSummary(): string {
    const file = path.join(OUTPUT_DIR, 'axe.json');
    writeFileSync(file, `${JSON.stringify({ chromium: this.browser.version(), pages: this.figures, screenshots: this.screenshots }, null, 2)}\n`);
    const lines = this.figures.map(
      (f) => `  ${f.page.padEnd(24)} ${f.path.padEnd(40)} violations ${f.violations} (critical ${f.critical}, serious ${f.serious}, moderate ${f.moderate}, minor ${f.minor}), passes ${f.passes}, incomplete ${f.incomplete}${f.rules.length ? `: ${f.rules.join(', ')}` : ''}`,
    );
    return [`axe-core figures (${path.relative(REPO_ROOT, file)}); screenshots in ${path.relative(REPO_ROOT, SCREENSHOT_DIR)}/`, ...lines].join('\n');
  }
}
