/**
 * The settings pages in a real browser (issue #34, item 4): Debian's Chromium, driven by
 * playwright-core, against the all-in-one `crm start` on embedded backends, as a newcomer runs it.
 * One system and one browser for the file; each test opens its own browser contexts (separate
 * cookie jars), so a user's session never leaks into another's.
 *
 * - The owner, from the invite link the first start prints: set a password, sign in, create a key,
 *   call the API with it, revoke it (the API answers 401 within 5 s), sign out; the back button then
 *   shows nothing private. Every page is audited with axe-core (no serious or critical violation)
 *   and saved as a desktop and a 360×740 screenshot in .ci/out/screenshots/.
 * - Keyboard: the sign-in form is completed with Tab, typing and Enter, every stop visibly focused.
 * - Roles: a member sees and revokes only their own keys; an admin sees and revokes the member's;
 *   deactivating the member (`crm admin user deactivate`) ends their session and keys within 5 s.
 * - JavaScript disabled: the same flow works.
 * Problems the pages show in passing (an axe finding, a console error such as a CSP refusal, a page
 * without `Cache-Control: no-store`, sideways scrolling on a phone) are collected by BrowserChecks
 * and each test asserts none was found.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expectEventually } from '@crm/kit/testing';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { BrowserChecks, chromiumAvailable, focusState, launchChromium } from '../support/browser';
import { apiClient } from '../support/http';
import { type CrmProcess, freePort, runCrmJson, startCrm } from '../support/processes';

// A system start (migrations on PGlite) and a browser: minutes on a loaded machine, not seconds.
jest.setTimeout(180_000);

// Embedded backends only, whatever this machine offers; PUBLIC_URL unset so the links point at this
// process's own gateway, as on a newcomer's machine.
const embedded = { DATABASE_URL: '', NATS_URL: '', MONGO_URL: '', REDIS_URL: '', CURSOR_SECRET: '', SECRETS_KEY: '', KEY_PEPPER: '', PUBLIC_URL: '' };
/** The default workspace's owner, whom the first start invites (its default, pinned against the environment). */
const OWNER_EMAIL = 'owner@example.com';
const KEY = /^svc_(live|test)_[A-Za-z0-9_-]{32}$/;
/** The non-secret beginning a list shows (`svc_live_AbCd`). */
const prefixOf = (key: string) => key.slice(0, 13);
/** Revocation reaches every gateway within this (DESIGN §4). */
const REVOCATION_MS = 5_000;

interface User {
  id: string;
  email: string;
  name: string;
  link: string;
  password: string;
}

const suite = chromiumAvailable() ? describe : describe.skip;

