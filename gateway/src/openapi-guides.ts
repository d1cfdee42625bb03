import { DEFAULT_LIMIT } from '@crm/kit';
import { CONTEXTS } from './contexts';

/**
 * What every operation shares, written once: the guides a reader meets before the operations
 * (authentication, rate limits, idempotency, pagination, errors), and the navigation by bounded
 * context. A reference renderer (Scalar at /docs) shows each `##` heading of `info.description` as
 * an introduction section of its own, and one sidebar entry per tag.
 */

type Schema = Record<string, unknown>;

const GUIDES = `Contacts, companies, pools, outreach flows, email and activities, over JSON and HTTPS.
Paths are served under both \`/v1\` and \`/api/v1\`. Each operation below says what it does, the
scope it requires, and shows a request and an answer; these guides say what they all share.

## Authentication

Every request under \`/v1\` carries an API key: \`Authorization: Bearer svc_live_…\`. A key is
\`svc_<env>_<32 base64url characters>\`; it is created on the settings page
(\`/settings/api-keys\`) or with \`crm admin key create\`, and shown once.

A key holds scopes: \`*\` (everything), \`<resource>:*\`, or \`<resource>:<action>\`, with action
\`read\` (GET), \`write\` (POST, PATCH) or \`delete\` (DELETE). Each operation names the scope it
requires. Enrollments need the \`flows\` scopes.

- A missing, malformed, unknown or revoked key is \`401 unauthorized\`.
- A key without the scope is \`403 forbidden\`; \`error.details.required_scope\` names the scope.
- A revoked key stops working within 5 seconds on every gateway.

\`\`\`sh
curl -H "Authorization: Bearer $CRM_API_KEY" "$CRM_URL/v1/contacts?limit=10"
\`\`\`

## Rate limits

Each key may make 20 requests in any 10 seconds, and a workspace 1,000 in any 60 seconds, all its
keys together. The windows slide: there is no reset at a fixed time.

Every answer to an authenticated request says where it stands:

| header | meaning |
|---|---|
| \`RateLimit-Limit\` | the per-key budget per minute (120 with the defaults) |
| \`RateLimit-Remaining\` | requests left in the tighter of the two windows |
| \`RateLimit-Reset\` | seconds until that window is empty again |
| \`RateLimit-Policy\`, \`RateLimit\` | both windows, as \`"burst";q=20;w=10, "workspace";q=1000;w=60\` |

Past a limit the answer is \`429 rate_limited\` with \`Retry-After\` (whole seconds) and
\`error.details.retry_after_seconds\`. Wait that long, then send the same request again, with the
same \`Idempotency-Key\` if it is a write. A \`503 unavailable\` carries \`Retry-After\` too and is
retried the same way. Sending emails has a quota of its own (5,000 per workspace in any rolling
hour): over it, \`429 send_quota_exhausted\`.

## Idempotency

A POST, PATCH or DELETE sent with an \`Idempotency-Key\` header is safe to send again: after a
timeout, a dropped connection, a 429 or a 5xx, retry with the same key and the same body.

- The key is 1 to 255 visible ASCII characters; a UUID per logical write is a good choice. Keys
  are scoped to the workspace and remembered for 24 hours.
- A repeat of a finished request answers what the first answered, with \`Idempotent-Replayed: true\`,
  and changes nothing. 4xx answers are replayed like successes; a 5xx is not remembered.
- A repeat while the first is still running is \`409 conflict\`: wait and retry.
- The same key with a different method, path or body is \`422 idempotency_key_reused\`.

\`\`\`sh
curl -X POST "$CRM_URL/v1/contacts" -H "Authorization: Bearer $CRM_API_KEY" \\
     -H 'Content-Type: application/json' -H "Idempotency-Key: $(uuidgen)" \\
     -d '{"first_name":"Grace","email":"grace@example.com"}'
\`\`\`

## Pagination

Every list answers \`{"data": [...], "next_cursor": "…" | null, "has_more": true | false}\`, newest
first on the resource's time field unless \`sort\` says otherwise.

- \`limit\` is the page size: ${DEFAULT_LIMIT} by default, 1 to 100 (1 to 200 for tasks,
  enrollments, users and integrations). A value outside the range is \`400\`, never clamped.
- For the next page, send the same query with \`cursor\` set to the previous page's
  \`next_cursor\`, until \`has_more\` is false. A cursor is opaque, signed and bound to its query:
  changing a filter or \`sort\` with it is \`400\`.
- \`sort\` takes the list's sort keys, comma-separated, \`-\` for descending; \`id\` is always the
  last tie-breaker. \`since\` (inclusive) and \`until\` (exclusive) bound the time field;
  \`updated_since\` (strictly after) is the way to poll for changes.
- Filters are equality on the fields each list names; \`q\` searches the text fields it names.

## Errors

Every error answers \`{"error": {"code", "message", "details"?, "request_id"}}\`. Branch on
\`code\`, never on \`message\`; quote \`request_id\` (also in the \`X-Request-Id\` header) when
reporting a problem.

| status | code | when |
|---|---|---|
| 400 | \`invalid_request\` | malformed JSON, a bad or unknown query parameter (\`details.parameter\`), a bad cursor |
| 401 | \`unauthorized\` | the key is missing, malformed, unknown or revoked |
| 403 | \`forbidden\` | the key lacks the scope (\`details.required_scope\`) |
| 404 | \`not_found\` | no such record in this workspace |
| 409 | \`conflict\` | a uniqueness violation, an illegal state change, an \`Idempotency-Key\` in flight |
| 413 | \`payload_too_large\` | a body over 1 MiB |
| 415 | \`unsupported_media_type\` | a body that is not \`application/json\` |
| 422 | \`validation_failed\` | the body failed validation; \`details\` lists every \`{field, message}\` |
| 422 | \`idempotency_key_reused\` | the same \`Idempotency-Key\` with a different request |
| 429 | \`rate_limited\`, \`send_quota_exhausted\` | a limit; wait \`Retry-After\` seconds |
| 500 | \`internal\` | unexpected; the message carries an error id. Safe to retry with an \`Idempotency-Key\` |
| 503 | \`unavailable\` | a backing service is down; retry after \`Retry-After\` |
| 504 | \`timeout\` | a backing service missed its deadline |`;

