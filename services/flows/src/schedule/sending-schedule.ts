import { CrmError, type FieldIssue } from '@crm/kit';

/**
 * A flow's sending schedule (gateway/README.md, Flows, "Sending schedule"):
 * `{timezone, days, start, end}`. Email and task steps due outside it move to the next opening.
 * Times are wall-clock times in `timezone`, computed with the Intl API (the runtime's tz database),
 * so daylight-saving changes follow the zone. Rules and their reasons: ./README.md.
 *
 * A window opens on each listed day at `start` and closes at `end` the same day, or, when `end`
 * is earlier than `start`, at `end` the next day (a window crossing midnight belongs to the day it
 * opens). `end: "24:00"` closes at the next midnight. Windows are half-open: [opens, closes).
 *
 * A wall-clock time maps to the first instant at which the zone's clock reads that time or
 * later: a time skipped by a spring-forward change maps to the instant the clock jumps (02:30 on
 * the day New York skips 02:00-03:00 is 03:00 EDT); a time that occurs twice on a fall-back day
 * maps to its first occurrence, for the start and the end alike.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface SendingSchedule {
  /** IANA time zone name, e.g. `Europe/London`. */
  timezone: string;
  /** Days on which a window opens, unique, in `mon`..`sun` order. */
  days: Weekday[];
  /** `HH:MM`, 00:00 to 23:59. */
  start: string;
  /** `HH:MM`, 00:00 to 23:59, or 24:00; differs from `start`. */
  end: string;
}

/** One opening of the schedule: [opens, closes). */
export interface ScheduleWindow {
  opens: Date;
  closes: Date;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)+$/;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Validation

let supportedZones: Map<string, string> | undefined;

/** The runtime's zone names by lower case, to correct a name's case. */
function zonesByLowerCase(): Map<string, string> {
  if (!supportedZones) {
    supportedZones = new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
    supportedZones.set('utc', 'UTC');
  }
  return supportedZones;
}

/**
 * Validates an IANA zone name; returns the name to store (its case corrected when the runtime
 * knows the canonical spelling) or an issue message.
 */
function parseTimezone(value: unknown): { zone: string } | { problem: string } {
  if (value === undefined || value === null) return { problem: 'is required: an IANA time zone such as Europe/London' };
  if (typeof value !== 'string') return { problem: 'must be an IANA time zone name such as Europe/London' };
  // Bare abbreviations are refused: "EST" is a fixed UTC-5 zone (no summer time) to the tz
  // database, which is not what someone who writes it means. Offsets have no DST rules either.
  if (value.length > 64 || (value.toUpperCase() !== 'UTC' && !ZONE_NAME.test(value))) {
    return { problem: `'${value.slice(0, 64)}' is not an IANA time zone name; use a region name such as America/New_York (or UTC)` };
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    return { problem: `'${value}' is not a known IANA time zone` };
  }
  return { zone: zonesByLowerCase().get(value.toLowerCase()) ?? value };
}

const minutesOf = (hhmm: string): number => (hhmm === '24:00' ? 1440 : Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5)));

/**
 * Validates a schedule; throws `CrmError.validation` naming each bad part under `field`
 * (`schedule.timezone`, `schedule.days[1]`, ...). The caller handles `null` (no schedule) itself.
 */
export function parseSchedule(value: unknown, field = 'schedule'): SendingSchedule {
  const issues: FieldIssue[] = [];
  const fail = (path: string, message: string) => issues.push({ field: path ? `${field}.${path}` : field, message });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw CrmError.validation([{ field, message: 'must be an object {timezone, days, start, end}' }]);
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!['timezone', 'days', 'start', 'end'].includes(key)) fail(key, 'is not part of a schedule (timezone, days, start, end)');
  }

  const zone = parseTimezone(raw.timezone);
  if ('problem' in zone) fail('timezone', zone.problem);

  const days = new Set<Weekday>();
  if (raw.days === undefined || raw.days === null) fail('days', `is required: a list of ${WEEKDAYS.join(', ')}`);
  else if (!Array.isArray(raw.days) || raw.days.length === 0) {
    // A schedule without days never opens: every step would wait forever.
    fail('days', `must be a non-empty list of ${WEEKDAYS.join(', ')}`);
  } else {
    raw.days.forEach((day: unknown, i) => {
      if (typeof day !== 'string' || !(WEEKDAYS as readonly string[]).includes(day)) fail(`days[${i}]`, `must be one of ${WEEKDAYS.join(', ')}`);
      else if (days.has(day as Weekday)) fail(`days[${i}]`, `'${day}' is listed twice`);
      else days.add(day as Weekday);
    });
  }

  const time = (key: 'start' | 'end'): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) fail(key, 'is required: a time HH:MM (24-hour)');
    else if (typeof v !== 'string' || !(HHMM.test(v) || (key === 'end' && v === '24:00'))) {
      fail(key, key === 'end' ? 'must be a time HH:MM from 00:00 to 24:00' : 'must be a time HH:MM from 00:00 to 23:59');
    } else return v;
    return undefined;
  };
  const start = time('start');
  const end = time('end');
  if (start !== undefined && end !== undefined && minutesOf(start) === minutesOf(end)) {
    // Equal times could mean an empty window or a whole day; 00:00-24:00 says the latter.
    fail('end', 'must differ from start (use start 00:00 and end 24:00 for the whole day)');
  }

  if (issues.length) throw CrmError.validation(issues);
  return {
    timezone: (zone as { zone: string }).zone,
    days: WEEKDAYS.filter((d) => days.has(d)),
    start: start!,
    end: end!,
  };
}

