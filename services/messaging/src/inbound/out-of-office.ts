import * as chrono from 'chrono-node';

/**
 * The day an out-of-office reply says its sender is back (gateway/README.md, Flows, "Out of
 * office"), read with chrono-node in English, French, German and Spanish against the reply's own
 * Date. Flows decides what to do with it; this only reads.
 *
 * Each date chrono finds in the reply's own words is read by the words around it:
 * - after an "until" word (until, till, through, after; jusqu'au, après le; bis, nach dem; hasta,
 *   después del) or ending a range ("1 to 15 July", "du 1er au 15 juillet", "vom 1. bis 15. Juli",
 *   "del 1 al 15 de julio"): the person is back the day after it;
 * - after a "back" word (back, returning, resume; de retour, retour, à partir du, dès; zurück,
 *   wieder, ab; de vuelta, regreso, vuelvo, a partir del), or, in German, before "wieder" or
 *   "zurück" ("am 21. Juli wieder im Büro"): the person is back that day;
 * - any other date (a deadline, a colleague's days, "before Friday") says nothing about the
 *   return and is ignored.
 * Of the dates that read as a return, the latest wins: "away until the 18th, back in the office on
 * the 21st" is the 21st, and "from 1 July until 15 July" the 16th, whatever the order of the words.
 * A date before the reply's own day is stale (an auto-reply nobody updated) and a return more than
 * `maxDays` (90) after it is not believable: neither is read, and the caller falls back to its
 * default. A year left out is the first on or after the reply's day.
 *
 * Numeric dates are day first (15/07, 15.07.), except in English when the reply's Date is in the
 * Americas' offsets (-03:00 to -10:00), where 07/15 is month first. Other languages, and text
 * with no date that reads as a return, read nothing.
 */

export interface ReturnDate {
  /** YYYY-MM-DD: the first day the person is back. */
  returnsOn: string;
  /** The words it was read from, as written ("until Monday, July 14"); at most 200 characters. */
  phrase: string;
}

export interface ReturnDateOptions {
  /** The reply's own Date: relative dates ("next Monday") count from it. */
  reference: Date;
  /** The UTC offset of the reply's Date header, in minutes: whose calendar "today" is. */
  utcOffsetMinutes: number;
  /** A return further than this many days after the reply is not believed (default 90). */
  maxDays?: number;
}

export const OUT_OF_OFFICE_MAX_DAYS = 90;
/** Long signatures and legal footers add nothing; chrono's cost grows with the text. */
const MAX_TEXT = 4_000;
const DAY_MS = 86_400_000;

type Reading = 'until' | 'back';

interface Language {
  parser(): chrono.Chrono;
  /** Matched against the words before a date, up to it: an "until" reading. */
  until: RegExp;
  /** Matched against the words before a date, up to it: a "back" reading. */
  back: RegExp;
  /** Matched against the words after a date, from it: a "back" reading (German puts "wieder" after). */
  backAfter?: RegExp;
  /** The words joining a range's two dates, between them. */
  rangeJoin: RegExp;
  /** Rewrites forms chrono does not read (or reads otherwise) into ones it reads as meant. */
  normalize?(text: string, utcOffsetMinutes: number): string;
}

// Words end where letters do: `\b` knows no accented letter.
const W = '(?<![\\p{L}\\p{N}])';
const words = (n: number) => `(?:[\\s,]+[\\p{L}'’.]+){0,${n}}`;
const cue = (alternatives: string, tail: string) => new RegExp(`${W}(?:${alternatives})${tail}[\\s,]*$`, 'iu');
/** A date that bounds something else ("before Friday"), never a return. */
const BEFORE = new RegExp(`${W}(?:before|prior\\s+to|avant|vor|antes\\s+del?)(?:\\s+(?:the|le|la|dem|den|el))?\\s*$`, 'iu');

const validDayMonth = (d: string, m: string) => Number(m) >= 1 && Number(m) <= 12 && Number(d) >= 1 && Number(d) <= 31;
const ENGLISH_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const GERMAN_MONTHS = ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'];

