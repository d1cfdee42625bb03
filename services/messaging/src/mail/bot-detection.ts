/**
 * Decides whether an open or a click was made by a machine. Flagged events are still recorded (with
 * `is_bot: true`) and listed; they are only left out of analytics and performance counts, so a
 * false positive hides an event from a chart but never loses it. The rules therefore prefer
 * signals that a person cannot produce over guesses about what a person would not do.
 *
 * The function is pure: the hit's arrival time is passed in as `now`, and the caller supplies what
 * it knows about the send (delivery time, number of links, earlier clicks).
 */

export type EngagementType = 'open' | 'click';

export interface RecentClick {
  /** The recorded event's id, echoed back in `burstClickIds` when the burst rule re-flags it. */
  id?: string;
  linkIndex: number;
  at: Date;
}

export interface EngagementHit {
  type: EngagementType;
  /** The request's `User-Agent`; absent or blank is itself a signal. */
  userAgent?: string | null;
  /** The HTTP method of the request, when the caller serves HEAD on the tracking paths. */
  method?: string;
  /** When the SMTP server accepted the message (the send's accepted state). */
  deliveredAt?: Date | null;
  /** For a click: the index of the link followed. */
  linkIndex?: number;
  /** For a click: how many tracked links the email has (the length of its stored `links`). */
  linkCount?: number;
  /** For a click: the earlier clicks on the same sent email, at least those of the last few seconds. */
  recentClicks?: readonly RecentClick[];
}

export type BotReason = 'no_user_agent' | 'known_agent' | 'head_request' | 'soon_after_delivery' | 'link_burst';

export interface BotVerdict {
  isBot: boolean;
  /** Every rule that fired, in the order of `BotReason`; empty for a person. */
  reasons: BotReason[];
  /** The name of the matched agent when `known_agent` fired, for the event's metadata and for logs. */
  agent?: string;
  /**
   * Earlier clicks (by `RecentClick.id`) that belong to the same burst and were recorded before the
   * burst could be seen: the caller re-flags them, or the first click of every scan counts as human.
   */
  burstClickIds: string[];
}

export interface BotRules {
  /**
   * An open or click this soon after our SMTP server accepted the message is a machine: the message
   * still has to cross the recipient's MX and filters, reach a mailbox and be noticed before a
   * person could open it, while Safe Links-style detonation and MPP prefetch happen at delivery.
   */
  deliveryGraceMs: number;
  /** Clicks on distinct links of one email this close together are one automated sweep. */
  burstWindowMs: number;
  /**
   * Distinct links in one window that make a burst. Two could be a person opening two tabs with a
   * modifier key; three within a second is not. An email with fewer links is a burst when every one
   * of them (at least two) is hit within the window, the "every link at once" of a scanner.
   */
  burstMinLinks: number;
}

export const DEFAULT_BOT_RULES: BotRules = { deliveryGraceMs: 5_000, burstWindowMs: 1_000, burstMinLinks: 3 };

interface KnownAgent {
  name: string;
  pattern: RegExp;
}

/**
 * User agents that only machines send. Deliberately not listed:
 * - `GoogleImageProxy` (Gmail) and `YahooMailProxy`: these proxies fetch images when the person
 *   opens the message, not at delivery, so a proxy open is a real first open (later opens are
 *   served from the proxy's cache and never reach us). A proxy fetch right after delivery is still
 *   caught by the timing rule.
 * - Outlook's own renderers (`ms-office`, `Microsoft Outlook`): that is the person's mail client.
 * - Microsoft Safe Links: it fetches with an ordinary browser agent from Microsoft's ranges, so it
 *   cannot be named here; the timing and burst rules are what catch it.
 */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  // Apple Mail Privacy Protection preloads every remote image at delivery through Apple's proxy,
  // announcing itself as a bare "Mozilla/5.0": no browser or mail client sends exactly that.
  { name: 'apple_mail_privacy_protection', pattern: /^Mozilla\/5\.0$/ },
  // Security gateways that fetch or detonate links and images before the person sees them.
  { name: 'proofpoint', pattern: /proofpoint/i },
  { name: 'mimecast', pattern: /mimecast/i },
  { name: 'barracuda', pattern: /barracuda/i },
  { name: 'cisco_secure_email', pattern: /ironport|cisco/i },
  { name: 'symantec_messagelabs', pattern: /messagelabs|symantec/i },
  { name: 'trend_micro', pattern: /trend ?micro/i },
  { name: 'sophos', pattern: /sophos/i },
  { name: 'forcepoint', pattern: /forcepoint/i },
  { name: 'fortinet', pattern: /fortimail|fortiguard/i },
  { name: 'microsoft_preview', pattern: /BingPreview|MicrosoftPreview|SkypeUriPreview/i },
  // Link expanders: a link pasted into a chat is fetched by the chat service, not clicked.
  {
    name: 'link_expander',
    pattern: /Slackbot|Slack-ImgProxy|Twitterbot|facebookexternalhit|LinkedInBot|Discordbot|TelegramBot|WhatsApp|redditbot|Iframely|Embedly|vkShare|Pinterestbot|Applebot/i,
  },
  // Programs and libraries: people do not read mail with these.
  {
    name: 'http_library',
    pattern:
      /\bcurl\/|\bWget\/|python-requests|python-urllib|\bPython\/|aiohttp|python-httpx|Go-http-client|^Java\/|Apache-HttpClient|okhttp|libwww-perl|node-fetch|\baxios\/|undici|PostmanRuntime|HeadlessChrome|PhantomJS|Scrapy|^Ruby|Faraday/i,
  },
  // Self-declared crawlers. Case-sensitive "…bot" after a letter (Googlebot, bingbot) plus the
  // word "bot", so a phone brand such as CUBOT in an Android agent does not match.
  { name: 'crawler', pattern: /[a-z]bot\b|\bbot\b|crawler|spider/ },
];

export function detectBot(hit: EngagementHit, now: Date, rules: BotRules = DEFAULT_BOT_RULES): BotVerdict {
  const reasons: BotReason[] = [];
  let agent: string | undefined;
  let burstClickIds: string[] = [];

  const userAgent = (hit.userAgent ?? '').trim();
  if (userAgent === '') reasons.push('no_user_agent');
  else {
    agent = KNOWN_AGENTS.find((known) => known.pattern.test(userAgent))?.name;
    if (agent) reasons.push('known_agent');
  }

  // HEAD fetches the headers without the content: link checkers do, browsers following a link never do.
  if (hit.method !== undefined && hit.method.toUpperCase() === 'HEAD') reasons.push('head_request');

  // A hit "before" delivery (clock skew between instances) counts as within the grace period.
  if (hit.deliveredAt && now.getTime() - hit.deliveredAt.getTime() < rules.deliveryGraceMs) reasons.push('soon_after_delivery');

  if (hit.type === 'click' && hit.linkIndex !== undefined && hit.recentClicks?.length) {
    const inWindow = hit.recentClicks.filter((c) => Math.abs(now.getTime() - c.at.getTime()) <= rules.burstWindowMs);
    const distinct = new Set([hit.linkIndex, ...inWindow.map((c) => c.linkIndex)]);
    const needed = Math.max(2, Math.min(rules.burstMinLinks, hit.linkCount ?? rules.burstMinLinks));
    if (distinct.size >= needed) {
      reasons.push('link_burst');
      burstClickIds = inWindow.flatMap((c) => (c.id === undefined ? [] : [c.id]));
    }
  }

  return { isBot: reasons.length > 0, reasons, ...(agent ? { agent } : {}), burstClickIds };
}
