/**
 * verifyWebhook against the reference: notifications signed by the Standard Webhooks library
 * (standardwebhooks on npm) and by the webhooks service's own signer verify; tampered, stale,
 * future, unsigned or wrongly keyed ones are refused with their reason; and on random inputs, valid
 * or tampered, it passes exactly what the library's verify passes.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError as LibraryVerificationError } from 'standardwebhooks';
import { signatureHeader } from '../../../services/webhooks/src/signing';
import { WEBHOOK_EVENT_TYPES } from '@crm/webhooks-contract';
import { CrmError, isDeletedRecord, verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookVerificationReason } from './index';

const newSecret = (bytes = 32) => 'whsec_' + randomBytes(bytes).toString('base64');
const SECRET = newSecret();
const OTHER_SECRET = newSecret();
const NOW = new Date('2026-11-27T12:00:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;
const ID = 'f1b3c4d5-0a1b-4c2d-8e3f-5a6b7c8d9e0f';
const BODY = JSON.stringify({
  type: 'contact.updated',
  timestamp: '2026-11-27T11:59:58.120Z',
  data: { id: '0a1b2c3d-0a1b-4c2d-8e3f-5a6b7c8d9e0f', first_name: 'Ada', email: 'ada@example.com', title: 'CTO' },
});

/** The three headers as the library signs them. */
function signed(body: string, { secret = SECRET, id = ID, seconds = NOW_SECONDS } = {}): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body) };
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof WebhookVerificationError)) throw new Error(`expected a WebhookVerificationError, got ${String(error)}`);
  return error;
}

async function expectRefused(promise: Promise<unknown>, reason: WebhookVerificationReason, secrets: string[] = [SECRET, OTHER_SECRET]) {
  const error = await refusal(promise);
  expect(error.reason).toBe(reason);
  expect(error).toBeInstanceOf(CrmError);
  expect(error.name).toBe('WebhookVerificationError');
  for (const secret of secrets) {
    // The key material, whether given with whsec_ or bare (a message may name the prefix itself).
    const material = secret.replace(/^whsec_/, '');
    if (material.length >= 4) expect(error.message).not.toContain(material);
  }
}

describe('a notification signed with the Standard Webhooks library', () => {
  test('verifies, and answers the event, its webhook-id and when the attempt was signed', async () => {
    const verified = await verifyWebhook(BODY, signed(BODY), SECRET, { now: NOW });
    expect(verified).toEqual({ id: ID, attemptedAt: NOW, event: JSON.parse(BODY) });
    const event: WebhookEvent = verified.event;
    // The type narrows data to the record (or a deleted record's ids).
    if (event.type === 'contact.updated' && !isDeletedRecord(event.data)) expect(event.data.email).toBe('ada@example.com');
    else throw new Error(`unexpected ${event.type}`);
  });

  test('isDeletedRecord tells the ids of a deleted record from a record', () => {
    expect(isDeletedRecord({ id: ID, deleted: true })).toBe(true);
    expect(isDeletedRecord({ id: ID, svc_uid: 'crm-7', deleted: true })).toBe(true);
    expect(isDeletedRecord(JSON.parse(BODY).data)).toBe(false);
    // A record is never taken for the ids, even with a custom field of that name.
    expect(isDeletedRecord({ id: ID, deleted: true, created_at: '2026-11-27T12:00:00Z', updated_at: '2026-11-27T12:00:00Z' })).toBe(false);
  });

  test('verifies the body given as a string, a Uint8Array, an ArrayBuffer or a Buffer that is a slice of a larger one', async () => {
    const bytes = new TextEncoder().encode(BODY);
    const pooled = Buffer.concat([Buffer.from('prefix'), Buffer.from(BODY), Buffer.from('suffix')]).subarray(6, 6 + bytes.length);
    expect(pooled.byteOffset).toBeGreaterThan(0);
    for (const body of [BODY, bytes, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), pooled]) {
      expect((await verifyWebhook(body, signed(BODY), SECRET, { now: NOW })).id).toBe(ID);
    }
  });

  test('reads the headers from a Headers object or a plain object, names in any case, several signature lines joined', async () => {
    const headers = signed(BODY);
    await expect(verifyWebhook(BODY, new Headers(headers), SECRET, { now: NOW })).resolves.toMatchObject({ id: ID });
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    await expect(verifyWebhook(BODY, upper, SECRET, { now: NOW })).resolves.toMatchObject({ id: ID });
    const lines = { ...headers, 'webhook-signature': ['v1,' + 'A'.repeat(43) + '=', headers['webhook-signature']!] };
    await expect(verifyWebhook(BODY, lines, SECRET, { now: NOW })).resolves.toMatchObject({ id: ID });
  });

  test('takes the secret with its whsec_ prefix or as bare base64, as the library does', async () => {
    await expect(verifyWebhook(BODY, signed(BODY), SECRET.slice('whsec_'.length), { now: NOW })).resolves.toMatchObject({ id: ID });
  });

  test('a body parsed and serialized again is not what was signed', async () => {
    const spaced = JSON.stringify(JSON.parse(BODY), null, 1);
    const headers = signed(spaced);
    await expect(verifyWebhook(spaced, headers, SECRET, { now: NOW })).resolves.toMatchObject({ id: ID });
    await expectRefused(verifyWebhook(JSON.stringify(JSON.parse(spaced)), headers, SECRET, { now: NOW }), 'bad_signature');
  });
});

