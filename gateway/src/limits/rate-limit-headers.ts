import type { RateDecision, RateLimits } from './rate-limiter';

const seconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * The rate-limit response headers (gateway/README.md, "Rate limits"): the classic trio
 * (RateLimit-Limit is the per-key budget per minute, 120 by default) plus the IETF draft's
 * structured `RateLimit-Policy` and `RateLimit` fields describing both windows. Remaining and
 * Reset follow the window that binds.
 */
export function rateLimitHeaders(limits: RateLimits, decision: RateDecision): Record<string, string> {
  const perMinute = Math.round((limits.keyLimit * 60_000) / limits.keyWindowMs);
  const binding = decision.workspace.remaining < decision.key.remaining ? decision.workspace : decision.key;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(perMinute),
    'RateLimit-Remaining': String(binding.remaining),
    'RateLimit-Reset': String(seconds(binding.resetMs)),
    'RateLimit-Policy':
      `"burst";q=${limits.keyLimit};w=${seconds(limits.keyWindowMs)}, ` +
      `"workspace";q=${limits.workspaceLimit};w=${seconds(limits.workspaceWindowMs)}`,
    RateLimit:
      `"burst";r=${decision.key.remaining};t=${seconds(decision.key.resetMs)}, ` +
      `"workspace";r=${decision.workspace.remaining};t=${seconds(decision.workspace.resetMs)}`,
  };
  if (!decision.admitted) headers['Retry-After'] = String(Math.max(1, seconds(decision.retryAfterMs)));
  return headers;
}
