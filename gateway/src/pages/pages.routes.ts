import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CrmError, type FieldIssue, type RequestIn, type ResponseOut, type ServiceClient, isScope } from '@crm/kit';
import type { DirectoryServiceDefinition } from '@crm/proto';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignInThrottle } from '../limits';
import { FORM_BODY_LIMIT, field, fields, formOf, parseForm } from './form';
import { errorPage, sentence } from './page-errors';
import {
  CSRF_COOKIE,
  SESSION_COOKIE,
  checkSessionCsrf,
  clearSessionCookie,
  cookiesNeedSecure,
  isCrossOrigin,
  sessionIdOf,
  setSessionCookie,
} from './page-session';
import { scopeChoices } from './scope-choices';

/**
 * The settings pages (gateway/README.md, "The settings pages"): sign-in, sign-out, the password
 * and the API keys of the signed-in user, as server-rendered HTML that works without JavaScript.
 * The directory keeps users, credentials, sessions and keys; these routes only call it.
 */
export interface SettingsPagesOptions {
  directory: ServiceClient<DirectoryServiceDefinition>;
  deadlineMs: number;
  throttle: SignInThrottle;
}

type Session = ResponseOut<DirectoryServiceDefinition['GetSession']>;
type ApiKey = ResponseOut<DirectoryServiceDefinition['ListSessionApiKeys']>['data'][number];

/** Templates and the two assets; outside src, so the compiler needs no copy step (the image ships them). */
export const VIEWS_DIR = path.join(__dirname, '..', '..', 'views');

/** The Content-Security-Policy of every page: nothing but this origin's own script, style and forms. */
export const PAGE_CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

const KEYS_PAGE = '/settings/api-keys';
const KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A set-password link's token (32 random bytes, base64url); anything else is not sent to the directory. */
const PASSWORD_TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
/** Longer than any address or password the directory accepts: refused as wrong without asking it. */
const MAX_EMAIL = 320;
const MAX_PASSWORD = 1_024;
const MAX_KEY_NAME = 100;
const ENVIRONMENTS = ['live', 'test'];

/** One notice per query value, never the value itself: nothing a link carries is echoed. */
const NOTICES: Record<string, string> = {
  revoked: 'The key was revoked. Clients using it stop working within 5 seconds.',
  'password-set': 'Your password is set. Sign in with it.',
  'signed-out': 'You have signed out.',
};

const INVALID_CREDENTIALS = 'Email or password is incorrect.';
const LINK_UNUSABLE = new CrmError(
  'invalid_request',
  'this link to set a password has expired or was already used: ask a workspace admin for a new one',
);

const isCode = (error: unknown, code: CrmError['code']): boolean => error instanceof CrmError && error.code === code;

/** What the layout shows of the signed-in user. */
const accountOf = (session: Session) => ({
  email: session.user?.email ?? '',
  role: session.user?.role ?? '',
  workspace: session.workspace?.name ?? '',
});

const canSeeAll = (session: Session) => session.user?.role === 'owner' || session.user?.role === 'admin';

/** `2026-05-15T10:00:12.345Z` as `2026-05-15 10:00 UTC`; '' stays ''. */
const minute = (iso: string) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '');

const keyRow = (key: ApiKey) => ({
  id: key.id,
  name: key.name || '(no name)',
  prefix: key.prefix,
  scopes: key.scopes.join(', '),
  env: key.env,
  createdBy: key.created_by_name || (key.user_id ? 'a former user' : 'the command line'),
  createdAt: key.created_at,
  created: minute(key.created_at),
  lastUsedAt: key.last_used_at,
  lastUsed: key.last_used_at ? minute(key.last_used_at) : 'never',
});

function loadAssets() {
  const read = (name: string) => readFileSync(path.join(VIEWS_DIR, 'assets', name));
  return {
    'pages.css': { body: read('pages.css'), type: 'text/css; charset=utf-8' },
    'pages.js': { body: read('pages.js'), type: 'text/javascript; charset=utf-8' },
  };
}