test("the webhooks service's signer (what the delivery worker sends) verifies, with either secret during a rotation", async () => {
  const header = signatureHeader([OTHER_SECRET, SECRET], ID, NOW_SECONDS, BODY);
  expect(header.split(' ')).toHaveLength(2);
  const headers = { 'webhook-id': ID, 'webhook-timestamp': String(NOW_SECONDS), 'webhook-signature': header };
  for (const secrets of [SECRET, OTHER_SECRET, [SECRET, OTHER_SECRET], [newSecret(), SECRET]]) {
    await expect(verifyWebhook(BODY, headers, secrets, { now: NOW })).resolves.toMatchObject({ id: ID, event: JSON.parse(BODY) });
  }
  await expectRefused(verifyWebhook(BODY, headers, [newSecret(), newSecret()], { now: NOW }), 'bad_signature');
});

describe('refused', () => {
  test('a tampered body, id or timestamp', async () => {
    const headers = signed(BODY);
    await expectRefused(verifyWebhook(BODY.replace('CTO', 'CEO'), headers, SECRET, { now: NOW }), 'bad_signature');
    await expectRefused(verifyWebhook(BODY, { ...headers, 'webhook-id': ID.replace('f1', 'f2') }, SECRET, { now: NOW }), 'bad_signature');
    await expectRefused(verifyWebhook(BODY, { ...headers, 'webhook-timestamp': String(NOW_SECONDS + 1) }, SECRET, { now: NOW }), 'bad_signature');
  });

  test('a signature made with another secret', async () => {
    await expectRefused(verifyWebhook(BODY, signed(BODY, { secret: OTHER_SECRET }), SECRET, { now: NOW }), 'bad_signature');
  });

  test('a timestamp more than the tolerance (5 minutes unless given) in the past or the future', async () => {
    const at = (offset: number, toleranceSeconds?: number) => verifyWebhook(BODY, signed(BODY, { seconds: NOW_SECONDS + offset }), SECRET, { now: NOW, toleranceSeconds });
    await expect(at(-300)).resolves.toMatchObject({ id: ID });
    await expect(at(300)).resolves.toMatchObject({ id: ID });
    await expectRefused(at(-301), 'timestamp_too_old');
    await expectRefused(at(301), 'timestamp_too_new');
    await expectRefused(at(-31, 30), 'timestamp_too_old');
    await expectRefused(at(31, 30), 'timestamp_too_new');
    await expect(at(-3600, 7200)).resolves.toMatchObject({ id: ID });
    // A tolerance or a time that is not a number would let any timestamp through: refused outright.
    await expect(at(-3600, Number.NaN)).rejects.toThrow(RangeError);
    await expect(at(-3600, -1)).rejects.toThrow(RangeError);
    await expect(verifyWebhook(BODY, signed(BODY, { seconds: 1 }), SECRET, { now: new Date('not a date') })).rejects.toThrow(RangeError);
    // Without `now`, the clock's time.
    await expectRefused(verifyWebhook(BODY, signed(BODY, { seconds: 1_000_000_000 }), SECRET), 'timestamp_too_old');
    await expect(verifyWebhook(BODY, signed(BODY, { seconds: Math.floor(Date.now() / 1000) }), SECRET)).resolves.toMatchObject({ id: ID });
  });

  test('a missing or empty header, or a timestamp that is not Unix seconds', async () => {
    const headers = signed(BODY);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const { [name]: _left, ...rest } = headers;
      await expectRefused(verifyWebhook(BODY, rest, SECRET, { now: NOW }), 'missing_header');
      await expectRefused(verifyWebhook(BODY, { ...headers, [name]: '' }, SECRET, { now: NOW }), 'missing_header');
      expect((await refusal(verifyWebhook(BODY, new Headers(rest), SECRET, { now: NOW }))).message).toContain(name);
    }
    for (const timestamp of ['1.5e9', `0${NOW_SECONDS}`, `${NOW_SECONDS}.0`, '-1', 'soon']) {
      await expectRefused(verifyWebhook(BODY, { ...headers, 'webhook-timestamp': timestamp }, SECRET, { now: NOW }), 'missing_header');
    }
  });

  test('a signature header with only entries of other versions', async () => {
    const { 'webhook-signature': v1 } = signed(BODY);
    const v2 = v1!.replace(/^v1,/, 'v2,');
    await expectRefused(verifyWebhook(BODY, { ...signed(BODY), 'webhook-signature': v2 }, SECRET, { now: NOW }), 'bad_signature');
    await expectRefused(verifyWebhook(BODY, { ...signed(BODY), 'webhook-signature': v1!.slice(3) }, SECRET, { now: NOW }), 'bad_signature');
    // Beside a v1 entry, another version's entry is ignored.
    await expect(verifyWebhook(BODY, { ...signed(BODY), 'webhook-signature': `${v2} v1a,xyz ${v1}` }, SECRET, { now: NOW })).resolves.toMatchObject({ id: ID });
  });

  test('a secret that is not whsec_ and base64, or no secret, whatever the request', async () => {
    for (const secret of ['', 'whsec_', 'whsec_hunter2 is my secret!', 'whsec_A', 'whsec_' + 'x'.repeat(5) + '-_', [], [SECRET, 'whsec_%%%%']]) {
      await expectRefused(verifyWebhook(BODY, signed(BODY), secret, { now: NOW }), 'bad_secret', typeof secret === 'string' ? [secret] : secret);
    }
    expect((await refusal(verifyWebhook(BODY, signed(BODY), [SECRET, 'whsec_%%%%secret-value%%%%'], { now: NOW }))).message).toBe('secret 2 of 2 is not whsec_ followed by base64');
  });

  test('a signed body that is not UTF-8 JSON of {type, timestamp, data}', async () => {
    for (const body of ['', 'not json', '[]', 'null', '{"type":"contact.created","timestamp":"2026-11-27T12:00:00Z"}', '{"type":1,"timestamp":"2026-11-27T12:00:00Z","data":{}}']) {
      await expectRefused(verifyWebhook(body, signed(body), SECRET, { now: NOW }), 'bad_body');
    }
    const latin1 = Buffer.from('{"type":"contact.created","timestamp":"t","data":{"name":"Zo\xeb"}}', 'latin1');
    const headers = { 'webhook-id': ID, 'webhook-timestamp': String(NOW_SECONDS), 'webhook-signature': await referenceSignature(SECRET, `${ID}.${NOW_SECONDS}.`, latin1) };
    await expectRefused(verifyWebhook(latin1, headers, SECRET, { now: NOW }), 'bad_body');
  });
});