// ---------------------------------------------------------------------------------------------
// Zone arithmetic

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's wall clock at `ms`, read as if it were UTC (so calendar arithmetic is plain UTC). */
function wallClock(zone: string, ms: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The zone's UTC offset at `ms`, in milliseconds (whole seconds: Intl formats seconds). */
function offsetAt(zone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClock(zone, whole) - whole;
}

/**
 * The first instant at which the zone's clock reads `wall` (a wall-clock time written as UTC
 * milliseconds) or later: the first occurrence of an ambiguous time, the end of the gap for a
 * skipped one.
 */
function firstInstantAtOrAfter(zone: string, wall: number): number {
  // The offsets in force a day either side cover both sides of any transition near `wall`.
  const offsets = [...new Set([offsetAt(zone, wall - DAY_MS), offsetAt(zone, wall), offsetAt(zone, wall + DAY_MS)])];
  let best: number | undefined;
  for (const o of offsets) {
    const t = wall - o;
    if (offsetAt(zone, t) === o && (best === undefined || t < best)) best = t;
  }
  if (best !== undefined) return best;
  // Skipped: the clock reads earlier than `wall` at `lo` and later at `hi`; find the jump.
  let lo = wall - Math.max(...offsets);
  let hi = wall - Math.min(...offsets);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (mid + offsetAt(zone, mid) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Weekday of a UTC-written calendar day: 0 = mon .. 6 = sun. */
const weekdayOf = (dayMs: number): number => (new Date(dayMs).getUTCDay() + 6) % 7;

interface Compiled {
  zone: string;
  days: Set<number>;
  start: number;
  end: number;
  crosses: boolean;
}

function compile(schedule: SendingSchedule): Compiled {
  const start = minutesOf(schedule.start);
  const end = minutesOf(schedule.end);
  return {
    zone: schedule.timezone,
    days: new Set(schedule.days.map((d) => WEEKDAYS.indexOf(d))),
    start,
    end,
    crosses: end < start,
  };
}

/** The window opening on the local calendar day `dayMs` (UTC-written midnight), if that day is listed and the window is not empty. */
function windowOn(c: Compiled, dayMs: number): { opens: number; closes: number } | undefined {
  if (!c.days.has(weekdayOf(dayMs))) return undefined;
  const opens = firstInstantAtOrAfter(c.zone, dayMs + c.start * MINUTE_MS);
  const closes = firstInstantAtOrAfter(c.zone, dayMs + (c.crosses ? DAY_MS : 0) + c.end * MINUTE_MS);
  // Empty when a spring-forward gap swallows the whole window (02:00-02:30 in New York).
  return opens < closes ? { opens, closes } : undefined;
}

/** Midnight (UTC-written) of the local calendar day containing `ms`. */
function localDay(zone: string, ms: number): number {
  const wall = wallClock(zone, ms);
  return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
}

// ---------------------------------------------------------------------------------------------
// Queries

/** The window containing `at`, if any. */
export function windowAt(schedule: SendingSchedule, at: Date): ScheduleWindow | undefined {
  const c = compile(schedule);
  const t = at.getTime();
  const today = localDay(c.zone, t);
  // A window crossing midnight opened the day before; the day after is checked for zones whose
  // clock falls back across midnight, where a new day's window can open before `at`'s date.
  for (const day of [today - DAY_MS, today, today + DAY_MS]) {
    const w = windowOn(c, day);
    if (w && w.opens <= t && t < w.closes) return { opens: new Date(w.opens), closes: new Date(w.closes) };
  }
  return undefined;
}

/** Whether `at` is inside one of the schedule's windows. */
export function isWithin(schedule: SendingSchedule, at: Date): boolean {
  return windowAt(schedule, at) !== undefined;
}

/**
 * `at` itself (a new Date with the same time) when it is inside a window, else the instant the
 * next window opens.
 */
export function nextOpening(schedule: SendingSchedule, at: Date): Date {
  const c = compile(schedule);
  const t = at.getTime();
  if (Number.isNaN(t)) throw new RangeError('nextOpening: invalid date');
  const today = localDay(c.zone, t);
  // A listed weekday comes within 7 days; a window emptied by a DST gap adds at most a week.
  for (let k = -1; k <= 15; k++) {
    const w = windowOn(c, today + k * DAY_MS);
    if (!w) continue;
    if (w.opens <= t && t < w.closes) return new Date(t);
    if (w.opens > t) return new Date(w.opens);
  }
  throw new Error(`schedule ${JSON.stringify(schedule)} has no opening within 15 days of ${at.toISOString()}`);
}

/**
 * The first instant of the calendar day `date` (`YYYY-MM-DD`) in `zone`: its midnight, or, where
 * the clock skips midnight (a spring-forward change at 00:00), the instant the day begins.
 */
export function startOfLocalDay(zone: string, date: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`startOfLocalDay: '${date}' is not a YYYY-MM-DD date`);
  return new Date(firstInstantAtOrAfter(zone, Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))));
}