const LANGUAGES: Language[] = [
  {
    parser: () => chrono.en.casual,
    until: cue('until|till|til|through|thru|up\\s+to(?:\\s+and\\s+including)?|after', '(?:\\s+(?:and\\s+including|the|end\\s+of))*'),
    back: cue('back|return|returns|returning|resume|resumes|resuming|available\\s+again|reachable\\s+again', words(4)),
    rangeJoin: /^\s*(?:to|-|–|—)\s*$/iu,
    // chrono's English reads 07/08 month first. Day first is what most of the world writes; month
    // first only for the Date of an American sender. Rewritten with the month's name, chrono reads
    // it as meant (its day-first configuration also stops reading "Friday, July 10").
    normalize: (text, offset) =>
      offset <= -180 && offset >= -600
        ? text
        : text.replace(/(?<![\d/.])(\d{1,2})\/(\d{1,2})(\/\d{4}|\/\d{2})?(?![\d/])/g, (whole, d: string, m: string, y: string | undefined) =>
            validDayMonth(d, m) ? `${Number(d)} ${ENGLISH_MONTHS[Number(m) - 1]}${y ? ` ${y.length === 3 ? `20${y.slice(1)}` : y.slice(1)}` : ''}` : whole,
          ),
  },
  {
    parser: () => chrono.fr.casual,
    until: cue("jusqu['’]\\s*(?:au|aux|à|a)|après", "(?:\\s+(?:le|la|l['’]|inclus))*"),
    back: cue(
      'de\\s+retour|retour|reviens|reviendrai|rentre|rentrerai|reprends|reprendrai|à\\s+partir\\s+d[ue]|a\\s+partir\\s+d[ue]|dès|(?:à|de)\\s+nouveau\\s+(?:disponible|joignable)',
      words(4),
    ),
    rangeJoin: /^\s*(?:au|à|a|-|–|—)\s*$/iu,
  },
  {
    parser: () => chrono.de.casual,
    until: cue(
      'bis|nach',
      '(?:\\s+(?:einschließlich|einschl\\.|inklusive|inkl\\.|zum|zur|am|den|dem|kommenden|kommendem|nächsten|nächstem))*',
    ),
    back: cue('zurück|wieder|ab|Rückkehr', words(3)),
    backAfter: /^[\s,]*(?:[\p{L}]+\s+){0,3}?(?:wieder|zurück)(?![\p{L}])/iu,
    rangeJoin: /^\s*(?:bis|-|–|—)\s*$/iu,
    // "18.07." (no year) is how German writes a date in a sentence; chrono reads "18. Juli".
    normalize: (text) =>
      text.replace(/(?<![\d.])(\d{1,2})\.(\d{1,2})\.(?!\d)/g, (whole, d: string, m: string) =>
        validDayMonth(d, m) ? `${Number(d)}. ${GERMAN_MONTHS[Number(m) - 1]} ` : whole,
      ),
  },
  {
    parser: () => chrono.es.casual,
    until: cue('hasta|después\\s+del?|despues\\s+del?', '(?:\\s+(?:el|la|día|dia|inclusive))*'),
    back: cue(
      'de\\s+vuelta|vuelta|de\\s+regreso|regreso|regresaré|regresare|regresa|vuelvo|volveré|volvere|reincorporo|reincorporaré|reincorporare|partir\\s+del?|nuevo\\s+disponible',
      words(4),
    ),
    rangeJoin: /^\s*(?:al|a|hasta|-|–|—)\s*$/iu,
    // "del 1 al 15 de julio": chrono takes "del 1 al 15" for something else; the month is given to both days.
    normalize: (text) =>
      text.replace(/(?<![\p{L}])(del?\s+)(\d{1,2})(\s+al?\s+)(\d{1,2})(\s+de\s+)(\p{L}+)/giu, '$1$2$5$6$3$4$5$6'),
  },
];

interface Candidate {
  /** Days since 1970-01-01 of the date named, in the reply's calendar. */
  named: number;
  reading: Reading;
  phrase: string;
}

/** The day the person is back, or undefined when the text names none that can be trusted. */
export function readReturnDate(text: string, options: ReturnDateOptions): ReturnDate | undefined {
  const offset = Number.isFinite(options.utcOffsetMinutes) ? options.utcOffsetMinutes : 0;
  const maxDays = options.maxDays ?? OUT_OF_OFFICE_MAX_DAYS;
  const today = Math.floor((options.reference.getTime() + offset * 60_000) / DAY_MS);
  const candidates: Candidate[] = [];
  for (const language of LANGUAGES) {
    const source = (language.normalize ? language.normalize(text.slice(0, MAX_TEXT), offset) : text.slice(0, MAX_TEXT));
    candidates.push(...read(language, source, options.reference, offset, today));
  }
  let best: { back: number; phrase: string } | undefined;
  for (const c of candidates) {
    if (c.named < today) continue;
    const back = c.reading === 'until' ? c.named + 1 : c.named;
    if (back > today + maxDays) continue;
    if (!best || back > best.back) best = { back, phrase: c.phrase };
  }
  return best && { returnsOn: new Date(best.back * DAY_MS).toISOString().slice(0, 10), phrase: best.phrase };
}