/** The signature of arbitrary bytes (the library signs text only), with node:crypto. */
async function referenceSignature(secret: string, prefix: string, body: Uint8Array): Promise<string> {
  const { createHmac } = await import('node:crypto');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(prefix).update(body).digest('base64');
}

describe('on random notifications, valid or tampered, it passes exactly what the library passes', () => {
  const TOLERANCE = 300;
  const BASE64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const eventBody = fc
    .record({ type: fc.constantFrom(...WEBHOOK_EVENT_TYPES), timestamp: fc.integer({ min: 0, max: 4e12 }).map((ms) => new Date(ms).toISOString()), data: fc.dictionary(fc.string(), fc.jsonValue()) })
    .map((event) => JSON.stringify(event));
  const tampering = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.record({ kind: fc.constant('body' as const), at: fc.nat(), text: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('id' as const), text: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('timestamp' as const), by: fc.integer({ min: -3, max: 3 }).filter((by) => by !== 0) }),
    fc.record({ kind: fc.constant('secret' as const), key: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
    fc.record({ kind: fc.constant('signature' as const), at: fc.nat(), char: fc.constantFrom(...BASE64_CHARS) }),
    fc.record({ kind: fc.constant('version' as const), version: fc.constantFrom('v0', 'v2', 'v1a', 'V1', '') }),
    fc.record({ kind: fc.constant('extra entry' as const), entry: fc.stringMatching(/^v[0-9],[A-Za-z0-9+/]{0,44}=?$/) }),
  );
  const input = fc.record({
    id: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    body: fc.oneof(eventBody, fc.string({ unit: 'binary', maxLength: 200 })),
    key: fc.uint8Array({ minLength: 1, maxLength: 64 }),
    prefixed: fc.boolean(),
    bytes: fc.boolean(),
    // Clear of the tolerance's edges, so a second ticking between the two verifications cannot split them.
    offset: fc.oneof(fc.integer({ min: -TOLERANCE + 5, max: TOLERANCE - 5 }), fc.integer({ min: TOLERANCE + 5, max: 10 * TOLERANCE }).chain((far) => fc.constantFrom(far, -far))),
    tampering,
  });

  test('property', async () => {
    let passed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(input, async ({ id, body, key, prefixed, bytes, offset, tampering: t }) => {
        const secret = (prefixed ? 'whsec_' : '') + Buffer.from(key).toString('base64');
        const seconds = Math.floor(Date.now() / 1000) + offset;
        const signer = new Webhook(secret);
        let signature = signer.sign(id, new Date(seconds * 1000), body);
        let [sentBody, sentId, sentSeconds, verifySecret] = [body, id, seconds, secret];
        switch (t.kind) {
          case 'none':
            break;
          case 'body': {
            const at = body.length ? t.at % (body.length + 1) : 0;
            sentBody = body.slice(0, at) + t.text + body.slice(at);
            break;
          }
          case 'id':
            sentId = id + t.text;
            break;
          case 'timestamp':
            sentSeconds = seconds + t.by;
            break;
          case 'secret':
            verifySecret = 'whsec_' + Buffer.from(t.key).toString('base64');
            break;
          case 'signature': {
            const at = 3 + (t.at % (signature.length - 3));
            signature = signature.slice(0, at) + t.char + signature.slice(at + 1);
            break;
          }
          case 'version':
            signature = signature.replace(/^v1/, t.version);
            break;
          case 'extra entry':
            signature = `${t.entry} ${signature}`;
            break;
        }
        const headers = { 'webhook-id': sentId, 'webhook-timestamp': String(sentSeconds), 'webhook-signature': signature };

        let expected: unknown;
        try {
          new Webhook(verifySecret).verify(sentBody, headers, { jsonParse: false });
          expected = 'passed';
        } catch (error) {
          if (!(error instanceof LibraryVerificationError)) throw error;
          expected = 'refused';
        }
        let actual: unknown;
        try {
          const verified = await verifyWebhook(bytes ? new TextEncoder().encode(sentBody) : sentBody, headers, verifySecret);
          expect(verified.id).toBe(sentId);
          expect(verified.event).toEqual(JSON.parse(sentBody));
          actual = 'passed';
        } catch (error) {
          if (!(error instanceof WebhookVerificationError)) throw error;
          expect(error.message).not.toContain(verifySecret);
          // The library checks the signature only; a signed body that is no event is refused after it.
          actual = error.reason === 'bad_body' ? 'passed' : 'refused';
        }
        expect(actual).toBe(expected);
        if (actual === 'passed') passed++;
        else refused++;
      }),
      { numRuns: 300 },
    );
    // Both sides of the property were exercised.
    expect(passed).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });
});

test('the event types are the webhooks contract’s, and webhooks.ts uses Web Crypto, not node:crypto', () => {
  const generated = readFileSync(path.join(__dirname, 'generated/openapi.ts'), 'utf8');
  const endpoint = generated.slice(generated.indexOf('        WebhookEndpoint: {'));
  const union = /event_types: \(([^)]*)\)\[\];/.exec(endpoint)?.[1];
  expect(union?.split(' | ').map((name) => JSON.parse(name))).toEqual([...WEBHOOK_EVENT_TYPES]);

  const source = readFileSync(path.join(__dirname, 'webhooks.ts'), 'utf8');
  expect(source).not.toMatch(/node:crypto|from 'crypto'|require\(/);
  expect(source).toContain('crypto.subtle');
});
