// Wall-clock time in an IANA time zone, for maintenance windows
// (docs/behaviour.md §3.4d). ECMAScript's Intl carries the zone database
// (Node's full ICU), so core needs no Node API and no library: an instant's
// local date and time come from Intl.DateTimeFormat, and a local time's
// instant is found from the zone's offsets around it. Two rules a clock
// change forces, as the behaviour document states them:
//   - a local time the change skips (spring forward) is taken as the first
//     instant after it — the instant of the change;
//   - a local time the change repeats (fall back) counts once, at its first
//     occurrence.

/** A local calendar date: month 1–12, day 1–31. */
export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** An instant as the zone's clock shows it. */
export interface LocalTime extends LocalDate {
  /** 0 = Monday … 6 = Sunday. */
  readonly weekday: number;
  /** Minutes since local midnight, 0–1439. */
  readonly minuteOfDay: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Far enough either side of a local time to be past any clock change next to it (none is longer than a day). */
const AROUND_MS = DAY_MS;

const WEEKDAYS: Readonly<Record<string, number>> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone, made once: building one costs far more than using it. */
const formatterOf = (zone: string): Intl.DateTimeFormat => {
  const known = formatters.get(zone);
  if (known !== undefined) return known;
  const made = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    weekday: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  formatters.set(zone, made);
  return made;
};

/** Zones every runtime knows and Intl's list leaves out (it lists the canonical names of regions only). */
const ALWAYS_KNOWN: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);

let listed: ReadonlySet<string> | undefined;

/**
 * Whether `zone` names a time zone this runtime knows (an IANA name such as
 * `Europe/Berlin`, or `UTC`). Asked of Intl's list of canonical zones first —
 * a tick that only checks its configuration then loads no zone's rules (a
 * formatter costs ~11 ms and ~8 MiB of ICU data, the list ~1 ms; README,
 * Benchmarks) — and of a formatter for an alias the list leaves out
 * (`Asia/Kolkata`), which Intl answers with a RangeError when it is unknown.
 */
/** An IANA name's shape: `Area/Location`, `UTC`, `Etc/GMT+2` — never a bare offset, which Node 24's Intl takes. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

export const isTimeZone = (zone: string): boolean => {
  if (!IANA_NAME.test(zone)) return false;
  listed ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (listed.has(zone) || ALWAYS_KNOWN.has(zone)) return true;
  try {
    formatterOf(zone);
    return true;
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
};

interface Fields extends LocalTime {
  readonly second: number;
}

const fieldsAt = (zone: string, instantMs: number): Fields => {
  const parts: Record<string, string> = {};
  for (const part of formatterOf(zone).formatToParts(instantMs)) parts[part.type] = part.value;
  const number = (type: string): number => Number(parts[type]);
  return {
    year: number('year'),
    month: number('month'),
    day: number('day'),
    weekday: WEEKDAYS[parts.weekday ?? ''] ?? Number.NaN,
    minuteOfDay: number('hour') * 60 + number('minute'),
    second: number('second'),
  };
};

/** The zone's clock at `instantMs`, to the minute. */
export const localTimeAt = (zone: string, instantMs: number): LocalTime => {
  const { second: _second, ...local } = fieldsAt(zone, instantMs);
  return local;
};

/** The zone's offset from UTC at `instantMs` (its clock minus UTC), to the second. */
const offsetAt = (zone: string, instantMs: number): number => {
  const f = fieldsAt(zone, instantMs);
  const wall = Date.UTC(f.year, f.month - 1, f.day, 0, f.minuteOfDay, f.second);
  return wall - Math.floor(instantMs / 1_000) * 1_000;
};

/** The local date `days` after `date` (negative: before), by the calendar. */
export const addDays = (date: LocalDate, days: number): LocalDate => {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
};

/** 0 = Monday … 6 = Sunday, of a calendar date (zone-free). */
export const weekdayOf = (date: LocalDate): number =>
  (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;

/**
 * The instant the zone's clock shows `minuteOfDay` on `date` (1440 is the next
 * midnight). Repeated by a clock change: the first occurrence. Skipped by one:
 * the instant of the change, the first after the skipped time.
 */
export const instantOf = (zone: string, date: LocalDate, minuteOfDay: number): number => {
  const wall = Date.UTC(date.year, date.month - 1, date.day, 0, minuteOfDay);
  const before = offsetAt(zone, wall - AROUND_MS);
  const after = offsetAt(zone, wall + AROUND_MS);
  const shows = (instant: number, offset: number) => offsetAt(zone, instant) === offset;
  const candidates = [wall - before, wall - after].filter((instant, i) => shows(instant, i === 0 ? before : after));
  if (candidates.length > 0) return Math.min(...candidates);
  // Skipped: between the instant that would show it at the old offset and the
  // one at the new, the change happens; find it to the minute.
  let low = wall - after;
  let high = wall - before;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (offsetAt(zone, middle) === after) high = middle;
    else low = middle;
  }
  return high;
};
