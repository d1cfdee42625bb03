import { CrmError, type Logger, countRefusal, createLogger, findJsonProblem, newId } from '@crm/kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { routerError, sendError, toCrmError } from './errors';
import { inRequestSpan, setRoute, tracedServerFactory } from './http-tracing';
import { buildOpenApi } from './openapi';
import { type ResolveKey, authenticate } from './plugins/auth';
import { type IdempotencyStore, fingerprintRequest, parseIdempotencyKey } from './plugins/idempotency';
import { registerDocs } from './routes/docs.routes';
import { registerLegacyPaths } from './routes/legacy.routes';
import { type ResourceRouteOptions, registerResourceRoutes } from './routes/resource.routes';
import { type RateLimiter, type RateLimits, rateLimitHeaders } from './limits';
import type { GatewayReadiness } from './readiness';
import { requireScope } from './scopes';
import { type ClientTimeouts, DEFAULT_CLIENT_TIMEOUTS, answerSlowClients, clientTimeoutOptions } from './slow-clients';

/** Both prefixes are served identically (gateway/README.md, "Paths"). */
export const PREFIXES = ['/v1', '/api/v1'] as const;
export const BODY_LIMIT = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Every method a path does not offer (and OPTIONS: there is no CORS surface) answers 405 with an
 * Allow header listing the ones it does, HEAD included where GET is. Registered per path, so the
 * answer comes before authentication and reveals nothing.
 */
function registerMethodNotAllowed(app: FastifyInstance, url: string, offered: ReadonlySet<string>): void {
  const allow = [...offered, ...(offered.has('GET') ? ['HEAD'] : [])].join(', ');
  app.route({
    method: [...METHODS.filter((m) => !offered.has(m)), 'OPTIONS'],
    url,
    handler: async (request, reply) => {
      reply.header('Allow', allow);
      return sendError(request, reply, new CrmError('method_not_allowed', `${request.method} is not allowed on this path; allowed: ${allow}`));
    },
  });
}
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, forwarded to the owning service. */
    idempotency?: { key: string; fingerprint: string; scope: string };
  }
}

export interface GatewayDeps {
  resolveKey: ResolveKey;
  /** Records of Idempotency-Key requests; absent means keys are forwarded to services only. */
  idempotency?: IdempotencyStore;
  /** Per-key and per-workspace limits; absent means unlimited (tests of other concerns). */
  rateLimit?: { limiter: RateLimiter; limits: RateLimits };
  resources: ResourceRouteOptions[];
  logger: Logger | false;
  /** Readiness for `/readyz`: the checks that decide it, and the dependencies it reports only. */
  ready?: () => Promise<GatewayReadiness>;
  /** Routes beyond the API (tracking and unsubscribe, the settings pages), registered as they are. */
  register?: (app: FastifyInstance) => void;
  /**
   * The proxies in front of the gateway (addresses or CIDR ranges, TRUST_PROXY) whose
   * X-Forwarded-For is believed: the client address that sign-in throttling and tracking see.
   * Empty: the connection's own address.
   */
  trustProxy?: readonly string[];
  /** How long clients have to send a request; default DEFAULT_CLIENT_TIMEOUTS. */
  clientTimeouts?: ClientTimeouts;
}

