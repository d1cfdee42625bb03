import { CrmError, type ServiceClient, untraced } from '@crm/kit';
import type { MessagingServiceDefinition } from '@crm/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createCallBatches } from './call-batches';

/**
 * The public, unauthenticated paths of tracking and unsubscribing (gateway/README.md, Messaging,
 * "Tracking and unsubscribe"), the only paths without Authorization. Their token is the only
 * credential: messaging verifies it, and a forged or unknown one is 404 with nothing recorded. A
 * token that cannot be one (wrong characters or length) is refused here without a call.
 *
 * - `GET|HEAD /t/o/{token}`: a 1×1 GIF, never cached, answered once the open is committed; an open
 *   that cannot be recorded (messaging briefly down) still gets its image, since a broken image
 *   helps nobody. Opens that arrive while one call is under way go to messaging together in the
 *   next (`RecordOpens`, one transaction), so a campaign's burst of opens costs a few calls.
 * - `GET|HEAD /t/c/{token}`: 302 to the link's target.
 * - `GET /u/{token}`: a confirmation page that changes nothing (link scanners fetch URLs);
 *   `POST /u/{token}` with `List-Unsubscribe=One-Click` (RFC 8058: the mail client's one-click
 *   button, or the page's form) unsubscribes the address for the workspace.
 */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const TOKEN = /^[A-Za-z0-9_-]{20,128}$/;
/** Opens per RecordOpens call at most (messaging takes up to 1,000). */
const OPENS_PER_CALL = 500;

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style>
</head><body>${body}</body></html>`;

const CONFIRM = page(
  'Unsubscribe',
  `<h1>Unsubscribe</h1><p>Stop receiving these emails at this address?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
);
const DONE = page('Unsubscribed', '<h1>You are unsubscribed</h1><p>You will not receive these emails any more.</p>');

const TOKEN_PARAMETER = {
  name: 'token',
  in: 'path',
  required: true,
  description: 'The signed token messaging put in the email (20 to 128 base64url characters); it is the only credential.',
  schema: { type: 'string', minLength: 20, maxLength: 128, pattern: TOKEN.source },
  example: 'b3BlbjoxOjRmMmE5YzEwLWU1YjctNDNkOS05YTFmLWM3ZDJlOGI0NjYwMQ',
};
const NOT_FOUND = {
  description: 'A forged, unknown or malformed token: nothing is recorded.',
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: { error: { code: 'not_found', message: 'no such tracking link', request_id: 'req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30' } },
    },
  },
};
const NO_STORE = { 'Cache-Control': { description: 'Never cached, so every open or click reaches the server.', schema: { type: 'string', maxLength: 64, pattern: '^no-store' } } };
/** Any other answer: the error envelope (503 while messaging is unavailable, 504 past its deadline). */
const OTHER = {
  description: 'Another error, as the error envelope: 503 while messaging is unavailable, 504 when it misses its deadline.',
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: { error: { code: 'unavailable', message: 'a backing service is unavailable; retry after 1 second', request_id: 'req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30' } },
    },
  },
};
/** Served at the gateway's root only (not under /api). */
const ROOT = [{ url: '{base_url}', description: 'The gateway the links in sent emails point at.', variables: { base_url: { default: 'http://127.0.0.1:8080' } } }];
const PUBLIC = { tags: ['tracking'], security: [], servers: ROOT, parameters: [TOKEN_PARAMETER] };
const HTML = (description: string, example: string) => ({
  description,
  headers: NO_STORE,
  content: { 'text/html': { schema: { type: 'string', maxLength: 4_096, pattern: '^<!doctype html>' }, example } },
});

/**
 * The OpenAPI description of the paths above: public, no API key, each taking the signed token a
 * sent email carries. Clients never call them; mail clients and recipients do.
 */