function read(language: Language, text: string, reference: Date, offset: number, today: number): Candidate[] {
  const results = language.parser().parse(text, { instant: reference, timezone: offset }, { forwardDate: true });
  const out: Candidate[] = [];
  results.forEach((result, i) => {
    const previousEnd = i > 0 ? results[i - 1]!.index + results[i - 1]!.text.length : 0;
    const nextStart = i + 1 < results.length ? results[i + 1]!.index : text.length;
    // The words that belong to this date: back to the previous date, forward to the next.
    const before = text.slice(Math.max(previousEnd, result.index - 80), result.index);
    const after = text.slice(result.index + result.text.length, Math.min(nextStart, result.index + result.text.length + 60));
    // chrono marks a range's end day uncertain when the range reads "from 1 July to 15 July".
    const end = result.end ? dayOf(result.end, today, true) : undefined;
    const start = dayOf(result.start, today);
    const cite = (from: number) => text.slice(from, result.index + result.text.length).replace(/\s+/g, ' ').trim().slice(0, 200);

    if (end !== undefined) {
      // A range: away until its last day.
      out.push({ named: end, reading: 'until', phrase: cite(result.index) });
      return;
    }
    if (start === undefined || BEFORE.test(before)) return;
    if (i > 0 && language.rangeJoin.test(text.slice(previousEnd, result.index))) {
      // The second date of a range chrono read as two dates.
      out.push({ named: start, reading: 'until', phrase: cite(results[i - 1]!.index) });
      return;
    }
    // The nearer cue decides: "back after the 14th" is an "until".
    const until = language.until.exec(before);
    const back = language.back.exec(before);
    if (until && (!back || until.index >= back.index)) {
      out.push({ named: start, reading: 'until', phrase: cite(result.index - before.length + until.index) });
    } else if (back) {
      out.push({ named: start, reading: 'back', phrase: cite(result.index - before.length + back.index) });
    } else if (language.backAfter) {
      const following = language.backAfter.exec(after);
      if (following) {
        const phrase = text.slice(result.index, result.index + result.text.length + following[0].length).replace(/\s+/g, ' ').trim();
        out.push({ named: start, reading: 'back', phrase: phrase.slice(0, 200) });
      }
    }
  });
  return out;
}

/**
 * The calendar day a parsed date names (days since 1970-01-01), or undefined when it names none
 * (a time alone, a month alone). A day and month without a year take the first year that puts
 * them on or after `today`: chrono's own forward guess moves a range's end with its start.
 */
function dayOf(components: chrono.ParsedComponents, today: number, rangeEnd = false): number | undefined {
  const named = components.isCertain('day') || components.isCertain('weekday') || (rangeEnd && components.isCertain('month'));
  if (!named) return undefined;
  const year = components.get('year');
  const month = components.get('month');
  const day = components.get('day');
  if (year === null || month === null || day === null) return undefined;
  if (components.isCertain('month') && !components.isCertain('year')) {
    const first = new Date(today * DAY_MS).getUTCFullYear();
    for (const y of [first, first + 1]) {
      const candidate = Date.UTC(y, month - 1, day) / DAY_MS;
      if (candidate >= today) return candidate;
    }
  }
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

// RFC 5322 4.3's obsolete zones, as old mailers still write them.
const NAMED_ZONES: Record<string, number> = { UT: 0, UTC: 0, GMT: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 };

/** The UTC offset (minutes) a Date header is written in: `+0200`, `-0800`, `GMT`, `EST`; 0 when it names none. */
export function utcOffsetOfDate(value: string): number {
  const withoutComment = value.replace(/\([^)]*\)/g, ' ').trim();
  const numeric = /([+-])(\d{2}):?(\d{2})\s*$/.exec(withoutComment);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    return minutes <= 14 * 60 ? (numeric[1] === '-' ? -minutes : minutes) : 0;
  }
  const named = /([A-Za-z]{1,3})\s*$/.exec(withoutComment)?.[1]?.toUpperCase();
  return (named && NAMED_ZONES[named]) || 0;
}

/** The raw Date header of a message (its header block only), unfolded; undefined when it has none. */
export function dateHeaderOf(raw: Buffer): string | undefined {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  const block = (end < 0 ? head : head.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  return /^date:[ \t]*(.*)$/im.exec(block)?.[1]?.trim() || undefined;
}