export function registerSettingsPages(app: FastifyInstance, options: SettingsPagesOptions): void {
  const { directory, deadlineMs, throttle } = options;
  // Read once at start: a gateway whose image lacks them fails to start instead of serving bare pages.
  const assets = loadAssets();
  const ask = <K extends keyof DirectoryServiceDefinition & string>(method: K, request: RequestIn<DirectoryServiceDefinition[K]>) =>
    directory.call(method, request, { deadlineMs });

  app.register(async (scope) => {
    // Forms only: the API's JSON parser is not inherited here, and a form is read strictly (form.ts).
    scope.removeAllContentTypeParsers();
    await scope.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT, parser: parseForm });
    await scope.register(fastifyCookie);
    // For the two forms sent before there is a session (sign-in, and setting a password from a
    // link): a secret in a cookie, a token made from it in the form. Session forms carry the
    // session's own token instead (checkSessionCsrf).
    await scope.register(fastifyCsrf, { cookieKey: CSRF_COOKIE, cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true } });
    await scope.register(fastifyHelmet, {
      contentSecurityPolicy: { useDefaults: false, directives: PAGE_CSP },
      frameguard: { action: 'deny' },
      // Not `no-referrer`: under it Chromium sends `Origin: null` on a page's own forms, which the
      // origin check must refuse. `same-origin` still keeps a link's token from other sites.
      referrerPolicy: { policy: 'same-origin' },
    });
    await scope.register(fastifyView, { engine: { eta: new Eta() }, root: VIEWS_DIR, production: true });

    scope.addHook('onRequest', async (request, reply) => {
      // Nothing a page shows is kept by a browser or a proxy: the back button after signing out
      // shows nothing private.
      reply.header('Cache-Control', 'no-store');
      if (request.method === 'POST' && isCrossOrigin(request)) {
        throw new CrmError('forbidden', 'this form was sent from another site, and is refused');
      }
    });

    const render = (reply: FastifyReply, view: string, data: Record<string, unknown>) => reply.view(`${view}.eta`, { title: '', ...data });

    scope.setErrorHandler(async (error, request, reply) => {
      if (request.raw.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      const page = errorPage(error, request);
      if (page.status === 503 && !reply.hasHeader('Retry-After')) reply.header('Retry-After', '1');
      return render(reply.code(page.status), 'error', { title: page.title, message: page.message });
    });

    /** The presented session, or undefined when there is none or it has ended (the directory decides). */
    const currentSession = async (request: FastifyRequest): Promise<Session | undefined> => {
      const sessionId = sessionIdOf(request);
      if (!sessionId) return undefined;
      try {
        const session = await ask('GetSession', { session_id: sessionId });
        return { ...session, session_id: sessionId };
      } catch (error) {
        if (isCode(error, 'unauthorized')) return undefined;
        throw error;
      }
    };
    const toLogin = (request: FastifyRequest, reply: FastifyReply) => {
      if (request.cookies[SESSION_COOKIE] !== undefined) clearSessionCookie(request, reply);
      return reply.redirect('/login', 303);
    };
    const notice = (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>;
      const value = query.password === 'set' ? 'password-set' : query.notice;
      return typeof value === 'string' ? NOTICES[value] : undefined;
    };

    // ------------------------------------------------------------------ sign-in and sign-out

    const loginPage = (request: FastifyRequest, reply: FastifyReply, status: number, data: { email?: string; error?: string } = {}) =>
      render(reply.code(status), 'login', {
        title: 'Sign in',
        csrf: reply.generateCsrf({ secure: cookiesNeedSecure(request) }),
        email: data.email ?? '',
        error: data.error,
        notice: status === 200 ? notice(request) : undefined,
      });

    scope.get('/login', async (request, reply) => loginPage(request, reply, 200));

    scope.post('/login', { preHandler: scope.csrfProtection }, async (request, reply) => {
      const form = formOf(request.body);
      const email = field(form, 'email').trim();
      const password = field(form, 'password');
      if (!email || !password) return loginPage(request, reply, 422, { email, error: 'Enter your email and your password.' });
      const attempt = await throttle.attempt(email, request.ip);
      if (!attempt.admitted) {
        const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
        reply.header('Retry-After', String(seconds));
        throw new CrmError('rate_limited', `too many failed sign-ins: try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}`, {
          retry_after_seconds: seconds,
        });
      }
      // Longer than any the directory accepts: wrong, and the same answer as any wrong password.
      if (email.length > MAX_EMAIL || password.length > MAX_PASSWORD) return loginPage(request, reply, 401, { email: '', error: INVALID_CREDENTIALS });
      let session: Session;
      try {
        session = await ask('SignIn', { email, password });
      } catch (error) {
        // The same status and page for an unknown email, a wrong password and an inactive user;
        // the directory takes the same time for each.
        if (isCode(error, 'unauthorized')) return loginPage(request, reply, 401, { email, error: INVALID_CREDENTIALS });
        // Not judged (the directory did not answer): not a failure either.
        await attempt.withdraw();
        throw error;
      }
      await attempt.succeeded();
      // A new id at every sign-in; the session the browser presented before is ended.
      const previous = sessionIdOf(request);
      if (previous && previous !== session.session_id) {
        await ask('EndSession', { session_id: previous }).catch((error: unknown) =>
          request.log.warn({ err: error instanceof CrmError ? error.code : 'error' }, 'the previous session could not be ended at sign-in'),
        );
      }
      setSessionCookie(request, reply, session.session_id, session.expires_at);
      return reply.redirect(KEYS_PAGE, 303);
    });

    scope.get('/logout', async (request, reply) => {
      const session = await currentSession(request);
      if (!session) return toLogin(request, reply);
      return render(reply, 'logout', { title: 'Sign out', account: accountOf(session), current: 'logout', csrf: session.csrf_token });
    });

    scope.post('/logout', async (request, reply) => {
      const session = await currentSession(request);
      if (!session) return toLogin(request, reply);
      checkSessionCsrf(formOf(request.body)._csrf, session.csrf_token);
      await ask('EndSession', { session_id: session.session_id });
      clearSessionCookie(request, reply);
      return reply.redirect('/login?notice=signed-out', 303);
    });

    // ------------------------------------------------------------------ /settings

    scope.register(
      async (settings) => {
        settings.setNotFoundHandler(async (_request, reply) =>
          render(reply.code(404), 'error', { title: 'Not found', message: 'There is no such settings page.' }),
        );

        settings.get('/', async (_request, reply) => reply.redirect(KEYS_PAGE, 303));

        settings.get('/assets/:name', async (request, reply) => {
          const asset = assets[(request.params as { name: string }).name as keyof typeof assets];
          if (!asset) return render(reply.code(404), 'error', { title: 'Not found', message: 'There is no such file.' });
          // Not private, and small: kept for five minutes.
          return reply.header('Cache-Control', 'public, max-age=300').type(asset.type).send(asset.body);
        });

        // -------------------------------------------------------------- password

        const passwordPage = (
          reply: FastifyReply,
          status: number,
          data: { csrf: string; email: string; token?: string; session?: Session; error?: string },
        ) =>
          render(reply.code(status), 'password', {
            title: 'Set your password',
            account: data.session ? accountOf(data.session) : undefined,
            current: 'password',
            ...data,
          });

        /** The link's token from the query or the form: absent, or one of the right shape, else 400. */
        const linkToken = (value: unknown): string | undefined => {
          if (value === undefined || value === '') return undefined;
          if (typeof value !== 'string' || !PASSWORD_TOKEN.test(value)) throw LINK_UNUSABLE;
          return value;
        };
        const checkLink = async (token: string) => {
          try {
            return await ask('CheckPasswordToken', { token });
          } catch (error) {
            if (isCode(error, 'unauthorized')) throw LINK_UNUSABLE;
            throw error;
          }
        };

        settings.get('/password', async (request, reply) => {
          const token = linkToken((request.query as Record<string, unknown>).token);
          if (token) {
            const link = await checkLink(token);
            return passwordPage(reply, 200, { csrf: reply.generateCsrf({ secure: cookiesNeedSecure(request) }), email: link.email, token });
          }
          const session = await currentSession(request);
          if (!session) return toLogin(request, reply);
          return passwordPage(reply, 200, { csrf: session.csrf_token, email: session.user?.email ?? '', session });
        });

        settings.post(
          '/password',
          {
            // A link's form was made before any session: its token is the cookie's (as sign-in's).
            preHandler: (request, reply, done) => (formOf(request.body).token ? scope.csrfProtection(request, reply, done) : done()),
          },
          async (request, reply) => {
            const form = formOf(request.body);
            const token = linkToken(form.token);
            const password = field(form, 'password');
            const session = token ? undefined : await currentSession(request);
            if (!token) {
              if (!session) return toLogin(request, reply);
              checkSessionCsrf(form._csrf, session.csrf_token);
            }
            const again = async (error: string) => {
              if (session) return passwordPage(reply, 422, { csrf: session.csrf_token, email: session.user?.email ?? '', session, error });
              const link = await checkLink(token!);
              return passwordPage(reply, 422, { csrf: reply.generateCsrf({ secure: cookiesNeedSecure(request) }), email: link.email, token, error });
            };
            if (!password) return again('Enter a new password.');
            try {
              await ask('SetPassword', token ? { password, token } : { password, session_id: session!.session_id });
            } catch (error) {
              if (isCode(error, 'validation_failed')) return again(fieldMessage(error as CrmError, 'password') ?? 'This password cannot be used.');
              if (isCode(error, 'unauthorized')) {
                if (token) throw LINK_UNUSABLE;
                return toLogin(request, reply);
              }
              throw error;
            }
            // Setting a password ends every session of the user, this one too.
            clearSessionCookie(request, reply);
            return reply.redirect('/login?password=set', 303);
          },
        );

        // -------------------------------------------------------------- API keys

        const keysPage = async (
          reply: FastifyReply,
          session: Session,
          status: number,
          data: { notice?: string; created?: { name: string; key: string }; errors?: Record<string, string>; values?: { name: string; env: string; scopes: string[] } } = {},
        ) => {
          const { data: keys } = await ask('ListSessionApiKeys', { session_id: session.session_id });
          const values = data.values ?? { name: '', env: 'live', scopes: [] };
          return render(reply.code(status), 'api-keys', {
            title: 'API keys',
            account: accountOf(session),
            current: 'api-keys',
            csrf: session.csrf_token,
            seesAll: canSeeAll(session),
            keys: keys.map(keyRow),
            notice: data.notice,
            created: data.created,
            errors: data.errors ?? {},
            values,
            choices: scopeChoices(values.scopes),
          });
        };

        settings.get('/api-keys', async (request, reply) => {
          const session = await currentSession(request);
          if (!session) return toLogin(request, reply);
          return keysPage(reply, session, 200, { notice: notice(request) });
        });

        settings.post('/api-keys', async (request, reply) => {
          const session = await currentSession(request);
          if (!session) return toLogin(request, reply);
          const form = formOf(request.body);
          checkSessionCsrf(form._csrf, session.csrf_token);
          const values = { name: field(form, 'name').trim(), env: field(form, 'env') || 'live', scopes: fields(form, 'scopes') };
          const errors = keyFormErrors(values);
          if (Object.keys(errors).length) return keysPage(reply, session, 422, { errors, values });
          let created;
          try {
            created = await ask('CreateSessionApiKey', { session_id: session.session_id, ...values });
          } catch (error) {
            if (!isCode(error, 'validation_failed')) throw error;
            return keysPage(reply, session, 422, { errors: keyFieldErrors(error as CrmError), values });
          }
          return keysPage(reply, session, 201, { created: { name: values.name, key: created.key } });
        });

        /** The key the session's user may see, or the not-found page's error. */
        const visibleKey = async (session: Session, id: string): Promise<ApiKey> => {
          const { data: keys } = await ask('ListSessionApiKeys', { session_id: session.session_id });
          const key = KEY_ID.test(id) ? keys.find((k) => k.id === id) : undefined;
          if (!key) throw new CrmError('not_found', 'there is no such key, or it is not yours to manage');
          return key;
        };

        settings.get('/api-keys/:id/revoke', async (request, reply) => {
          const session = await currentSession(request);
          if (!session) return toLogin(request, reply);
          const key = keyRow(await visibleKey(session, (request.params as { id: string }).id));
          return render(reply, 'revoke', { title: 'Revoke a key', account: accountOf(session), current: 'api-keys', csrf: session.csrf_token, key });
        });

        settings.post('/api-keys/:id/revoke', async (request, reply) => {
          const session = await currentSession(request);
          if (!session) return toLogin(request, reply);
          checkSessionCsrf(formOf(request.body)._csrf, session.csrf_token);
          const { id } = request.params as { id: string };
          if (!KEY_ID.test(id)) throw new CrmError('not_found', 'there is no such key, or it is not yours to manage');
          try {
            await ask('RevokeSessionApiKey', { session_id: session.session_id, id });
          } catch (error) {
            if (isCode(error, 'not_found')) throw new CrmError('not_found', 'there is no such key, or it is not yours to manage');
            throw error;
          }
          return reply.redirect(`${KEYS_PAGE}?notice=revoked`, 303);
        });
      },
      { prefix: '/settings' },
    );
  });
}