export const TRACKING_OPENAPI: Record<string, Record<string, unknown>> = {
  '/t/o/{token}': {
    get: {
      ...PUBLIC,
      operationId: 'trackOpen',
      summary: 'Record an open (tracking pixel)',
      description:
        'The 1×1 image at the end of a sent HTML email. Fetching it records an `open` email event for the send the token names ' +
        '(flagged `is_bot` when it looks automated) and answers the image. Public: no API key; the signed token is the credential. ' +
        'HEAD answers the same without recording.',
      responses: {
        '200': { description: 'A transparent 1×1 GIF.', headers: NO_STORE, content: { 'image/gif': { schema: { type: 'string', format: 'binary', contentMediaType: 'image/gif', maxLength: 64 } } } },
        '404': NOT_FOUND,
        default: OTHER,
      },
    },
  },
  '/t/c/{token}': {
    get: {
      ...PUBLIC,
      operationId: 'trackClick',
      summary: 'Record a click and follow the link',
      description:
        'Every link of a sent email is rewritten to this path. Fetching it records a `click` email event (with the target `url`) and redirects to the link. ' +
        'Public: no API key; the signed token is the credential.',
      responses: {
        '302': {
          description: 'To the original link.',
          headers: { ...NO_STORE, Location: { description: "The link's target.", schema: { type: 'string', format: 'uri', maxLength: 2048 } } },
        },
        '404': NOT_FOUND,
        default: OTHER,
      },
    },
  },
  '/u/{token}': {
    get: {
      ...PUBLIC,
      operationId: 'unsubscribePage',
      summary: 'Unsubscribe confirmation page',
      description:
        'The unsubscribe link of a sent email: a page asking to confirm, which changes nothing (link scanners fetch URLs). ' +
        'Public: no API key; the signed token is the credential.',
      responses: { '200': HTML('The confirmation page, with a form that posts List-Unsubscribe=One-Click.', CONFIRM), '404': NOT_FOUND, default: OTHER },
    },
    post: {
      ...PUBLIC,
      operationId: 'unsubscribe',
      summary: 'Unsubscribe (RFC 8058 one-click)',
      description:
        "The mail client's one-click unsubscribe (RFC 8058 `List-Unsubscribe-Post`) or the confirmation page's form: suppresses the address " +
        'for the workspace, records an `unsubscribe` email event and exits its enrollments. Public: no API key; the signed token is the credential.',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              properties: { 'List-Unsubscribe': { type: 'string', enum: ['One-Click'], description: 'Always One-Click (RFC 8058).' } },
              required: ['List-Unsubscribe'],
            },
            example: { 'List-Unsubscribe': 'One-Click' },
          },
        },
      },
      responses: {
        '200': HTML('The address is unsubscribed.', DONE),
        '400': {
          description: 'The body is not List-Unsubscribe=One-Click.',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error' },
              example: { error: { code: 'invalid_request', message: 'an unsubscribe is a POST of List-Unsubscribe=One-Click (RFC 8058)', request_id: 'req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30' } },
            },
          },
        },
        '404': NOT_FOUND,
        default: OTHER,
      },
    },
  },
};

export function registerTrackingRoutes(app: FastifyInstance, messaging: ServiceClient<MessagingServiceDefinition>, deadlineMs: number): void {
  const tokenOf = (request: FastifyRequest): string => {
    const { token } = request.params as { token: string };
    if (!TOKEN.test(token)) throw new CrmError('not_found', 'no such tracking link');
    return token;
  };
  const record = (kind: 'open' | 'click' | 'unsubscribe', request: FastifyRequest, checkOnly = false) =>
    messaging.call(
      'RecordEngagement',
      {
        kind,
        token: tokenOf(request),
        user_agent: String(request.headers['user-agent'] ?? '').slice(0, 1_000),
        method: request.method,
        ip: request.ip,
        check_only: checkOnly,
      },
      { deadlineMs },
    );

  // A batch serves many requests' traces, so its call is untraced (as kit's group commit is); each
  // request's own span still records its answer.
  const opens = createCallBatches<{ token: string; user_agent: string; method: string }, boolean>({
    limit: OPENS_PER_CALL,
    call: async (batch) => (await untraced(() => messaging.call('RecordOpens', { opens: batch }, { deadlineMs }))).recorded ?? [],
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/t/o/:token',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const token = tokenOf(request);
      let recorded = true;
      try {
        recorded = await opens.add({ token, user_agent: String(request.headers['user-agent'] ?? '').slice(0, 1_000), method: request.method });
      } catch (error) {
        request.log.warn({ err: error }, 'open could not be recorded');
      }
      if (!recorded) throw new CrmError('not_found', 'no such tracking link');
      return reply.header('Cache-Control', 'no-store, no-cache, must-revalidate, private').type('image/gif').send(GIF);
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/t/c/:token',
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { url } = await record('click', request);
      return reply.header('Cache-Control', 'no-store').redirect(url, 302);
    },
  });

  // The unsubscribe page's form posts application/x-www-form-urlencoded, which only these routes
  // accept: every API route keeps answering 415 to anything but JSON.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4_096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scope.get('/u/:token', async (request, reply) => {
      await record('unsubscribe', request, true);
      return reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(CONFIRM);
    });
    scope.post('/u/:token', async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      if (form['List-Unsubscribe'] !== 'One-Click') {
        throw CrmError.invalid('an unsubscribe is a POST of List-Unsubscribe=One-Click (RFC 8058)');
      }
      await record('unsubscribe', request);
      return reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(DONE);
    });
  });
}