suite('the settings pages in Chromium', () => {
  let dataDir: string;
  let crm: CrmProcess | undefined;
  let launched: Promise<Browser | undefined> | undefined;
  let browser: Browser | undefined;
  let checks: BrowserChecks;
  let url: string;
  let ownerLink: string;
  let firstKey: string;
  let workspaceId: string;
  let adminEnv: NodeJS.ProcessEnv;
  let api: ReturnType<typeof apiClient>;
  let problemsBefore = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crm-browser-'));
    const ports = { http: await freePort(), directory: await freePort() };
    adminEnv = { CRM_DATA_DIR: dataDir, DIRECTORY_ADDR: `127.0.0.1:${ports.directory}` };
    // Chromium starts while the system does.
    const launching = launchChromium();
    // Kept settled, so a failed launch is reported by the await below, not as an unhandled
    // rejection, and a browser that started is closed even when the system did not.
    launched = launching.catch(() => undefined);
    const process_ = startCrm('all-in-one', ['start'], { ...embedded, ...adminEnv, OWNER_EMAIL, PORT: String(ports.http), LOG_LEVEL: 'warn' });
    crm = process_;
    const started = await expectEventually(
      () => {
        if (process_.child.exitCode !== null) throw new Error(`crm start exited:\n${process_.output()}`);
        const output = process_.output();
        const listening = /listening on (http:\/\/\S+)/.exec(output);
        const link = /(https?:\/\/\S+\/settings\/password\?token=[A-Za-z0-9_-]+)/.exec(output);
        const key = /\n\s+(svc_live_[A-Za-z0-9_-]{32})\n/.exec(output);
        expect({ listening: listening?.[1], link: link?.[1], key: key?.[1] }).toEqual({ listening: expect.any(String), link: expect.any(String), key: expect.any(String) });
        return { url: listening![1]!, link: link![1]!, key: key![1]!, output };
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    url = started.url;
    ownerLink = started.link;
    firstKey = started.key;
    // The printed link is the one a newcomer opens: it points at this gateway.
    expect(ownerLink.startsWith(`${url}/settings/password?token=`)).toBe(true);
    workspaceId =
      /workspace "[^"]*" \(([^)\s]+)\)/.exec(started.output)?.[1] ??
      (JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as { workspace_id: string }).workspace_id;
    api = apiClient(url);
    browser = await launching;
    checks = new BrowserChecks(browser, url);
  });

  afterAll(async () => {
    // eslint-disable-next-line no-console
    if (checks) console.log(checks.writeSummary());
    await (browser ?? (await launched))?.close();
    await crm?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    problemsBefore = checks?.problems.length ?? 0;
  });
  /** What the pages showed in passing during this test (BrowserChecks). */
  const newProblems = () => checks.problems.slice(problemsBefore);

  // ----------------------------------------------------------------------------------------------
  // What a user does, as a user does it (labels and roles, not CSS selectors).
  // ----------------------------------------------------------------------------------------------

  /**
   * A browser context (its own cookie jar) whose checks BrowserChecks records. The system runs on
   * this machine: an action that takes longer than 15 s has failed (Playwright's 30 s default only
   * delays the report).
   */
  async function newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await checks.newContext(options);
    context.setDefaultTimeout(15_000);
    return context;
  }

  /**
   * Waits for the page to reach `target` (path and query); when it does not, the error says where
   * the browser is instead and what the page says (a refused form's 403 page, a validation message).
   */
  async function arrive(page: Page, target: RegExp): Promise<void> {
    try {
      await page.waitForURL((u) => target.test(u.pathname + u.search));
    } catch (error) {
      const says = await page
        .locator('main')
        .textContent({ timeout: 1_000 })
        .then((text) => text?.replace(/\s+/g, ' ').trim())
        .catch(() => '(no main element)');
      throw new Error(`expected to reach ${target}, but the browser is at ${checks.where(page.url())}, which says: "${says}"\n${(error as Error).message}`);
    }
  }

  async function newUser(role: 'admin' | 'member', email: string, name: string): Promise<User> {
    const user = await runCrmJson<{ id: string }>(['admin', 'user', 'create', '--workspace', workspaceId, '--email', email, '--name', name, '--role', role], adminEnv);
    const invite = await runCrmJson<{ user_id: string; link: string; expires_at: string }>(['admin', 'user', 'invite', user.id], adminEnv);
    expect(invite.user_id).toBe(user.id);
    expect(invite.link.startsWith(`${url}/settings/password?token=`)).toBe(true);
    return { id: user.id, email, name, link: invite.link, password: `${name.split(' ')[0]}-plum-orbit-${email.length}-lantern` };
  }

  async function openPasswordLink(page: Page, link: string): Promise<void> {
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    await expectVisible(page.getByRole('heading', { level: 1 }));
  }

  async function submitPassword(page: Page, password: string): Promise<void> {
    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
  }

  async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signIn(page: Page, user: Pick<User, 'email' | 'password'>): Promise<void> {
    if (!/\/login$/.test(new URL(page.url()).pathname)) await page.goto(`${url}/login`);
    await fillSignIn(page, user.email, user.password);
    await arrive(page, /^\/settings\/api-keys$/);
  }

  /** A fresh context whose user has set a password from their link and signed in. */
  async function signedIn(user: User, options: { javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await newContext(options);
    const page = await context.newPage();
    await openPasswordLink(page, user.link);
    await submitPassword(page, user.password);
    await arrive(page, /^\/login\?password=set$/);
    await signIn(page, user);
    return { context, page };
  }

  function environment(page: Page, env: 'live' | 'test'): Locator {
    return page.getByRole('radio', { name: env, exact: true });
  }

  /** Fills and sends the create form; returns the key the answer shows once. */
  async function createKey(page: Page, name: string, env: 'live' | 'test', scopes: string[]): Promise<string> {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await environment(page, env).check();
    for (const scope of scopes) await page.getByRole('checkbox', { name: scope, exact: true }).check();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/settings/api-keys'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    expect(response.status()).toBe(201);
    await page.waitForLoadState();
    const shown = page.locator('input[readonly][value^="svc_"]');
    expect(await shown.count()).toBe(1);
    const key = await shown.inputValue();
    expect(key).toMatch(KEY);
    expect(key.startsWith(`svc_${env}_`)).toBe(true);
    return key;
  }

  /** The table row of the key named `name`. */
  function keyRow(page: Page, name: string): Locator {
    return page.getByRole('row').filter({ hasText: name });
  }

  function revokeControl(scope: Page | Locator): Locator {
    return scope.getByRole('button', { name: /^Revoke\b/ }).or(scope.getByRole('link', { name: /^Revoke\b/ }));
  }

  /** The key id a row's Revoke control leads to (`/settings/api-keys/<id>/revoke`). */
  async function revokeTarget(page: Page, name: string): Promise<string> {
    const row = keyRow(page, name);
    const target = (await row.locator('[href*="/revoke"]').first().getAttribute('href').catch(() => null)) ?? (await row.locator('form[action*="/revoke"]').first().getAttribute('action'));
    const id = /\/settings\/api-keys\/([^/]+)\/revoke/.exec(target ?? '')?.[1];
    expect(id).toBeDefined();
    return decodeURIComponent(id!);
  }

  /** Revoke, then confirm; `onConfirmation` sees the confirmation page. Returns when the list is back. */
  async function revoke(page: Page, name: string, onConfirmation?: (page: Page) => Promise<void>): Promise<number> {
    await revokeControl(keyRow(page, name)).click();
    await arrive(page, /^\/settings\/api-keys\/[^/]+\/revoke$/);
    await expectVisible(page.getByRole('main').getByText(name));
    if (onConfirmation) await onConfirmation(page);
    const confirmedAt = Date.now();
    await page.getByRole('main').getByRole('button', { name: /revoke/i }).click();
    await arrive(page, /^\/settings\/api-keys(\?.*)?$/);
    expect(await keyRow(page, name).count()).toBe(0);
    return confirmedAt;
  }

  /** The API refuses `key` within 5 s of `since` (the moment the revocation was confirmed). */
  async function refusedWithin(key: string, since: number): Promise<void> {
    await expectEventually(
      async () => {
        expect((await api('GET', '/v1/contacts', { key })).status).toBe(401);
      },
      { timeoutMs: Math.max(0, REVOCATION_MS - (Date.now() - since)), intervalMs: 100 },
    );
  }

  /** From any page of a session to the signed-out login page, through the "Sign out" form. */
  async function signOut(page: Page, onSignOutPage?: (page: Page) => Promise<void>): Promise<void> {
    await page.getByRole('link', { name: 'Sign out' }).or(page.getByRole('button', { name: 'Sign out' })).first().click();
    await page.waitForLoadState();
    if (new URL(page.url()).pathname === '/logout') {
      if (onSignOutPage) await onSignOutPage(page);
      await page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
    }
    await arrive(page, /^\/login(\?.*)?$/);
    const cookies = await page.context().cookies(url);
    expect(cookies.filter((c) => c.name === 'crm_session' && c.value !== '')).toEqual([]);
  }

  /**
   * The back button, step by step through the signed-out user's history down to the blank page the
   * tab opened with: each page shown (fetched again, restored from the back/forward cache, or the
   * browser's own "resubmit the form?" page) is never a key page, and holds no key, no key's
   * prefix or name, no Revoke or Create key control. Returns the pages seen.
   */
  async function backShowsNothingPrivate(page: Page, secrets: string[]): Promise<string[]> {
    const seen: string[] = [];
    for (let step = 0; step < 10; step++) {
      // 'commit': a page the back/forward cache restores fires no load event (and answers null).
      await page.goBack({ waitUntil: 'commit' }).catch(() => null);
      if (page.url() === 'about:blank') break;
      const html = await expectEventually(
        async () => {
          expect(await page.evaluate(() => document.readyState)).toBe('complete');
          return page.content();
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const shown = checks.where(page.url());
      seen.push(shown);
      for (const secret of secrets) expect({ shown, leaks: html.includes(secret) ? secret : null }).toEqual({ shown, leaks: null });
      expect({ shown, key: /svc_(live|test)_[A-Za-z0-9_-]{4}/.exec(html)?.[0] ?? null }).toEqual({ shown, key: null });
      expect({ shown, revoke: await revokeControl(page).count(), create: await page.getByRole('button', { name: 'Create key' }).count() }).toEqual({ shown, revoke: 0, create: 0 });
      // The key pages answer a signed-out request with the login page (a used password link's page
      // is public and says the link was used).
      if (page.url().startsWith(url)) expect(new URL(page.url()).pathname).not.toMatch(/^\/settings\/api-keys/);
    }
    expect(seen.length).toBeGreaterThan(0);
    return seen;
  }

  async function expectVisible(locator: Locator): Promise<void> {
    await locator.first().waitFor({ state: 'visible', timeout: 10_000 });
  }

  // ----------------------------------------------------------------------------------------------
  // The flows.
  // ----------------------------------------------------------------------------------------------

  test('the owner: invite link, password, sign-in, a key used and revoked (401 within 5 s), sign-out, and back shows nothing private', async () => {
    const context = await newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    const owner = { email: OWNER_EMAIL, password: 'Owner-quartz-meadow-7391' };
    try {
      await openPasswordLink(page, ownerLink);
      await checks.audit(page, 'set-password');

      // A password the server refuses (long enough for the field's own check, but the email itself):
      // the form again, with the reason announced and tied to the field.
      const [weak] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), submitPassword(page, owner.email)]);
      await page.waitForLoadState();
      // The status with what the page says, so a refusal (403) explains itself.
      expect(`${weak.status()}: ${(await page.locator('main').textContent())?.replace(/\s+/g, ' ').trim()}`).toMatch(/^422: /);
      const reason = (await page.getByRole('alert').first().textContent())?.trim() ?? '';
      expect(reason).not.toBe('');
      const field = page.getByLabel('New password', { exact: true });
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const description = await field.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      expect(description).toContain(reason);
      await checks.audit(page, 'set-password-error');

      await submitPassword(page, owner.password);
      await arrive(page, /^\/login\?password=set$/);
      await checks.audit(page, 'login');

      // A wrong password: the login page again, with the message.
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), fillSignIn(page, owner.email, 'Not-the-owner-password-1')]);
      await page.waitForLoadState();
      expect(new URL(page.url()).pathname).toBe('/login');
      await expectVisible(page.getByText(/email or password is incorrect/i));
      await checks.audit(page, 'login-error');

      await fillSignIn(page, owner.email, owner.password);
      await arrive(page, /^\/settings\/api-keys$/);
      // The owner sees the workspace's key from the first start too (owners see every key).
      await expectVisible(page.getByText(prefixOf(firstKey)));
      await checks.audit(page, 'key-list');

      const key = await createKey(page, 'owner browser key', 'live', ['contacts:read']);
      await checks.audit(page, 'key-created');
      // JavaScript adds the copy button; it copies the key.
      const copy = page.getByRole('button', { name: /copy/i });
      await expectVisible(copy);
      await copy.click();
      await expectEventually(async () => expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key));

      // The key works, within its scopes.
      expect((await api('GET', '/v1/contacts', { key })).status).toBe(200);
      expect((await api('POST', '/v1/contacts', { key, body: { first_name: 'Scoped', email: 'scoped@example.com' } })).status).toBe(403);

      // Shown once: the list has its name and prefix, never the key again.
      await page.goto(`${url}/settings/api-keys`);
      await expectVisible(keyRow(page, 'owner browser key'));
      expect(await keyRow(page, 'owner browser key').textContent()).toContain(prefixOf(key));
      expect(await page.content()).not.toContain(key);

      const confirmedAt = await revoke(page, 'owner browser key', (confirmation) => checks.audit(confirmation, 'revoke-confirmation'));
      await refusedWithin(key, confirmedAt);
      await checks.audit(page, 'key-list-after-revoke');

      await signOut(page, (signOutPage) => checks.audit(signOutPage, 'sign-out'));
      await checks.audit(page, 'login-signed-out');
      const back = await backShowsNothingPrivate(page, [key, prefixOf(key), 'owner browser key', prefixOf(firstKey)]);
      // eslint-disable-next-line no-console
      console.log(`after sign-out, the back button showed: ${back.join(' <- ')}`);

      // The link was used: it cannot set a password again.
      const again = await page.goto(ownerLink);
      expect(again?.status()).toBe(400);
      await expectVisible(page.getByText(/expired|used/i));
      await checks.audit(page, 'password-link-used');
    } finally {
      await context.close();
    }
    expect(newProblems()).toEqual([]);
  });

  test('keyboard: the sign-in form is completed with Tab, typing and Enter, and focus is always visible', async () => {
    const user = await newUser('member', 'kim.keys@example.com', 'Kim Keys');
    const context = await newContext();
    const page = await context.newPage();
    try {
      await openPasswordLink(page, user.link);
      await submitPassword(page, user.password);
      await arrive(page, /^\/login\?password=set$/);
      await page.goto(`${url}/login`);

      const stops = [];
      let focus = await focusState(page);
      // Tab from the top of the page to the Email field (a skip link or the header may come first).
      for (let i = 0; i < 12 && !(focus.tag === 'input' && /^Email/.test(focus.name)); i++) {
        await page.keyboard.press('Tab');
        focus = await focusState(page);
        stops.push(focus);
      }
      expect(focus).toMatchObject({ tag: 'input', name: expect.stringMatching(/^Email/) });
      await page.keyboard.type(user.email);
      await page.keyboard.press('Tab');
      stops.push((focus = await focusState(page)));
      expect(focus).toMatchObject({ tag: 'input', type: 'password', name: expect.stringMatching(/^Password/) });
      await page.keyboard.type(user.password);
      await page.keyboard.press('Tab');
      stops.push((focus = await focusState(page)));
      expect(focus).toMatchObject({ tag: 'button', name: 'Sign in' });
      expect(stops.filter((stop) => !stop.focusVisible)).toEqual([]);
      await page.keyboard.press('Enter');
      await arrive(page, /^\/settings\/api-keys$/);
      await expectVisible(page.getByRole('button', { name: 'Create key' }));
    } finally {
      await context.close();
    }
    expect(newProblems()).toEqual([]);
  });

  test('roles: a member sees and revokes only their own keys; an admin sees and revokes the member’s too; deactivation ends the member’s session and keys', async () => {
    const [admin, member] = await Promise.all([newUser('admin', 'ada.admin@example.com', 'Ada Admin'), newUser('member', 'mel.member@example.com', 'Mel Member')]);
    const [a, m] = await Promise.all([signedIn(admin), signedIn(member)]);
    try {
      const memberKey = await createKey(m.page, 'member key', 'test', ['contacts:read']);
      const adminKey = await createKey(a.page, 'admin key', 'live', ['contacts:*']);
      expect((await api('GET', '/v1/contacts', { key: memberKey })).status).toBe(200);

      // The member's list: their key alone.
      await m.page.goto(`${url}/settings/api-keys`);
      await expectVisible(keyRow(m.page, 'member key'));
      expect(await revokeControl(m.page).count()).toBe(1);
      const memberHtml = await m.page.content();
      for (const other of ['admin key', prefixOf(adminKey), prefixOf(firstKey)]) expect({ other, shown: memberHtml.includes(other) }).toEqual({ other, shown: false });

      // The admin's list: every key of the workspace, the member's with its creator's name.
      await a.page.goto(`${url}/settings/api-keys`);
      await expectVisible(keyRow(a.page, 'admin key'));
      await expectVisible(a.page.getByText(prefixOf(firstKey)));
      const memberRow = keyRow(a.page, 'member key');
      await expectVisible(memberRow);
      expect(await memberRow.textContent()).toEqual(expect.stringContaining('Mel Member'));
      expect(await memberRow.textContent()).toEqual(expect.stringContaining(prefixOf(memberKey)));

      // The member cannot reach the admin's key: neither its confirmation page nor the revoke itself.
      const adminKeyId = await revokeTarget(a.page, 'admin key');
      const confirmation = await m.page.goto(`${url}/settings/api-keys/${encodeURIComponent(adminKeyId)}/revoke`);
      expect(confirmation?.status()).toBe(404);
      await m.page.goto(`${url}/settings/api-keys`);
      const csrf = await m.page.locator('input[name="_csrf"]').first().inputValue();
      const forged = await m.context.request.post(`${url}/settings/api-keys/${encodeURIComponent(adminKeyId)}/revoke`, {
        form: { _csrf: csrf },
        headers: { origin: url },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(404);
      expect((await api('GET', '/v1/contacts', { key: adminKey })).status).toBe(200);

      // The admin revokes the member's key.
      const confirmedAt = await revoke(a.page, 'member key');
      await refusedWithin(memberKey, confirmedAt);
      await m.page.reload();
      expect(await keyRow(m.page, 'member key').count()).toBe(0);
      expect((await api('GET', '/v1/contacts', { key: adminKey })).status).toBe(200);

      // Deactivating the member ends their session and their keys within 5 s; the admin's stay.
      const secondKey = await createKey(m.page, 'member second key', 'live', ['contacts:read']);
      await m.page.goto(`${url}/settings/api-keys`);
      await runCrmJson(['admin', 'user', 'deactivate', member.id], adminEnv);
      const deactivatedAt = Date.now();
      await refusedWithin(secondKey, deactivatedAt);
      await expectEventually(
        async () => {
          await m.page.reload();
          expect(new URL(m.page.url()).pathname).toBe('/login');
        },
        { timeoutMs: Math.max(0, REVOCATION_MS - (Date.now() - deactivatedAt)), intervalMs: 100 },
      );
      await a.page.reload();
      expect(await keyRow(a.page, 'member second key').count()).toBe(0);
      await expectVisible(keyRow(a.page, 'admin key'));
      expect((await api('GET', '/v1/contacts', { key: adminKey })).status).toBe(200);
      // A deactivated user cannot sign in again.
      await m.page.goto(`${url}/login`);
      await Promise.all([m.page.waitForResponse((r) => r.request().method() === 'POST'), fillSignIn(m.page, member.email, member.password)]);
      await m.page.waitForLoadState();
      expect(new URL(m.page.url()).pathname).toBe('/login');
      await expectVisible(m.page.getByText(/email or password is incorrect/i));
    } finally {
      await Promise.all([a.context.close(), m.context.close()]);
    }
    expect(newProblems()).toEqual([]);
  });

  test('with JavaScript disabled the whole flow works: password, sign-in, a key created, used and revoked, sign-out', async () => {
    const user = await newUser('member', 'nora.noscript@example.com', 'Nora NoScript');
    const { context, page } = await signedIn(user, { javaScriptEnabled: false });
    try {
      const key = await createKey(page, 'no-script key', 'test', ['contacts:read', 'organizations:*']);
      // Without JavaScript the copy button stays hidden; the key is in a field to select and copy.
      expect(await page.getByRole('button', { name: /copy/i }).count()).toBe(0);
      await checks.audit(page, 'key-created-no-javascript', { axe: false });
      expect((await api('GET', '/v1/contacts', { key })).status).toBe(200);
      expect((await api('GET', '/v1/organizations', { key })).status).toBe(200);

      await page.goto(`${url}/settings/api-keys`);
      const confirmedAt = await revoke(page, 'no-script key');
      await refusedWithin(key, confirmedAt);
      await signOut(page);
      await backShowsNothingPrivate(page, [key, prefixOf(key), 'no-script key']);
    } finally {
      await context.close();
    }
    expect(newProblems()).toEqual([]);
  });
});
