import { CrmError, type FieldIssue } from '@crm/kit';
import fc from 'fast-check';
import { type SendingSchedule, WEEKDAYS, type Weekday, isWithin, nextOpening, parseSchedule, startOfLocalDay, windowAt } from './sending-schedule';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function issuesOf(value: unknown): FieldIssue[] {
  try {
    parseSchedule(value);
  } catch (error) {
    expect(error).toBeInstanceOf(CrmError);
    return (error as CrmError).details as FieldIssue[];
  }
  throw new Error('schedule was accepted');
}

const weekdays: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];
const schedule = (timezone: string, start: string, end: string, days: Weekday[] = [...WEEKDAYS]): SendingSchedule =>
  parseSchedule({ timezone, days, start, end });
const iso = (d: Date) => d.toISOString();
const at = (s: string) => new Date(s);

describe('parseSchedule', () => {
  test('normalizes days to mon..sun order and keeps the zone', () => {
    expect(parseSchedule({ timezone: 'Asia/Kolkata', days: ['fri', 'mon'], start: '09:00', end: '17:30' })).toEqual({
      timezone: 'Asia/Kolkata',
      days: ['mon', 'fri'],
      start: '09:00',
      end: '17:30',
    });
  });

  test('zone names: IANA names and links, case corrected; abbreviations and offsets refused', () => {
    const zone = (timezone: string) => parseSchedule({ timezone, days: ['mon'], start: '09:00', end: '10:00' }).timezone;
    expect(zone('america/new_york')).toBe('America/New_York');
    expect(zone('US/Eastern')).toBe('US/Eastern');
    expect(zone('utc')).toBe('UTC');
    expect(zone('Australia/Lord_Howe')).toBe('Australia/Lord_Howe');
    const refused = (timezone: unknown) => issuesOf({ timezone, days: ['mon'], start: '09:00', end: '10:00' });
    expect(refused('Mars/Olympus_Mons')).toEqual([{ field: 'schedule.timezone', message: "'Mars/Olympus_Mons' is not a known IANA time zone" }]);
    for (const bad of ['EST', '+05:00', 'GMT+2', 'Local', '', 'Europe/../etc']) {
      expect(refused(bad)).toEqual([{ field: 'schedule.timezone', message: expect.stringMatching(/not (a known )?(an )?IANA time zone/) }]);
    }
    expect(refused(undefined)).toEqual([{ field: 'schedule.timezone', message: 'is required: an IANA time zone such as Europe/London' }]);
    expect(refused(5)).toEqual([{ field: 'schedule.timezone', message: 'must be an IANA time zone name such as Europe/London' }]);
  });

  test('each bad part is named', () => {
    expect(issuesOf({ timezone: 'UTC', days: ['mon', 'Tue', 'mon', 3], start: '9:00', end: '24:01', extra: 1 })).toEqual([
      { field: 'schedule.extra', message: 'is not part of a schedule (timezone, days, start, end)' },
      { field: 'schedule.days[1]', message: 'must be one of mon, tue, wed, thu, fri, sat, sun' },
      { field: 'schedule.days[2]', message: "'mon' is listed twice" },
      { field: 'schedule.days[3]', message: 'must be one of mon, tue, wed, thu, fri, sat, sun' },
      { field: 'schedule.start', message: 'must be a time HH:MM from 00:00 to 23:59' },
      { field: 'schedule.end', message: 'must be a time HH:MM from 00:00 to 24:00' },
    ]);
    expect(issuesOf({ timezone: 'UTC', days: [], start: '24:00', end: '09:00' })).toEqual([
      { field: 'schedule.days', message: 'must be a non-empty list of mon, tue, wed, thu, fri, sat, sun' },
      { field: 'schedule.start', message: 'must be a time HH:MM from 00:00 to 23:59' },
    ]);
    expect(issuesOf({ timezone: 'UTC', days: ['mon'], start: '09:00', end: '09:00' })).toEqual([
      { field: 'schedule.end', message: 'must differ from start (use start 00:00 and end 24:00 for the whole day)' },
    ]);
    expect(issuesOf({})).toEqual([
      { field: 'schedule.timezone', message: 'is required: an IANA time zone such as Europe/London' },
      { field: 'schedule.days', message: 'is required: a list of mon, tue, wed, thu, fri, sat, sun' },
      { field: 'schedule.start', message: 'is required: a time HH:MM (24-hour)' },
      { field: 'schedule.end', message: 'is required: a time HH:MM (24-hour)' },
    ]);
    expect(issuesOf([])).toEqual([{ field: 'schedule', message: 'must be an object {timezone, days, start, end}' }]);
    expect(() => parseSchedule(null, 'body.schedule')).toThrow('body.schedule: must be an object');
  });
});

