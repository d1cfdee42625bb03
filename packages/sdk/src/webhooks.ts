import { CrmError } from './errors';
import type { components } from './generated/openapi';

/**
 * Verification of the API's webhook notifications (DESIGN.md section 4, "Webhooks"), as Standard
 * Webhooks 1.0 defines it: the signature is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed by the endpoint's secret (`whsec_<base64>`, the bytes after the prefix), carried in the
 * `webhook-signature` header beside `webhook-id` and `webhook-timestamp`. Only Web Crypto
 * (`crypto.subtle`) is used, so it runs where the client runs: Node, Deno, Bun, browsers' service
 * workers, Cloudflare Workers.
 */

type Schemas = components['schemas'];

/** The public event types, as the document lists them for a webhook endpoint's `event_types`. */
export type WebhookEventType = Schemas['WebhookEndpoint']['event_types'][number];

/**
 * `data` of a `*.deleted` event, and of any event whose record was deleted before the event was
 * consumed (the service reads the record when it consumes the event, and finds none).
 */
export interface WebhookDeletedRecord {
  id: string;
  svc_uid?: string | null;
  deleted: true;
}

/**
 * Whether `data` is a deleted record's ids rather than the record: `if (isDeletedRecord(event.data))`
 * narrows both ways. Every record the API returns has `created_at`; the ids never do.
 */
export function isDeletedRecord(data: object): data is WebhookDeletedRecord {
  return (data as { deleted?: unknown }).deleted === true && !('created_at' in data);
}

/** The record each event type's resource names (`contact.updated` → `Contact`). */
interface RecordSchemas {
  contact: Schemas['Contact'];
  organization: Schemas['Organization'];
  sent_email: Schemas['SentEmail'];
  email_event: Schemas['EmailEvent'];
  touchpoint: Schemas['Touchpoint'];
  enrollment: Schemas['Enrollment'];
  task: Schemas['Task'];
  call_log: Schemas['CallLog'];
  meeting: Schemas['Meeting'];
}
type ResourceOf<T extends string> = T extends `${infer Resource}.${string}` ? Resource : never;
/** Indexed by every event type's resource: a new resource in the document that is not in RecordSchemas does not compile. */
type WebhookRecords = { [R in ResourceOf<WebhookEventType>]: RecordSchemas[R] };

/** `data` of an event of type T: the record as the API returns it, or the deleted record's ids. */
export type WebhookEventData<T extends WebhookEventType> = T extends `${string}.deleted`
  ? WebhookDeletedRecord
  : WebhookRecords[ResourceOf<T>] | WebhookDeletedRecord;

/**
 * A notification's body, `{type, timestamp, data}`; `switch (event.type)` narrows `data`.
 * `timestamp` is when the record changed (RFC 3339). A type added to the API after this SDK was
 * built arrives as sent, untyped: keep a `default` branch.
 */
export type WebhookEvent = { [T in WebhookEventType]: { type: T; timestamp: string; data: WebhookEventData<T> } }[WebhookEventType];

/** A verified notification. */
export interface VerifiedWebhook {
  /**
   * `webhook-id`: the event's id, the same on every attempt. Delivery is at least once, so a
   * receiver records the ids it has handled and skips one it has seen.
   */
  id: string;
  /** `webhook-timestamp`: when this attempt was signed. */
  attemptedAt: Date;
  event: WebhookEvent;
}

/** The request's headers: a `Headers` (fetch, workers) or a plain object (node:http, Fastify); names in any case. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds: 300 by default. */
  toleranceSeconds?: number;
  /** The time to check the timestamp against; the clock's by default. */
  now?: Date;
}

export type WebhookVerificationReason =
  /** `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent, empty, or (the timestamp) not Unix seconds. */
  | 'missing_header'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  /** No `v1,` entry of `webhook-signature` is the body's signature under any of the secrets. */
  | 'bad_signature'
  /** A secret given is not `whsec_<base64>` (or base64), or none was given: a configuration error. */
  | 'bad_secret'
  /** Signed, but not a JSON `{type, timestamp, data}` (or not UTF-8). */
  | 'bad_body';

/** The notification is not to be trusted (or, `bad_secret`, cannot be checked). Messages never hold a secret. */
export class WebhookVerificationError extends CrmError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
// Standard base64 (the secrets and signatures are), padding optional.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
// Unix seconds as the server writes them: digits, no sign, no leading zero. The signed text holds
// the header as received, so only this one spelling of a number is accepted.
const UNIX_SECONDS = /^(?:0|[1-9][0-9]{0,15})$/;
const encoder = new TextEncoder();

