/**
 * @crm/sdk: the TypeScript client of the Outreach CRM API. Runs wherever `fetch` exists (Node 20+,
 * Deno, Bun, browsers, workers): it uses only fetch, AbortSignal, crypto.randomUUID and timers.
 *
 * Webhook signatures (DESIGN.md section 4, "Webhooks"): `verifyWebhook` (./webhooks.ts) verifies
 * Standard Webhooks 1.0 signatures (`webhook-id`, `webhook-timestamp`, `webhook-signature`;
 * HMAC-SHA256 with Web Crypto, so it runs where the client runs), accepts any of several `v1,`
 * entries (two secrets sign for 24 h after a rotation) and refuses a timestamp outside a tolerance.
 */
export { createCrmClient, type CrmClient, type CrmClientOptions, type Answer, type CallInit, type ListPath, type Item, type Page, type Paginated, type PathsWith } from './client';
export type { CallOptions } from './transport';
export { CrmError, CrmApiError, CrmRateLimitError, CrmValidationError, CrmConnectionError, CrmTimeoutError, type ErrorCode, type FieldError } from './errors';
export { DEFAULT_RETRY_POLICY, RETRYABLE_STATUSES, createRetryBudget, type RetryBudget, type RetryBudgetOptions, type RetryPolicy } from './retry';
export { verifyWebhook, isDeletedRecord, WebhookVerificationError, type VerifiedWebhook, type VerifyWebhookOptions, type WebhookDeletedRecord, type WebhookEvent, type WebhookEventData, type WebhookEventType, type WebhookHeaders, type WebhookVerificationReason } from './webhooks';
export type { paths, components, operations } from './generated/openapi';

import type { components } from './generated/openapi';
/** A record as the API returns it, by schema name: `Schema<'Contact'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
