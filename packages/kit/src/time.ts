/**
 * Date-times as the API speaks them: RFC 3339 with an explicit offset on input (a bare local time is
 * ambiguous, so it is refused), UTC with milliseconds on output.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The instants every store can hold: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. Postgres
 * has no year 0 and JavaScript would write year 10000 (reached through an offset, as in
 * 9999-12-31T23:00:00-05:00) as "+010000", which neither Postgres nor an RFC 3339 reader takes.
 */
export const EARLIEST_DATE_TIME = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_DATE_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Parses an RFC 3339 date-time with offset; undefined when it is not one, not a real date, or
 * outside the years 0001 to 9999 once in UTC.
 */
export function parseDateTime(value: string): Date | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(value.replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return undefined;
  // Date accepts 2026-02-30 by rolling over; a calendar-invalid input is refused instead.
  const offsetFree = new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!));
  if (offsetFree.getUTCDate() !== +d! || offsetFree.getUTCMonth() !== +mo! - 1 || +h! > 23 || +mi! > 59 || +s! > 59) {
    return undefined;
  }
  if (date.getTime() < EARLIEST_DATE_TIME || date.getTime() > LATEST_DATE_TIME) return undefined;
  return date;
}
