import * as http from 'node:http';
import * as https from 'node:https';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * Where a webhook may go (DESIGN.md section 4, "Egress is checked"): an https URL whose host
 * resolves, at connection time, to a public address. Two development flags lift the rules:
 * WEBHOOKS_ALLOW_HTTP=1 (plain http) and WEBHOOKS_ALLOW_PRIVATE=1 (any address).
 */
export interface EgressPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

export const STRICT_EGRESS: EgressPolicy = { allowHttp: false, allowPrivate: false };

/**
 * Whether an IP address is public unicast. ipaddr.js names every special range (loopback,
 * private, linkLocal (169.254.169.254, the metadata address, included), carrierGradeNat
 * (100.64/10), multicast, unspecified, broadcast, reserved, uniqueLocal (fc00::/7), ipv4Mapped …);
 * only `unicast` is public. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4
 * address it carries, so the mapped form of a public address stays usable.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** A URL's host as an IP literal (brackets of IPv6 removed), or undefined for a name. */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}

/**
 * Why a URL may not be an endpoint's, or undefined when it may: checked at create and update.
 * A host that is an address literal is judged now; a name is judged when a delivery connects
 * (egressAgent), since what it resolves to may change.
 */
export function urlProblem(raw: string, policy: EgressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (!url.hostname) return 'must name a host';
  if (!policy.allowPrivate) {
    const literal = literalAddress(url.hostname);
    // WHATWG URL parsing already turns decimal, octal and hex IPv4 forms into the dotted quad.
    if (literal !== undefined && !isPublicAddress(literal)) return 'must not point at a private, loopback, link-local, shared or multicast address';
    if (url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) return 'must not point at this machine';
  }
  return undefined;
}

/**
 * How long a connection to a receiver is kept for the next delivery once idle: below the 5 s that
 * common servers keep an idle connection (Node's default), so we close first and rarely send on a
 * connection the server is closing. A server's `Keep-Alive: timeout=` hint shortens it further.
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * The agents deliveries connect through: request-filtering-agent checks the address a name
 * resolves to (and a literal host) when a connection is made, refusing every range but public
 * unicast; IPv4-mapped and other special IPv6 forms are not `unicast` to it either. Connections
 * are kept alive between deliveries to the same host: a connection stays with the address that
 * was checked when it was opened, whatever the name resolves to later, and a receiver over https
 * is spared a TLS handshake per delivery. With `allowPrivate` they check nothing.
 */
export function egressAgents(policy: EgressPolicy): { http: http.Agent; https: https.Agent } {
  const pooling = { keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
  if (policy.allowPrivate) return { http: new http.Agent(pooling), https: new https.Agent(pooling) };
  const options = { ...pooling, allowPrivateIPAddress: false, allowMetaIPAddress: false, denyIPAddressList: [] as string[], allowIPAddressList: [] as string[] };
  return { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
}
