import { CrmError, type RawListParams, parseDateTime, textProblem } from '@crm/kit';

/**
 * The read views messaging answers from its engagement ledger (gateway/README.md, "Timeline and
 * performance"): a contact's timeline and a user's performance. Their query strings are parsed
 * here, by the gateway and again by the service, with the strictness of every list: unknown or
 * repeated parameters and malformed values are 400s that name the parameter.
 */
export const TIMELINE_KINDS = ['sent_email', 'email_event', 'touchpoint', 'call_log', 'meeting', 'task'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];
export const TIMELINE_MAX_LIMIT = 100;
export const TIMELINE_DEFAULT_LIMIT = 50;

export interface TimelineQuery {
  limit: number;
  kind?: TimelineKind;
  since?: Date;
  until?: Date;
  cursor?: string;
}

const bad = (name: string, message: string) => CrmError.invalid(`query parameter ${name} ${message}`, { parameter: name });

function oneOf(raw: RawListParams, allowed: readonly string[]): (name: string) => string | undefined {
  for (const name of Object.keys(raw)) {
    if (raw[name] !== undefined && !allowed.includes(name)) {
      throw CrmError.invalid(`unknown query parameter ${name}; this path accepts ${allowed.join(', ')}`, { parameter: name });
    }
  }
  return (name) => {
    const value = raw[name];
    if (Array.isArray(value)) throw bad(name, 'must be given at most once');
    return value;
  };
}

/** `limit` (1–100, default 50), `cursor`, `kind` (one of the six), `since` and `until` on `occurred_at`. */
export function parseTimelineQuery(raw: RawListParams): TimelineQuery {
  const one = oneOf(raw, ['limit', 'cursor', 'kind', 'since', 'until']);
  const query: TimelineQuery = { limit: TIMELINE_DEFAULT_LIMIT };
  const limit = one('limit');
  if (limit !== undefined) {
    if (!/^\d{1,4}$/.test(limit) || +limit < 1 || +limit > TIMELINE_MAX_LIMIT) throw bad('limit', `must be an integer from 1 to ${TIMELINE_MAX_LIMIT}`);
    query.limit = +limit;
  }
  const kind = one('kind');
  if (kind !== undefined) {
    if (!(TIMELINE_KINDS as readonly string[]).includes(kind)) throw bad('kind', `must be one of ${TIMELINE_KINDS.join(', ')}`);
    query.kind = kind as TimelineKind;
  }
  for (const name of ['since', 'until'] as const) {
    const value = one(name);
    if (value === undefined) continue;
    const date = parseDateTime(value);
    if (!date) throw bad(name, 'must be an RFC 3339 date-time with offset between years 0001 and 9999, e.g. 2026-05-15T10:00:00Z');
    query[name] = date;
  }
  const cursor = one('cursor');
  if (cursor !== undefined) {
    if (cursor === '' || textProblem(cursor)) throw bad('cursor', 'is malformed');
    query.cursor = cursor;
  }
  return query;
}

/** The windows of `GET /v1/users/{id}/performance`, each ending now. */
export const PERFORMANCE_WINDOWS = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24, '90d': 90 * 24 } as const;
export type PerformanceWindow = keyof typeof PERFORMANCE_WINDOWS;
export const DEFAULT_PERFORMANCE_WINDOW: PerformanceWindow = '30d';

export function parsePerformanceQuery(raw: RawListParams): PerformanceWindow {
  const window = oneOf(raw, ['window'])('window');
  if (window === undefined) return DEFAULT_PERFORMANCE_WINDOW;
  if (!Object.hasOwn(PERFORMANCE_WINDOWS, window)) throw bad('window', `must be one of ${Object.keys(PERFORMANCE_WINDOWS).join(', ')}`);
  return window as PerformanceWindow;
}

/** UserPerformance's counters, in the order the API shows them. */
export const PERFORMANCE_COUNTERS = [
  'emails_sent',
  'emails_replied',
  'emails_opened',
  'emails_clicked',
  'calls_placed',
  'call_talk_seconds',
  'meetings_scheduled',
  'tasks_completed',
] as const;
export type PerformanceCounter = (typeof PERFORMANCE_COUNTERS)[number];