/**
 * Verifies a webhook notification and answers its event and `webhook-id`; throws a
 * `WebhookVerificationError` otherwise.
 *
 * - `body` is the request body exactly as received: a string, or its bytes. A body parsed and
 *   serialized again (`JSON.stringify(request.body)`) is not the text that was signed and does not
 *   verify.
 * - `secret` is the endpoint's secret, or several: for 24 h after a rotation the service signs with
 *   the new and the previous secret (two `v1,` entries), and any entry matching any secret passes.
 * - The timestamp must be within `toleranceSeconds` of now, so a captured notification cannot be
 *   replayed later; entries of other versions than `v1` are ignored.
 */
export async function verifyWebhook(
  body: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook> {
  const keys = decodeSecrets(secret);

  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) {
    const missing = [!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signature && 'webhook-signature'].filter(Boolean).join(', ');
    throw new WebhookVerificationError('missing_header', `missing header: ${missing}`);
  }
  if (!UNIX_SECONDS.test(timestamp)) throw new WebhookVerificationError('missing_header', 'webhook-timestamp is not Unix seconds');
  const seconds = Number(timestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  // NaN would pass every comparison below, and so any timestamp.
  if (!(tolerance >= 0) || !Number.isFinite(nowSeconds)) throw new RangeError('verifyWebhook: toleranceSeconds must be a number ≥ 0 and now a valid Date');
  if (nowSeconds - seconds > tolerance) throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is more than ${tolerance} s in the past`);
  if (seconds - nowSeconds > tolerance) throw new WebhookVerificationError('timestamp_too_new', `webhook-timestamp is more than ${tolerance} s in the future`);

  // ArrayBuffer.isView rather than instanceof: a Uint8Array of another realm (an iframe, a VM) is one too.
  const bytes = typeof body === 'string' ? encoder.encode(body) : ArrayBuffer.isView(body) ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : new Uint8Array(body);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);

  const given = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  if (!given.length) throw new WebhookVerificationError('bad_signature', 'webhook-signature has no v1 entry');
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError('verifyWebhook needs Web Crypto (crypto.subtle), which is missing here (a browser page served over plain http?)');
  let matched = false;
  for (const key of keys) {
    const hmac = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = toBase64(new Uint8Array(await subtle.sign('HMAC', hmac, signed)));
    // Every entry is compared, each in constant time: how long it takes says nothing of which
    // characters of the expected signature a forged entry got right.
    for (const candidate of given) if (constantTimeEqual(candidate, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('bad_signature', 'no webhook-signature entry matches the body under the secret(s) given');

  return { id, attemptedAt: new Date(seconds * 1000), event: parseEvent(typeof body === 'string' ? body : bytes) };
}

function decodeSecrets(secret: string | readonly string[]): Uint8Array<ArrayBuffer>[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.length) throw new WebhookVerificationError('bad_secret', 'no secret given');
  return secrets.map((value, index) => {
    const which = secrets.length > 1 ? `secret ${index + 1} of ${secrets.length}` : 'the secret';
    if (typeof value !== 'string') throw new WebhookVerificationError('bad_secret', `${which} is not a string`);
    const encoded = value.startsWith(SECRET_PREFIX) ? value.slice(SECRET_PREFIX.length) : value;
    if (!encoded || !BASE64.test(encoded)) throw new WebhookVerificationError('bad_secret', `${which} is not whsec_ followed by base64`);
    return fromBase64(encoded);
  });
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) || undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    for (const key of Object.keys(record)) if (key.toLowerCase() === name) value = record[key];
  }
  // A header sent on several lines (node:http gives an array only for some names): the signature's
  // entries are all of the lines', any other header its first.
  const text = typeof value === 'string' ? value : value === undefined ? undefined : name === 'webhook-signature' ? value.join(' ') : value[0];
  return text || undefined;
}

function parseEvent(body: string | Uint8Array): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('bad_body', 'the body is not UTF-8 JSON');
  }
  const event = parsed as Record<string, unknown> | null;
  if (
    typeof event !== 'object' ||
    event === null ||
    Array.isArray(event) ||
    typeof event.type !== 'string' ||
    typeof event.timestamp !== 'string' ||
    typeof event.data !== 'object' ||
    event.data === null
  ) {
    throw new WebhookVerificationError('bad_body', 'the body is not {type, timestamp, data}');
  }
  return event as unknown as WebhookEvent;
}

function constantTimeEqual(a: string, b: string): boolean {
  // The length of a signature is public (44 characters of base64 for HMAC-SHA256).
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function fromBase64(encoded: string): Uint8Array<ArrayBuffer> {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
