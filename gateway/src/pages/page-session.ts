import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CrmError } from '@crm/kit';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session cookie: the directory's session id, nothing else (gateway/README.md, "The settings pages"). */
export const SESSION_COOKIE = 'crm_session';
/** The secret the sign-in and set-password-by-link forms' CSRF tokens are made from (no session yet). */
export const CSRF_COOKIE = 'crm_csrf';
/** What a session id can be (32 random bytes, base64url); anything else is not sent to the directory. */
const SESSION_ID = /^[A-Za-z0-9_-]{20,128}$/;
const DEFAULT_MAX_AGE_S = 7 * 24 * 3600;

const isLoopback = (address: string | undefined): boolean => {
  if (!address) return false;
  const bare = address.replace(/^::ffff:/i, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return address === '::1';
};

/**
 * Whether cookies must be `Secure`: always, unless this request came over plain http to a loopback
 * address of this machine (a developer's `http://127.0.0.1:8080`, where a browser would drop a
 * Secure cookie set over http on any other host). Behind a TLS-terminating proxy the gateway is
 * reached on another address, so the cookie is Secure, as the browser's https page needs.
 */
export function cookiesNeedSecure(request: FastifyRequest): boolean {
  const socket = request.raw.socket as Partial<TLSSocket> | undefined;
  if (socket?.encrypted) return true;
  return !isLoopback(socket?.localAddress);
}

export const cookieOptions = (request: FastifyRequest, maxAgeSeconds?: number): CookieSerializeOptions => ({
  httpOnly: true,
  sameSite: 'strict',
  path: '/',
  secure: cookiesNeedSecure(request),
  ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
});

/** The presented session id, when it has a session id's shape. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const value = request.cookies[SESSION_COOKIE];
  return value && SESSION_ID.test(value) ? value : undefined;
}

/** Sets the session cookie until the session's absolute end (7 days after sign-in). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, sessionId: string, expiresAt: string | undefined): void {
  const left = expiresAt ? Math.floor((Date.parse(expiresAt) - Date.now()) / 1000) : NaN;
  const maxAge = Number.isFinite(left) && left > 0 ? Math.min(left, DEFAULT_MAX_AGE_S) : DEFAULT_MAX_AGE_S;
  reply.setCookie(SESSION_COOKIE, sessionId, cookieOptions(request, maxAge));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A session form's `_csrf` against the session's token, in constant time; 403 when it differs. */
export function checkSessionCsrf(given: unknown, expected: string): void {
  if (typeof given !== 'string' || !expected || !timingSafeEqual(digest(given), digest(expected))) {
    throw new CrmError('forbidden', 'this form has expired or did not come from this site: reload the page and try again');
  }
}

/**
 * Whether a state-changing request comes from another origin: its `Origin` names another host than
 * the one it was sent to (`null` included), or, without `Origin`, the browser says
 * `Sec-Fetch-Site` is not same-origin. A request with neither (a client that is not a browser) is
 * left to the CSRF token. Schemes are not compared: behind a TLS-terminating proxy the page is
 * https while the gateway is reached over http.
 */
export function isCrossOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (typeof origin !== 'string') return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return true;
    }
    const host = request.headers.host;
    if (!host || url.origin === 'null') return true;
    try {
      return new URL(`${url.protocol}//${host}`).host !== url.host;
    } catch {
      return true;
    }
  }
  const site = request.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}
