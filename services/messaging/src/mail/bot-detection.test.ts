import fc from 'fast-check';
import { DEFAULT_BOT_RULES, detectBot, type EngagementHit } from './bot-detection';

const delivered = new Date('2025-03-04T10:00:00Z');
const later = (ms: number) => new Date(delivered.getTime() + ms);
const HOUR = 3_600_000;

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const APPLE_MAIL = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const OUTLOOK_DESKTOP = 'Mozilla/4.0 (compatible; ms-office; MSOffice 16)';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const CUBOT_PHONE = 'Mozilla/5.0 (Linux; Android 12; CUBOT KINGKONG 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';

const open = (userAgent: string | undefined, at = later(HOUR)): [EngagementHit, Date] => [
  { type: 'open', userAgent, deliveredAt: delivered },
  at,
];

describe('detectBot', () => {
  it('lets people through: browsers, mail clients and the Gmail image proxy an hour after delivery', () => {
    for (const ua of [CHROME, IPHONE_SAFARI, APPLE_MAIL, OUTLOOK_DESKTOP, GMAIL_PROXY, CUBOT_PHONE]) {
      expect(detectBot(...open(ua))).toEqual({ isBot: false, reasons: [], burstClickIds: [] });
    }
  });

  it('flags Apple Mail Privacy Protection prefetch by its bare agent', () => {
    expect(detectBot(...open('Mozilla/5.0'))).toMatchObject({ isBot: true, reasons: ['known_agent'], agent: 'apple_mail_privacy_protection' });
  });

  it.each([
    ['Mozilla/5.0 (compatible; Proofpoint URL Defense)', 'proofpoint'],
    ['Mimecast-Url-Scanner/1.0', 'mimecast'],
    ['Barracuda Sentinel (EE)', 'barracuda'],
    ['Mozilla/5.0 (compatible; BingPreview/1.0b)', 'microsoft_preview'],
    ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'link_expander'],
    ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'link_expander'],
    ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 'link_expander'],
    ['WhatsApp/2.23.20.0', 'link_expander'],
    ['curl/8.5.0', 'http_library'],
    ['python-requests/2.31.0', 'http_library'],
    ['Python-urllib/3.11', 'http_library'],
    ['Go-http-client/1.1', 'http_library'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36', 'http_library'],
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'crawler'],
  ])('flags the known agent %s', (ua, agent) => {
    expect(detectBot({ type: 'click', userAgent: ua, deliveredAt: delivered, linkIndex: 0 }, later(HOUR))).toMatchObject({
      isBot: true,
      reasons: ['known_agent'],
      agent,
    });
  });

  it('flags a missing or blank agent and a HEAD request', () => {
    expect(detectBot(...open(undefined)).reasons).toEqual(['no_user_agent']);
    expect(detectBot(...open('   ')).reasons).toEqual(['no_user_agent']);
    expect(detectBot({ type: 'click', userAgent: CHROME, method: 'head', linkIndex: 0 }, later(HOUR)).reasons).toEqual(['head_request']);
  });

  it('flags anything within the grace period after delivery, even a browser or the Gmail proxy', () => {
    expect(detectBot(...open(GMAIL_PROXY, later(1_500))).reasons).toEqual(['soon_after_delivery']);
    expect(detectBot({ type: 'click', userAgent: CHROME, deliveredAt: delivered, linkIndex: 0 }, later(4_999)).isBot).toBe(true);
    expect(detectBot({ type: 'click', userAgent: CHROME, deliveredAt: delivered, linkIndex: 0 }, later(5_000)).isBot).toBe(false);
    // Skew between instances can put the hit "before" delivery; that is as soon as it gets.
    expect(detectBot(...open(CHROME, later(-200))).reasons).toEqual(['soon_after_delivery']);
    // Unknown delivery time: the rule cannot apply.
    expect(detectBot({ type: 'open', userAgent: CHROME }, later(0)).isBot).toBe(false);
  });

  it('flags several distinct links clicked within a second, and names the earlier clicks to re-flag', () => {
    const at = later(HOUR);
    const recentClicks = [
      { id: 'e1', linkIndex: 0, at: new Date(at.getTime() - 700) },
      { id: 'e2', linkIndex: 1, at: new Date(at.getTime() - 300) },
      { id: 'old', linkIndex: 2, at: new Date(at.getTime() - 60_000) },
    ];
    const verdict = detectBot({ type: 'click', userAgent: CHROME, deliveredAt: delivered, linkIndex: 2, linkCount: 5, recentClicks }, at);
    expect(verdict).toEqual({ isBot: true, reasons: ['link_burst'], burstClickIds: ['e1', 'e2'] });
  });

  it('does not take two tabs, or one link clicked twice, for a burst', () => {
    const at = later(HOUR);
    const twoTabs = [{ id: 'e1', linkIndex: 0, at: new Date(at.getTime() - 400) }];
    expect(detectBot({ type: 'click', userAgent: CHROME, linkIndex: 1, linkCount: 6, recentClicks: twoTabs }, at).isBot).toBe(false);
    const doubleClick = [
      { id: 'e1', linkIndex: 3, at: new Date(at.getTime() - 200) },
      { id: 'e2', linkIndex: 3, at: new Date(at.getTime() - 100) },
    ];
    expect(detectBot({ type: 'click', userAgent: CHROME, linkIndex: 3, linkCount: 6, recentClicks: doubleClick }, at).isBot).toBe(false);
  });

  it('takes every link of a two-link email clicked at once for a burst', () => {
    const at = later(HOUR);
    const recentClicks = [{ id: 'e1', linkIndex: 0, at: new Date(at.getTime() - 150) }];
    expect(detectBot({ type: 'click', userAgent: CHROME, linkIndex: 1, linkCount: 2, recentClicks }, at)).toMatchObject({
      isBot: true,
      reasons: ['link_burst'],
      burstClickIds: ['e1'],
    });
  });

  it('never flags a browser click long after delivery when no other link was clicked near it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: DEFAULT_BOT_RULES.deliveryGraceMs, max: 30 * 24 * HOUR }),
        fc.array(fc.record({ linkIndex: fc.nat(20), gap: fc.integer({ min: DEFAULT_BOT_RULES.burstWindowMs + 1, max: HOUR }) })),
        (afterDelivery, earlier) => {
          const at = later(afterDelivery);
          const recentClicks = earlier.map((c) => ({ linkIndex: c.linkIndex, at: new Date(at.getTime() - c.gap) }));
          expect(detectBot({ type: 'click', userAgent: CHROME, deliveredAt: delivered, linkIndex: 0, linkCount: 21, recentClicks }, at).isBot).toBe(false);
        },
      ),
    );
  });
});