/** The first issue's message about `name` (or `name[i]`), as a sentence. */
function fieldMessage(error: CrmError, name: string): string | undefined {
  const issues = Array.isArray(error.details) ? (error.details as FieldIssue[]) : [];
  const issue = issues.find((i) => i.field === name || i.field?.startsWith(`${name}[`));
  return issue ? sentence(issue.message) : undefined;
}

/** The create form's own rules, checked before the directory is asked (which checks them again). */
function keyFormErrors(values: { name: string; env: string; scopes: string[] }): Record<string, string> {
  const errors: Record<string, string> = {};
  const length = [...values.name].length;
  if (length === 0) errors.name = 'Enter a name for the key.';
  else if (length > MAX_KEY_NAME) errors.name = `Use at most ${MAX_KEY_NAME} characters.`;
  if (!ENVIRONMENTS.includes(values.env)) errors.env = 'Choose live or test.';
  if (values.scopes.length === 0) errors.scopes = 'Choose at least one scope.';
  else if (!values.scopes.every(isScope)) errors.scopes = 'Choose scopes from the list.';
  return errors;
}

/** The directory's refusal of a new key, by the form's fields. */
function keyFieldErrors(error: CrmError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const name of ['name', 'env', 'scopes']) {
    const message = fieldMessage(error, name);
    if (message) errors[name] = message;
  }
  if (!Object.keys(errors).length) errors.name = sentence(error.message);
  return errors;
}
