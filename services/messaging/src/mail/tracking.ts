import { createHmac, timingSafeEqual } from 'node:crypto';
import { isSentEmailId } from './mail-ids';

/**
 * Signed tracking tokens and the HTML rewriting that plants them.
 *
 * A token is `base64url(header · sent_email uuid · [link index] · tag)`:
 * - header: one byte, format version (high nibble) and kind (low nibble), so a token minted for
 *   one purpose cannot be replayed for another (an open token is not an unsubscribe);
 * - the sent email's 16 uuid bytes, and for a click the link's index as two bytes (big-endian);
 * - tag: the first 16 bytes (128 bits) of HMAC-SHA256 over everything before it. Truncation to
 *   128 bits keeps a click URL short (47 characters) while leaving forgery out of reach.
 *
 * Verifying costs one HMAC over at most 19 bytes per configured secret and no allocation beyond
 * the decode, which is what the gateway's `/t/o`, `/t/c` and `/u` paths need on a campaign's hot path.
 * Tokens do not expire: an unsubscribe link must keep working for as long as the mail is kept.
 */

export type TrackingKind = 'open' | 'click' | 'unsubscribe';

export type TrackingClaim =
  | { kind: 'open'; sentEmailId: string }
  | { kind: 'click'; sentEmailId: string; linkIndex: number }
  | { kind: 'unsubscribe'; sentEmailId: string };

export type ClaimOf<K extends TrackingKind> = Extract<TrackingClaim, { kind: K }>;

export type TrackingErrorCode = 'invalid_secret' | 'invalid_claim';