/** The reader's name for each bounded context and what it holds, in the order a reader meets them. */
const CONTEXT_TAGS: Record<string, { name: string; description: string }> = {
  people: {
    name: 'People',
    description: 'Contacts, the organizations they work for, and pools: named groups of contacts that flows enroll.',
  },
  flows: { name: 'Flows', description: 'Outreach flows: their steps (flow nodes), the contacts enrolled in them, and the runs of each step.' },
  messaging: {
    name: 'Messaging',
    description: "Sent emails and what happened to them (opens, clicks, replies, bounces), touchpoints, email and chat templates.",
  },
  activities: { name: 'Activities', description: "Tasks, call logs and meetings: the work a team records about its contacts." },
  directory: { name: 'Directory', description: "The workspace's users and its integrations (such as the SMTP server mail is sent through)." },
  webhooks: { name: 'Webhooks', description: 'Endpoints that receive signed notifications of what the records do, and the deliveries made to them.' },
};

/** Tags of operations that are no resource's: the context that answers them. */
const NON_RESOURCE_TAGS: Record<string, string> = {
  // The tracking pixel, click and unsubscribe links of sent emails (tracking.routes.ts).
  tracking: 'messaging',
};

/** Which context owns each resource, from the contexts' own route tables (a resource's generic operations). */
function contextOfResource(): Map<string, string> {
  const owners = new Map<string, string>(Object.entries(NON_RESOURCE_TAGS));
  for (const context of CONTEXTS) {
    for (const route of context.routes(undefined as never, 0)) {
      if (route.operations.length && !owners.has(route.spec.name)) owners.set(route.spec.name, context.name);
    }
  }
  return owners;
}

/**
 * The document with the guides in `info.description` and one tag per bounded context: each
 * operation's resource tag becomes its context's (a contact's timeline, which messaging answers,
 * is found beside contacts under People). A tag no context owns is left as it is.
 */
export function withGuides<D extends Schema>(document: D): D {
  const owners = contextOfResource();
  const tagOf = (tag: string) => {
    const context = owners.get(tag);
    return context && CONTEXT_TAGS[context] ? CONTEXT_TAGS[context].name : tag;
  };
  const paths = document.paths as Record<string, Record<string, Schema>>;
  const used = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters' || !Array.isArray(operation.tags)) continue;
      operation.tags = [...new Set((operation.tags as string[]).map(tagOf))];
      for (const tag of operation.tags as string[]) used.add(tag);
    }
  }
  const known = Object.values(CONTEXT_TAGS).filter((tag) => used.has(tag.name));
  // A tag no context owns stays, declared (with its description when the document gave one).
  const declared = new Map(((document.tags as Schema[] | undefined) ?? []).map((tag) => [tag.name as string, tag]));
  const others = [...used].filter((name) => !known.some((k) => k.name === name)).map((name) => declared.get(name) ?? { name });
  return {
    ...document,
    info: { ...(document.info as Schema), description: GUIDES },
    tags: [...known, ...others],
  };
}
