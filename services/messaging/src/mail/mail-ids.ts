/**
 * The two identifiers a sent email carries out into the world and gets back from it: its
 * `Message-ID` (named by replies in `In-Reply-To`/`References`, and by bounces in their returned
 * headers) and its VERP envelope sender (the address bounces are delivered to). Both embed the
 * sent_email id, so inbound mail can be matched without a lookup table. The formats are contracts
 * (./README.md, "mail-ids.ts"): changing them orphans the replies and bounces of mail already sent.
 */

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_ONLY = new RegExp(`^${UUID}$`, 'i');
// RFC 1035 host names, as MAIL_DOMAIN must be one: labels of letters, digits and inner hyphens.
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export const VERP_PREFIX = 'bounces+';

export function isSentEmailId(value: string): boolean {
  return UUID_ONLY.test(value);
}

export function isMailDomain(value: string): boolean {
  return HOST.test(value);
}

/** `<{sent_email_id}@{MAIL_DOMAIN}>`, angle brackets included. */
export function messageIdFor(sentEmailId: string, mailDomain: string): string {
  return `<${sentEmailId.toLowerCase()}@${mailDomain.toLowerCase()}>`;
}

/** `bounces+{sent_email_id}@{MAIL_DOMAIN}`: the envelope sender that routes a bounce back to its send. */
export function verpAddressFor(sentEmailId: string, mailDomain: string): string {
  return `${VERP_PREFIX}${sentEmailId.toLowerCase()}@${mailDomain.toLowerCase()}`;
}

/**
 * The sent_email id named by a Message-ID of ours, with or without angle brackets; undefined for
 * anyone else's. Domains compare case-insensitively (they are DNS names) and so does the id, since
 * some gateways fold the case of what they copy.
 */
export function sentEmailIdFromMessageId(messageId: string, mailDomain: string): string | undefined {
  const match = /^\s*<?([^<>@\s]+)@([^<>@\s]+?)>?\s*$/.exec(messageId);
  if (!match || match[2]!.toLowerCase() !== mailDomain.toLowerCase()) return undefined;
  return UUID_ONLY.test(match[1]!) ? match[1]!.toLowerCase() : undefined;
}

/** The sent_email id named by a VERP address of ours (`bounces+{id}@{MAIL_DOMAIN}`), else undefined. */
export function sentEmailIdFromVerp(address: string, mailDomain: string): string | undefined {
  const match = /^\s*<?([^<>@\s]+)@([^<>@\s]+?)>?\s*$/.exec(address);
  if (!match || match[2]!.toLowerCase() !== mailDomain.toLowerCase()) return undefined;
  const local = match[1]!;
  if (local.slice(0, VERP_PREFIX.length).toLowerCase() !== VERP_PREFIX) return undefined;
  const id = local.slice(VERP_PREFIX.length);
  return UUID_ONLY.test(id) ? id.toLowerCase() : undefined;
}

/** The Message-IDs (`<local@domain>`) a header value names, in order. */
export function messageIdsIn(value: string): string[] {
  return [...value.matchAll(/<[^<>\s]+@[^<>\s]+>/g)].map((m) => m[0]);
}