/** Raised only for a caller's mistake (a short secret, a claim that is not a uuid); never by `verify`. */
export class TrackingError extends Error {
  override readonly name = 'TrackingError';
  constructor(
    readonly code: TrackingErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface TrackingTokens {
  /** Mints the token for a claim, signed with the first secret. Throws `TrackingError` for a malformed claim. */
  sign(claim: TrackingClaim): string;
  /**
   * The claim a token carries when it is intact, was signed by one of the secrets and is of `kind`;
   * otherwise undefined (forged, altered, truncated, padded, of another kind, not even base64url).
   * Never throws, whatever the input.
   */
  verify<K extends TrackingKind>(kind: K, token: string): ClaimOf<K> | undefined;
}

export interface TrackingTokensOptions {
  /**
   * The signing secret (the `CURSOR_SECRET` family), at least 16 bytes. A list rotates: the first
   * signs, every one verifies, so mail sent before a rotation keeps tracking and unsubscribing.
   */
  secret: string | Buffer | readonly (string | Buffer)[];
}

/** Path prefixes the gateway serves; a token follows the prefix directly. */
export const TRACKING_PATHS: { readonly [K in TrackingKind]: string } = {
  open: '/t/o/',
  click: '/t/c/',
  unsubscribe: '/u/',
};

const VERSION = 1;
const KIND_CODE: { readonly [K in TrackingKind]: number } = { open: 1, click: 2, unsubscribe: 3 };
const TAG_BYTES = 16;
const UUID_BYTES = 16;
export const MAX_LINK_INDEX = 0xffff;
// Keys are derived per purpose, so sharing CURSOR_SECRET with the cursor codec cannot make a value
// signed for one use verify for the other.
const KEY_LABEL = 'crm.messaging.tracking.v1';

export function createTrackingTokens(options: TrackingTokensOptions): TrackingTokens {
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  if (secrets.length === 0) throw new TrackingError('invalid_secret', 'at least one tracking secret is required');
  const keys = secrets.map((secret: string | Buffer) => {
    if (Buffer.byteLength(secret) < 16) throw new TrackingError('invalid_secret', 'a tracking secret must be at least 16 bytes');
    return createHmac('sha256', secret).update(KEY_LABEL).digest();
  });
  const tag = (key: Buffer, payload: Buffer) => createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES);

  return {
    sign(claim) {
      if (!isSentEmailId(claim.sentEmailId)) throw new TrackingError('invalid_claim', 'sentEmailId must be a uuid');
      const withIndex = claim.kind === 'click';
      const payload = Buffer.alloc(1 + UUID_BYTES + (withIndex ? 2 : 0));
      payload[0] = (VERSION << 4) | KIND_CODE[claim.kind];
      Buffer.from(claim.sentEmailId.replace(/-/g, ''), 'hex').copy(payload, 1);
      if (withIndex) {
        if (!Number.isInteger(claim.linkIndex) || claim.linkIndex < 0 || claim.linkIndex > MAX_LINK_INDEX) {
          throw new TrackingError('invalid_claim', `linkIndex must be an integer from 0 to ${MAX_LINK_INDEX}`);
        }
        payload.writeUInt16BE(claim.linkIndex, 1 + UUID_BYTES);
      }
      return Buffer.concat([payload, tag(keys[0]!, payload)]).toString('base64url');
    },

    verify(kind, token) {
      const payloadBytes = 1 + UUID_BYTES + (kind === 'click' ? 2 : 0);
      const expectedLength = Math.ceil(((payloadBytes + TAG_BYTES) * 4) / 3);
      if (typeof token !== 'string' || token.length !== expectedLength || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
      const bytes = Buffer.from(token, 'base64url');
      // Base64 has spare bits in its last character: without this, a token whose last character was
      // changed in those bits alone would decode to the same bytes and still verify.
      if (bytes.length !== payloadBytes + TAG_BYTES || bytes.toString('base64url') !== token) return undefined;
      if (bytes[0] !== ((VERSION << 4) | KIND_CODE[kind])) return undefined;
      const payload = bytes.subarray(0, payloadBytes);
      const given = bytes.subarray(payloadBytes);
      let authentic = false;
      // Every key is tried even after a match, so the time taken does not reveal which secret signed it.
      for (const key of keys) authentic = timingSafeEqual(tag(key, payload), given) || authentic;
      if (!authentic) return undefined;
      const hex = payload.toString('hex', 1, 1 + UUID_BYTES);
      const sentEmailId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      const claim: TrackingClaim =
        kind === 'click'
          ? { kind, sentEmailId, linkIndex: payload.readUInt16BE(1 + UUID_BYTES) }
          : { kind: kind as 'open' | 'unsubscribe', sentEmailId };
      return claim as ClaimOf<typeof kind>;
    },
  };
}

/** `{publicUrl}/t/o/{token}`, `{publicUrl}/t/c/{token}` or `{publicUrl}/u/{token}`. */
export function trackingUrl(publicUrl: string, kind: TrackingKind, token: string): string {
  return `${trimBase(publicUrl)}${TRACKING_PATHS[kind]}${token}`;
}

export interface RewriteLinksOptions {
  /** `PUBLIC_URL`, the gateway's public origin (a trailing slash is ignored). */
  publicUrl: string;
  sentEmailId: string;
  tokens: TrackingTokens;
}

export interface RewrittenLinks {
  html: string;
  /**
   * The original targets, by link index: `links[i]` is where the click token carrying index `i`
   * redirects to. The service stores this list with the send; the gateway answers
   * `/t/c/{token}` with a 302 to `links[linkIndex]`.
   */
  links: string[];
}

/**
 * Points every `<a href="http(s)://…">` at `{publicUrl}/t/c/{token}`, one index per occurrence (the
 * same URL twice gets two indexes, so a report can tell the header logo from the footer link).
 * Left alone: `mailto:`, `tel:`, `#anchors`, relative and other-scheme links, anything that is not a
 * parseable URL, and links already under `{publicUrl}/u/` or `{publicUrl}/t/` (the unsubscribe link
 * must lead straight to its page; rewriting twice would chain redirects). The stored target is the
 * href with its HTML entities decoded (`?a=1&amp;b=2` is the URL `?a=1&b=2`), normalised by WHATWG
 * URL parsing so it is always a valid `Location`.
 *
 * The scan is a single linear pass over the markup (no backtracking regular expression), so hostile
 * or broken HTML costs time proportional to its length; a tag left open at the end is kept as it is.
 */
export function rewriteLinks(html: string, options: RewriteLinksOptions): RewrittenLinks {
  const base = trimBase(options.publicUrl);
  const ownPrefixes = [`${base}/u/`, `${base}/t/`].map((p) => p.toLowerCase());
  const links: string[] = [];
  let out = '';
  let copied = 0;
  const opener = /<a(?=[\s/>])/gi;
  for (let match = opener.exec(html); match; match = opener.exec(html)) {
    const tag = readTag(html, match.index + 2);
    // A tag still open at the end of the input swallows the rest of it, for a browser as here.
    if (!tag) break;
    opener.lastIndex = tag.end;
    const href = tag.attributes.find((a) => a.name === 'href');
    if (!href || links.length > MAX_LINK_INDEX) continue;
    const target = trackableUrl(decodeEntities(href.value));
    if (!target || ownPrefixes.some((p) => target.toLowerCase().startsWith(p))) continue;
    const token = options.tokens.sign({ kind: 'click', sentEmailId: options.sentEmailId, linkIndex: links.length });
    links.push(target);
    const replacement = escapeAttribute(trackingUrl(base, 'click', token));
    // An unquoted value gets quotes, as the tracking URL is spliced in whole.
    out += html.slice(copied, href.valueStart) + (href.quote ? replacement : `"${replacement}"`);
    copied = href.valueEnd;
  }
  return { html: out + html.slice(copied), links };
}

/**
 * Adds the 1×1 open pixel just before the last `</body>`, or at the end when there is none. The
 * image is displayed (not `display:none`, which some clients take as a reason not to fetch it) and
 * sized so it cannot shift the layout.
 */
export function insertOpenPixel(html: string, url: string): string {
  const pixel = `<img src="${escapeAttribute(url)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0">`;
  const at = html.toLowerCase().lastIndexOf('</body');
  return at < 0 ? html + pixel : html.slice(0, at) + pixel + html.slice(at);
}

function trimBase(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, '');
}

function trackableUrl(href: string): string | undefined {
  // Browsers drop leading and trailing C0 controls and spaces, and tabs and newlines anywhere.
  const cleaned = href.replace(/[\t\n\r]/g, '').replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '');
  if (!/^https?:\/\//i.test(cleaned)) return undefined;
  const url = URL.parse(cleaned);
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined;
}

interface Attribute {
  name: string;
  value: string;
  valueStart: number;
  valueEnd: number;
  quote: '"' | "'" | '';
}

/** Reads the attributes of a start tag from just after its name; undefined when the tag never closes. */
function readTag(html: string, from: number): { attributes: Attribute[]; end: number } | undefined {
  const attributes: Attribute[] = [];
  let i = from;
  const n = html.length;
  const space = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  while (i < n) {
    while (i < n && (space(html[i]) || html[i] === '/')) i++;
    if (i >= n) return undefined;
    if (html[i] === '>') return { attributes, end: i + 1 };
    const nameStart = i;
    while (i < n && !space(html[i]) && html[i] !== '=' && html[i] !== '>' && html[i] !== '/') i++;
    // A name may start with '=' in HTML's grammar; take one character so the loop always advances.
    if (i === nameStart) i++;
    const name = html.slice(nameStart, i).toLowerCase();
    let j = i;
    while (j < n && space(html[j])) j++;
    if (html[j] !== '=') {
      attributes.push({ name, value: '', valueStart: i, valueEnd: i, quote: '' });
      continue;
    }
    j++;
    while (j < n && space(html[j])) j++;
    const quote = html[j] === '"' || html[j] === "'" ? (html[j] as '"' | "'") : '';
    if (quote) {
      const close = html.indexOf(quote, j + 1);
      if (close < 0) return undefined;
      attributes.push({ name, value: html.slice(j + 1, close), valueStart: j + 1, valueEnd: close, quote });
      i = close + 1;
    } else {
      const start = j;
      while (j < n && !space(html[j]) && html[j] !== '>') j++;
      attributes.push({ name, value: html.slice(start, j), valueStart: start, valueEnd: j, quote: '' });
      i = j;
    }
  }
  return undefined;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * The entities that occur in hrefs: the five XML ones, nbsp and numeric references. A named one
 * needs its semicolon, as in an attribute `?a=1&lt=2` is literal text to a browser, except the
 * legacy `&amp` which browsers also take bare when no letter, digit or '=' follows it.
 */
function decodeEntities(value: string): string {
  return value.replace(/&(?:(#x[0-9a-f]{1,6}|#[0-9]{1,7});?|([a-z]{2,6});|(amp)(?![a-z0-9=]))/gi, (whole, num?: string, named?: string, bare?: string) => {
    if (num) {
      const code = num[1] === 'x' || num[1] === 'X' ? parseInt(num.slice(2), 16) : parseInt(num.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[(named ?? bare ?? '').toLowerCase()] ?? whole;
  });
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
