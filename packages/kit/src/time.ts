/**
 * Date-times as the API speaks them: RFC 3339 with an explicit offset on input (a bare local time is
 * ambiguous, so it is refused), UTC with milliseconds on output.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 date-time with offset; undefined when it is not one (or not a real date). */
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
  return date;
}

export const toIso = (value: Date | string | number): string => new Date(value).toISOString();
