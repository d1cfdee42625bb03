import { type Clock, type CrmEvent, type SqlClient, createGroupCommit, createOutboxCommit } from '@crm/kit';
import { MessagingError, MessagingErrorCode } from '@crm/messaging-contract';
import { type TrackingTokens, detectBot } from './mail';
import { uncountBotEvents } from './ledger';
import { type EngagementInput, type SendRow, findSend, findSends, recordEmailEvent, recordEmailEvents, sendLockOrder, suppress } from './send-lifecycle.store';

/**
 * What the gateway's public tracking paths record (gateway/README.md, Messaging, "Tracking and
 * unsubscribe"): an open (the pixel), a click (answered with the link's target) and an unsubscribe.
 * The token is the only credential: one that is forged, truncated, of another kind, or names no
 * send is NOT_FOUND, and nothing is recorded. Opens and clicks that look automated are recorded
 * with is_bot, never dropped; an unsubscribe is recorded once per address and suppresses it for the
 * workspace.
 */
export interface EngagementRequest {
  kind: 'open' | 'click' | 'unsubscribe';
  token: string;
  userAgent?: string;
  method?: string;
  /** Verify only (the unsubscribe page's GET): nothing is recorded. */
  checkOnly?: boolean;
}

export interface EngagementResult {
  url?: string;
  isBot: boolean;
}

/** One open of a batch the gateway gathered (its pixel requests that arrived together). */
export interface OpenHit {
  token: string;
  userAgent?: string;
  method?: string;
}

export interface Engagement {
  record(request: EngagementRequest): Promise<EngagementResult>;
  /**
   * Records a batch of opens as `record` records each, in one group commit: whether each was
   * recorded, in order (false for a token that is forged or names no send: nothing recorded for it).
   * Resolves once every recorded open is committed; rejects if any of them could not be.
   */
  recordOpens(hits: readonly OpenHit[]): Promise<boolean[]>;
}

/** Opens in one batch at most (the gateway sends fewer). */
export const MAX_OPENS_PER_BATCH = 1_000;

/** How far back earlier clicks count towards a burst (DEFAULT_BOT_RULES' window, with room). */
const RECENT_CLICKS_MS = 10_000;

export function createEngagement(deps: { db: SqlClient; tokens: TrackingTokens; clock: Clock; afterCommit: () => void }): Engagement {
  const { db, tokens, clock } = deps;
  const commit = createOutboxCommit(db, deps.afterCommit);
  const unknown = () => new MessagingError(MessagingErrorCode.UnknownToken, 'no such tracking link');
  // Opens are the pixel's, the hot path of a campaign: recorded in groups (kit's group commit) of a
  // few statements whatever their size, each answered once its group committed. Clicks and
  // unsubscribes read what came before them, one by one.
  const opens = createGroupCommit<{ send: SendRow; input: EngagementInput }>({
    db,
    writeAll: async (tx, items) => (await recordEmailEvents(tx, items)).map((recorded) => recorded.events),
    order: (a, b) => sendLockOrder(a.send, b.send),
    limit: MAX_OPENS_PER_BATCH,
    afterCommit: deps.afterCommit,
  });
  const openOf = (send: SendRow, hit: { userAgent?: string; method?: string }, now: Date) => {
    const { isBot } = detectBot({ type: 'open', userAgent: hit.userAgent ?? null, method: hit.method, deliveredAt: send.sent_at ? new Date(send.sent_at) : null }, now);
    return { send, input: { type: 'open' as const, occurredAt: now, isBot, url: null, userAgent: hit.userAgent } };
  };

  return {
    async record(request) {
      const claim = tokens.verify(request.kind, request.token);
      if (!claim) throw unknown();
      const send = await findSend(db, claim.sentEmailId);
      if (!send) throw unknown();
      let url: string | undefined;
      let links: string[] = [];
      if (claim.kind === 'click') {
        const { rows } = await db.query<{ links: string[] }>(`SELECT links FROM deliveries WHERE workspace_id = $1::uuid AND sent_email_id = $2::uuid`, [
          send.workspace_id,
          send.id,
        ]);
        links = rows[0]?.links ?? [];
        url = links[claim.linkIndex];
        if (!url) throw unknown();
      }
      // Earlier clicks record their target: the same target counts as the same link.
      const linkIndexOf = (target: string | null) => Math.max(0, links.indexOf(target ?? ''));
      if (request.checkOnly) return { url, isBot: false };

      const now = clock.now();
      if (claim.kind === 'open') {
        const open = openOf(send, request, now);
        await opens.add(open);
        return { url, isBot: open.input.isBot };
      }
      let isBot = false;
      await commit(async (tx) => {
        if (claim.kind === 'unsubscribe') {
          // One unsubscribe per address: the page's button and a mail client's one-click POST, or
          // two sends' links, record it once.
          if (!(await suppress(tx, send, 'unsubscribed'))) return [];
          return (await recordEmailEvent(tx, send, { type: 'unsubscribe', occurredAt: now, userAgent: request.userAgent })).events;
        }
        const recent =
          claim.kind === 'click'
            ? (
                await tx.query<{ id: string; url: string | null; occurred_at: Date }>(
                  `SELECT e.id, e.url, e.occurred_at FROM email_events e
                    WHERE e.workspace_id = $1::uuid AND e.sent_email_id = $2::uuid AND e.event_type = 'click' AND e.occurred_at > $3::timestamptz
                    ORDER BY e.occurred_at`,
                  [send.workspace_id, send.id, new Date(now.getTime() - RECENT_CLICKS_MS).toISOString()],
                )
              ).rows
            : [];
        const verdict = detectBot(
          {
            type: claim.kind,
            userAgent: request.userAgent ?? null,
            method: request.method,
            deliveredAt: send.sent_at ? new Date(send.sent_at) : null,
            ...(claim.kind === 'click'
              ? {
                  linkIndex: linkIndexOf(url ?? null),
                  linkCount: new Set(links).size,
                  recentClicks: recent.map((r) => ({ id: r.id, linkIndex: linkIndexOf(r.url), at: new Date(r.occurred_at) })),
                }
              : {}),
          },
          now,
        );
        isBot = verdict.isBot;
        if (verdict.burstClickIds.length) {
          await tx.query(`UPDATE email_events SET is_bot = true, updated_at = now() WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])`, [
            send.workspace_id,
            verdict.burstClickIds,
          ]);
          await uncountBotEvents(tx, send.workspace_id, verdict.burstClickIds);
        }
        return (await recordEmailEvent(tx, send, { type: claim.kind, occurredAt: now, isBot, url: url ?? null, userAgent: request.userAgent })).events;
      });
      return { url, isBot };
    },

    async recordOpens(hits) {
      if (hits.length > MAX_OPENS_PER_BATCH) throw new RangeError(`at most ${MAX_OPENS_PER_BATCH} opens in one batch, not ${hits.length}`);
      const claims = hits.map((hit) => tokens.verify('open', hit.token));
      const sends = await findSends(db, claims.flatMap((claim) => (claim ? [claim.sentEmailId] : [])));
      const now = clock.now();
      const found = claims.map((claim) => (claim ? sends.get(claim.sentEmailId) : undefined));
      const settled = await opens.addAll(found.flatMap((send, i) => (send ? [openOf(send, hits[i]!, now)] : [])));
      const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
      return found.map((send) => send !== undefined);
    },
  };
}