describe('nextOpening and isWithin: examples', () => {
  test('business hours in Kolkata (UTC+05:30, no DST)', () => {
    const s = schedule('Asia/Kolkata', '09:00', '17:00', weekdays);
    // Saturday noon IST → Monday 09:00 IST.
    expect(iso(nextOpening(s, at('2026-05-16T06:30:00Z')))).toBe('2026-05-18T03:30:00.000Z');
    const inside = at('2026-05-18T11:29:59.999Z');
    expect(nextOpening(s, inside)).toEqual(inside);
    expect(nextOpening(s, inside)).not.toBe(inside);
    // The end is exclusive.
    expect(isWithin(s, at('2026-05-18T11:30:00Z'))).toBe(false);
    expect(iso(nextOpening(s, at('2026-05-18T11:30:00Z')))).toBe('2026-05-19T03:30:00.000Z');
    expect(windowAt(s, inside)).toEqual({ opens: at('2026-05-18T03:30:00Z'), closes: at('2026-05-18T11:30:00Z') });
  });

  test('New York spring forward (2026-03-08): a start inside the skipped hour opens at 03:00 EDT', () => {
    const s = schedule('America/New_York', '02:30', '05:00', ['sun']);
    expect(iso(nextOpening(s, at('2026-03-08T06:00:00Z')))).toBe('2026-03-08T07:00:00.000Z'); // 01:00 EST → 03:00 EDT
    expect(windowAt(s, at('2026-03-08T07:00:00Z'))).toEqual({ opens: at('2026-03-08T07:00:00Z'), closes: at('2026-03-08T09:00:00Z') });
    // The Sunday before and after open at 02:30 local as usual.
    expect(iso(nextOpening(s, at('2026-03-01T00:00:00Z')))).toBe('2026-03-01T07:30:00.000Z');
    expect(iso(nextOpening(s, at('2026-03-08T09:00:00Z')))).toBe('2026-03-15T06:30:00.000Z');
  });

  test('an end inside the skipped hour closes at the jump: nothing goes out at 03:xx local', () => {
    const s = schedule('America/New_York', '01:30', '02:15', ['sun']);
    expect(windowAt(s, at('2026-03-08T06:59:59Z'))).toEqual({ opens: at('2026-03-08T06:30:00Z'), closes: at('2026-03-08T07:00:00Z') });
    // 07:00Z is 03:00 EDT; reading 02:15 with the winter offset would have kept it open until 03:15.
    expect(isWithin(s, at('2026-03-08T07:00:00Z'))).toBe(false);
    expect(iso(nextOpening(s, at('2026-03-08T07:10:00Z')))).toBe('2026-03-15T05:30:00.000Z');
  });

  test('a window swallowed by the skipped hour does not open that day', () => {
    const s = schedule('America/New_York', '02:00', '02:30', ['sun']);
    expect(iso(nextOpening(s, at('2026-03-08T05:00:00Z')))).toBe('2026-03-15T06:00:00.000Z');
    expect(isWithin(s, at('2026-03-08T07:00:00Z'))).toBe(false);
  });

  test('New York fall back (2026-11-01): an ambiguous start takes the first 01:30; the window spans the repeated hour', () => {
    const s = schedule('America/New_York', '01:30', '03:00', ['sun']);
    expect(iso(nextOpening(s, at('2026-11-01T04:00:00Z')))).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(isWithin(s, at('2026-11-01T06:15:00Z'))).toBe(true); // 01:15 EST, the second pass
    expect(windowAt(s, at('2026-11-01T06:15:00Z'))).toEqual({ opens: at('2026-11-01T05:30:00Z'), closes: at('2026-11-01T08:00:00Z') });
  });

  test('an ambiguous end also takes the first occurrence, so the second pass is outside', () => {
    const s = schedule('America/New_York', '00:00', '01:30', ['sun']);
    expect(isWithin(s, at('2026-11-01T05:29:00Z'))).toBe(true); // 01:29 EDT
    expect(isWithin(s, at('2026-11-01T06:15:00Z'))).toBe(false); // 01:15 EST
    expect(iso(nextOpening(s, at('2026-11-01T06:15:00Z')))).toBe('2026-11-08T05:00:00.000Z');
  });

  test('London spring forward (2026-03-29): 01:30 does not exist, the window opens at 02:00 BST', () => {
    const s = schedule('Europe/London', '01:30', '09:00', ['sun']);
    expect(iso(nextOpening(s, at('2026-03-29T00:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
  });

  test('Lord Howe moves by 30 minutes: 02:10 opens at 02:30 in October, 01:45 is its first pass in April', () => {
    const october = schedule('Australia/Lord_Howe', '02:10', '04:00', ['sun']);
    expect(iso(nextOpening(october, at('2026-10-03T14:00:00Z')))).toBe('2026-10-03T15:30:00.000Z'); // 02:30 +11:00
    const april = schedule('Australia/Lord_Howe', '01:45', '03:00', ['sun']);
    expect(iso(nextOpening(april, at('2026-04-04T13:00:00Z')))).toBe('2026-04-04T14:45:00.000Z'); // 01:45 +11:00
    expect(windowAt(april, at('2026-04-04T15:20:00Z'))).toEqual({ opens: at('2026-04-04T14:45:00Z'), closes: at('2026-04-04T16:30:00Z') });
  });

  test('a window crossing midnight belongs to the day it opens', () => {
    const s = schedule('Europe/London', '22:00', '02:00', ['fri']);
    expect(isWithin(s, at('2026-05-15T21:00:00Z'))).toBe(true); // Fri 22:00 BST
    expect(isWithin(s, at('2026-05-16T00:59:00Z'))).toBe(true); // Sat 01:59 BST
    expect(isWithin(s, at('2026-05-16T01:00:00Z'))).toBe(false); // Sat 02:00 BST
    expect(iso(nextOpening(s, at('2026-05-16T01:00:00Z')))).toBe('2026-05-22T21:00:00.000Z');
    // Thursday 23:00 is not in Friday's window.
    expect(isWithin(s, at('2026-05-14T22:00:00Z'))).toBe(false);
  });

  test('00:00 to 24:00 on every day is always open, across DST', () => {
    const s = schedule('America/New_York', '00:00', '24:00');
    for (const t of ['2026-03-08T06:59:59Z', '2026-03-08T07:00:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z', '2026-12-31T23:59:59Z']) {
      expect(isWithin(s, at(t))).toBe(true);
    }
  });

  test('an invalid date is refused', () => {
    expect(() => nextOpening(schedule('UTC', '09:00', '10:00'), new Date(Number.NaN))).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------
// An independent oracle: the schedule's windows found by reading the zone's clock minute by minute.
// A window of local day D opens at the first minute whose local time is at or past (D, start) and
// closes at the first minute at or past (D, end) (the next day when it crosses midnight).

const oracleFormats = new Map<string, Intl.DateTimeFormat>();
const oracleOffsets = new Map<string, Map<number, number>>();

/** Offset in minutes at `ms`, read from formatted text (another Intl path than the module's parts). */
function offsetMinutes(zone: string, ms: number): number {
  let format = oracleFormats.get(zone);
  if (!format) {
    const options = { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' } as const;
    oracleFormats.set(zone, (format = new Intl.DateTimeFormat('sv-SE', options)));
  }
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(format.format(ms))!; // "2026-03-08 03:00:00"
  return (Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) - ms) / MINUTE;
}

/** Local wall clock in minutes since the epoch at the minute `ms`, cached per quarter hour. */
function wallMinutes(zone: string, ms: number): number {
  let cache = oracleOffsets.get(zone);
  if (!cache) oracleOffsets.set(zone, (cache = new Map()));
  const bucket = Math.floor(ms / (15 * MINUTE));
  let offset = cache.get(bucket);
  if (offset === undefined) {
    const first = offsetMinutes(zone, bucket * 15 * MINUTE);
    // Offsets change on quarter hours in 2026; a bucket with a change is read minute by minute.
    offset = first === offsetMinutes(zone, (bucket * 15 + 14) * MINUTE) ? first : Number.NaN;
    cache.set(bucket, offset);
  }
  return ms / MINUTE + (Number.isNaN(offset) ? offsetMinutes(zone, ms) : offset);
}

const minutesOf = (hhmm: string) => (hhmm === '24:00' ? 1440 : Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)));

function oracleWindows(s: SendingSchedule, from: number, to: number): { opens: number; closes: number }[] {
  const first = Math.floor(from / MINUTE) * MINUTE;
  const times: number[] = [];
  const walls: number[] = [];
  for (let t = first; t <= to; t += MINUTE) {
    times.push(t);
    walls.push(wallMinutes(s.timezone, t));
  }
  const start = minutesOf(s.start);
  const end = minutesOf(s.end);
  const crosses = end < start;
  const days = new Set(s.days.map((d) => WEEKDAYS.indexOf(d)));
  const windows: { opens: number; closes: number }[] = [];
  let i = 0;
  const firstAtOrPast = (target: number): number | undefined => {
    while (i < walls.length && walls[i]! < target) i++;
    return i < walls.length ? times[i] : undefined;
  };
  // The first local day is partial: skip it so no window is taken to open at the scan's start.
  const firstDay = Math.floor(walls[0]! / 1440) + 1;
  const lastDay = Math.floor(walls[walls.length - 1]! / 1440) - 1;
  for (let day = firstDay; day <= lastDay; day++) {
    const weekday = (new Date(day * DAY).getUTCDay() + 6) % 7;
    if (!days.has(weekday)) continue;
    // Targets only grow (a window closes before the next one's start), so one pointer serves.
    const opens = firstAtOrPast(day * 1440 + start);
    const closes = firstAtOrPast((day + (crosses ? 1 : 0)) * 1440 + end);
    if (opens !== undefined && closes !== undefined && opens < closes) windows.push({ opens, closes });
  }
  return windows;
}

function oracleNext(s: SendingSchedule, t: number): { inside: boolean; next: number } {
  // A week and a day holds the next opening unless a DST gap emptied a window: then look further.
  for (const horizon of [9 * DAY, 17 * DAY]) {
    const windows = oracleWindows(s, t - 2 * DAY, t + horizon);
    if (windows.some((w) => w.opens <= t && t < w.closes)) return { inside: true, next: t };
    const later = windows.filter((w) => w.opens > t).map((w) => w.opens);
    if (later.length) return { inside: false, next: Math.min(...later) };
  }
  throw new Error('the oracle found no opening');
}

/** Instants in 2026 at which the zone's offset changes, found hour by hour then minute by minute. */
function transitions2026(zone: string): number[] {
  const found: number[] = [];
  for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += HOUR) {
    if (offsetMinutes(zone, t) === offsetMinutes(zone, t + HOUR)) continue;
    let m = t;
    while (offsetMinutes(zone, m + MINUTE) === offsetMinutes(zone, t)) m += MINUTE;
    found.push(m + MINUTE);
  }
  return found;
}

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata'] as const;
const TRANSITIONS = Object.fromEntries(ZONES.map((z) => [z, transitions2026(z)])) as Record<(typeof ZONES)[number], number[]>;

describe('startOfLocalDay', () => {
  test("a day's midnight in the zone, daylight saving included", () => {
    expect(startOfLocalDay('Europe/Paris', '2026-07-20').toISOString()).toBe('2026-07-19T22:00:00.000Z');
    expect(startOfLocalDay('Europe/Paris', '2026-12-20').toISOString()).toBe('2026-12-19T23:00:00.000Z');
    expect(startOfLocalDay('America/New_York', '2026-03-08').toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(startOfLocalDay('UTC', '2026-07-20').toISOString()).toBe('2026-07-20T00:00:00.000Z');
  });

  test('where the clock skips midnight, the day begins when it resumes (Santiago, 2026-09-06: 00:00 is 01:00)', () => {
    expect(startOfLocalDay('America/Santiago', '2026-09-06').toISOString()).toBe('2026-09-06T04:00:00.000Z');
  });

  test('refuses what is not a date', () => {
    expect(() => startOfLocalDay('UTC', '20 July')).toThrow(RangeError);
  });
});

describe('the oracle', () => {
  test('finds the 2026 transitions of each zone', () => {
    const isoList = (zone: (typeof ZONES)[number]) => TRANSITIONS[zone].map((t) => new Date(t).toISOString());
    expect(isoList('America/New_York')).toEqual(['2026-03-08T07:00:00.000Z', '2026-11-01T06:00:00.000Z']);
    expect(isoList('Europe/London')).toEqual(['2026-03-29T01:00:00.000Z', '2026-10-25T01:00:00.000Z']);
    expect(isoList('Australia/Lord_Howe')).toEqual(['2026-04-04T15:00:00.000Z', '2026-10-03T15:30:00.000Z']);
    expect(isoList('Asia/Kolkata')).toEqual([]);
  });

  test('agrees with the examples above', () => {
    const s = schedule('America/New_York', '02:30', '05:00', ['sun']);
    expect(new Date(oracleNext(s, Date.parse('2026-03-08T06:00:00Z')).next).toISOString()).toBe('2026-03-08T07:00:00.000Z');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
/** Times of day, biased towards the small hours where DST changes happen. */
const timeOfDay = fc.oneof(
  fc.integer({ min: 0, max: 1439 }),
  fc.integer({ min: 0, max: 200 }),
  fc.constantFrom(0, 60, 90, 105, 120, 130, 150, 180, 1380),
);
const scheduleIn = (zone: string) =>
  fc
    .record({
      days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
      start: timeOfDay,
      end: fc.oneof(timeOfDay, fc.constant(1440)),
    })
    .filter(({ start, end }) => start !== end)
    .map(({ days, start, end }) => parseSchedule({ timezone: zone, days, start: hhmm(start), end: hhmm(end) }));
/** Instants in 2026: anywhere, near a transition, or on a minute boundary near one. */
const instantIn = (zone: (typeof ZONES)[number]) => {
  const anywhere = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 11, 31) });
  const near = TRANSITIONS[zone].length
    ? [
        fc.tuple(fc.constantFrom(...TRANSITIONS[zone]), fc.integer({ min: -3 * DAY, max: 3 * DAY })).map(([t, d]) => t + d),
        fc.tuple(fc.constantFrom(...TRANSITIONS[zone]), fc.integer({ min: -36 * 60, max: 36 * 60 })).map(([t, m]) => t + m * MINUTE),
      ]
    : [];
  return fc.oneof(anywhere, ...near);
};

describe.each(ZONES)('properties in %s', (zone) => {
  test('nextOpening is at or after `at`, inside a window, and no window opens in between', () => {
    fc.assert(
      fc.property(scheduleIn(zone), instantIn(zone), (s, t) => {
        const result = nextOpening(s, new Date(t)).getTime();
        expect(result).toBeGreaterThanOrEqual(t);
        expect(isWithin(s, new Date(result))).toBe(true);
        const expected = oracleNext(s, t);
        expect(new Date(result).toISOString()).toBe(new Date(expected.next).toISOString());
        expect(isWithin(s, new Date(t))).toBe(expected.inside);
        // The minute before an opening is outside (it is the first instant, not just an instant).
        if (result > t) expect(isWithin(s, new Date(result - 1))).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

describe('DST days of 2026, minute by minute', () => {
  const cases = (['America/New_York', 'Europe/London', 'Australia/Lord_Howe'] as const).flatMap((zone) =>
    TRANSITIONS[zone].map((t) => [zone, new Date(t).toISOString()] as const),
  );
  test.each(cases)('%s around %s agrees with the oracle at every minute', (zone, transition) => {
    const t0 = Date.parse(transition);
    for (const s of [schedule(zone, '01:30', '02:15'), schedule(zone, '23:00', '02:40')]) {
      const windows = oracleWindows(s, t0 - 3 * DAY, t0 + 10 * DAY);
      for (let t = t0 - 14 * HOUR; t <= t0 + 14 * HOUR; t += MINUTE) {
        const inside = windows.some((w) => w.opens <= t && t < w.closes);
        const next = inside ? t : Math.min(...windows.filter((w) => w.opens > t).map((w) => w.opens));
        const got = nextOpening(s, new Date(t)).getTime();
        if (got !== next) throw new Error(`${zone} ${s.start}-${s.end} at ${new Date(t).toISOString()}: got ${new Date(got).toISOString()}, want ${new Date(next).toISOString()}`);
      }
    }
  });
});
