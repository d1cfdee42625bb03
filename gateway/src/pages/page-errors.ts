import { CrmError, ERROR_TABLE, type ErrorCode, printableKey } from '@crm/kit';
import type { FastifyError, FastifyRequest } from 'fastify';
import { toCrmError } from '../errors';
import { FORM_BODY_LIMIT } from './form';

/** What an error page says: a heading and one sentence, by public code. */
const HEADINGS: { readonly [C in ErrorCode]: string } = {
  invalid_request: 'This request could not be read',
  unauthorized: 'Please sign in',
  forbidden: 'This form was not accepted',
  not_found: 'Not found',
  method_not_allowed: 'Not allowed',
  request_timeout: 'The request took too long',
  conflict: 'This could not be done',
  payload_too_large: 'This form is too large',
  unsupported_media_type: 'This form could not be read',
  validation_failed: 'Some of the values are not valid',
  idempotency_key_reused: 'This could not be done',
  rate_limited: 'Too many attempts',
  send_quota_exhausted: 'Too many attempts',
  internal: 'Something went wrong',
  unavailable: 'Briefly unavailable',
  timeout: 'Briefly unavailable',
};

/** Messages written for a person, where the error's own is written for a program. */
const MESSAGES: Partial<Record<ErrorCode, string>> = {
  payload_too_large: `A form sends at most ${FORM_BODY_LIMIT / 1024} KiB.`,
  unsupported_media_type: 'Forms are sent as application/x-www-form-urlencoded.',
  unavailable: 'A service this page needs did not answer. Try again in a moment.',
  timeout: 'A service this page needs did not answer in time. Try again in a moment.',
};

export interface ErrorPage {
  status: number;
  title: string;
  message: string;
}

/**
 * Any failure on a page as an HTML page: the same codes and statuses as the API's envelope (one
 * mapping, ERROR_TABLE), never a cause that is not the client's. The CSRF plugin's refusals are
 * 403 `forbidden`.
 */
export function errorPage(error: unknown, request: FastifyRequest): ErrorPage {
  const code = (error as FastifyError | undefined)?.code;
  const crm =
    typeof code === 'string' && code.startsWith('FST_CSRF_')
      ? new CrmError('forbidden', 'this form has expired or did not come from this site: reload the page and try again')
      : toCrmError(error, request);
  return { status: ERROR_TABLE[crm.code].http, title: HEADINGS[crm.code], message: MESSAGES[crm.code] ?? sentence(crm.message) };
}

/** A message as a sentence of at most 300 characters: capitalised, ending in a full stop, control characters shown escaped. */
export function sentence(text: string): string {
  const printable = printableKey(text).slice(0, 300);
  return `${printable.charAt(0).toUpperCase()}${printable.slice(1)}${/[.!?]$/.test(printable) ? '' : '.'}`;
}