/**
 * The request pipeline, in order: request id → route match (unknown, legacy and wrong-method paths
 * are answered here, before authentication) → authentication → rate limits → scope → body
 * parsing → Idempotency-Key (replay, 409, 422) → validation → service call → envelope.
 */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const log = deps.logger || createLogger('gateway', 'silent');
  const app: FastifyInstance = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // One line per request is logged by the onResponse hook below, with the fields we choose.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { caseSensitive: true },
    requestIdHeader: false,
    trustProxy: deps.trustProxy?.length ? [...deps.trustProxy] : false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${newId()}`;
    },
    // While closing, requests are refused by the onRequest hook below, in the envelope.
    return503OnClosing: false,
    // What the router refuses before any route (a path that is not percent-encoded UTF-8) is
    // answered in the envelope too.
    frameworkErrors: (error, request, reply) => sendError(request, reply, routerError(error)),
    ...clientTimeoutOptions(deps.clientTimeouts ?? DEFAULT_CLIENT_TIMEOUTS),
    // Every request in a span of its own, and its duration metric (http-tracing.ts).
    serverFactory: tracedServerFactory,
  });
  answerSlowClients(app, log);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // JSON only: text/plain bodies are refused with 415 instead of being accepted as strings.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // The route template, never the path, on the request's span and its duration metric.
    setRoute(request.raw, request.routeOptions.url);
    if (closing) {
      // A request that reaches a closing gateway on a kept-alive connection; Fastify has already
      // marked the response `Connection: close`, so the retry opens a connection to another instance.
      throw new CrmError('unavailable', 'this gateway is shutting down; retry the request');
    }
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const principal = await authenticate(request, deps.resolveKey);
    if (deps.rateLimit) {
      const decision = await deps.rateLimit.limiter.hit(principal.workspaceId, principal.keyId, request.id);
      reply.headers(rateLimitHeaders(deps.rateLimit.limits, decision));
      if (!decision.admitted) {
        countRefusal('rate_limit');
        const wait = reply.getHeader('Retry-After');
        throw new CrmError('rate_limited', `rate limit exceeded: retry after ${wait} seconds`, {
          retry_after_seconds: Number(wait),
        });
      }
    }
    requireScope(principal, scope);
  });

  // What no store can keep as sent (a NUL, an unpaired surrogate, an inexact number, nesting past
  // JSON_LIMITS.maxDepth) is refused for every route at once, before a key is claimed or a service
  // called (gateway/README.md, "Input limits").
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) return;
    const problem = findJsonProblem(request.body);
    if (problem) throw CrmError.validation([problem]);
  });

  // Idempotency-Key on writes: answered here when the key was seen, claimed otherwise.
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.scope || !WRITE_METHODS.has(request.method)) return;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (!key) return;
    const fingerprint = fingerprintRequest(request.method, request.url, request.body);
    const scope = `${request.principal!.workspaceId}:${key}`;
    if (!deps.idempotency) {
      request.idempotency = { key, fingerprint, scope };
      return;
    }
    const existing = await deps.idempotency.claim(scope, fingerprint);
    if (!existing) {
      request.idempotency = { key, fingerprint, scope };
      return;
    }
    if (existing.fingerprint !== fingerprint) {
      throw new CrmError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', { idempotency_key: key });
    }
    if (existing.state === 'in_flight') {
      throw new CrmError('conflict', 'a request with this Idempotency-Key is still in progress; retry when it has finished', {
        idempotency_key: key,
      });
    }
    reply.header('Idempotent-Replayed', 'true').status(existing.status!);
    if (existing.status === 204 || !existing.body) return reply.send();
    return reply.type('application/json').send(existing.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim || !deps.idempotency) return payload;
    request.idempotency = undefined;
    // A 5xx is not an answer to remember: the retry goes to the service, whose own record decides.
    if (reply.statusCode >= 500) await deps.idempotency.release(claim.scope);
    else {
      await deps.idempotency.complete(claim.scope, {
        fingerprint: claim.fingerprint,
        state: 'done',
        status: reply.statusCode,
        body: typeof payload === 'string' ? payload : undefined,
      });
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    // Written from the response's events: inside the request's span again, so it carries its ids.
    inRequestSpan(request.raw, () =>
      request.log.info(
        {
          requestId: request.id,
          method: request.method,
          path: request.url.split('?')[0],
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
          workspaceId: request.principal?.workspaceId,
        },
        'request',
      ),
    );
  });

  app.setErrorHandler(async (error, request, reply) => {
    // The connection closed while the body was arriving (a slow client cut off, or one that left):
    // there is no one to answer and nothing failed here.
    if (request.raw.destroyed && (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      request.log.info({ requestId: request.id }, 'connection closed before the request body arrived');
      return;
    }
    return sendError(request, reply, toCrmError(error, request));
  });
  app.setNotFoundHandler(async (request, reply) =>
    sendError(request, reply, new CrmError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  const openApi = buildOpenApi(deps.resources);
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(openApi));
  // The reference rendered from it (/docs, /docs/ and /docs/js/scalar.js).
  registerDocs(app);
  app.get('/readyz', async (_request, reply) => {
    const { checks, dependencies } = deps.ready ? await deps.ready() : { checks: {}, dependencies: {} };
    const ok = Object.values(checks).every(Boolean);
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', checks, dependencies });
  });

  deps.register?.(app);
  for (const prefix of PREFIXES) {
    registerLegacyPaths(app, prefix);
    for (const resource of deps.resources) {
      for (const [url, methods] of registerResourceRoutes(app, prefix, resource)) registerMethodNotAllowed(app, url, methods);
    }
  }
  return app;
}
