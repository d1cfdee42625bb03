import { CrmError, type Logger, createLogger, newId } from '@crm/kit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { sendError, toCrmError } from './errors';
import { type ResolveKey, authenticate } from './plugins/auth';
import { registerLegacyPaths } from './routes/legacy.routes';
import { OPERATION_METHODS, type ResourceRouteOptions, registerResourceRoutes } from './routes/resource.routes';
import { requireScope } from './scopes';

/** Both prefixes are served identically (DESIGN.md, Prefixes). */
export const PREFIXES = ['/v1', '/api/v1'] as const;
export const BODY_LIMIT = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface GatewayDeps {
  resolveKey: ResolveKey;
  resources: ResourceRouteOptions[];
  logger: Logger | false;
  /** Readiness of the backing services, for `/readyz`. */
  ready?: () => Promise<Record<string, boolean>>;
}

/**
 * The request pipeline, in order: request id → route match (unknown, legacy and wrong-method paths
 * are answered here, before authentication) → authentication → scope → [rate limits: issue 5] →
 * [idempotency: issue 5] → validation → service call → envelope.
 */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: (deps.logger || createLogger('gateway', 'silent')) as FastifyBaseLogger,
    // One line per request is logged by the onResponse hook below, with the fields we choose.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { caseSensitive: true },
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${newId()}`;
    },
    return503OnClosing: true,
  });

  // JSON only: text/plain bodies are refused with 415 instead of being accepted as strings.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const principal = await authenticate(request, deps.resolveKey);
    requireScope(principal, scope);
  });

  app.addHook('onResponse', async (request, reply) => {
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
    );
  });

  app.setErrorHandler(async (error, request, reply) => sendError(request, reply, toCrmError(error, request)));
  app.setNotFoundHandler(async (request, reply) =>
    sendError(request, reply, new CrmError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks = deps.ready ? await deps.ready() : {};
    const ok = Object.values(checks).every(Boolean);
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', checks });
  });

  for (const prefix of PREFIXES) {
    registerLegacyPaths(app, prefix);
    const offered = new Map<string, Set<string>>();
    for (const resource of deps.resources) {
      registerResourceRoutes(app, prefix, resource);
      for (const operation of resource.operations) {
        const { method, item } = OPERATION_METHODS[operation];
        const url = `${prefix}/${resource.spec.name}${item ? '/:id' : ''}`;
        offered.set(url, (offered.get(url) ?? new Set()).add(method));
      }
    }
    for (const [url, methods] of offered) {
      const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].join(', ');
      const missing = METHODS.filter((m) => !methods.has(m));
      if (!missing.length) continue;
      app.route({
        method: [...missing, 'OPTIONS'],
        url,
        handler: async (request, reply) => {
          reply.header('Allow', allow);
          return sendError(
            request,
            reply,
            new CrmError('method_not_allowed', `${request.method} is not allowed on this path; allowed: ${allow}`),
          );
        },
      });
    }
  }
  return app;
}
