import { isTimeZone } from './zoned-time.js';

// MAINTENANCE_WINDOW's grammar (docs/behaviour.md §3.4d): one or more
// windows, `;`-separated, each `<days> <HH:MM>-<HH:MM> <zone>`:
//   Mon-Fri 01:00-04:00 Europe/Berlin; Sat,Sun 00:00-06:00 Europe/Berlin
// Days are Mon…Sun (any case), listed with `,` and ranged with `-` (a range
// may wrap: Fri-Mon); times are 24-hour, 00:00 to 23:59, and an end of 24:00
// is the next midnight; an end not after the start crosses midnight (the days
// name the day the window opens); the zone is an IANA name. A trailing `;` is
// allowed; an empty window elsewhere is a mistake.

/** One window as written, parsed. */
export interface MaintenanceWindow {
  /** The window as the operator wrote it, for lines and findings. */
  readonly text: string;
  /** The weekdays it opens on: 0 = Monday … 6 = Sunday. */
  readonly days: readonly number[];
  /** Minutes after local midnight it opens, 0–1439. */
  readonly startMinute: number;
  /** Minutes after local midnight it closes, 1–1440; not after the start: on the next day. */
  readonly endMinute: number;
  /** The IANA time zone its times are in. */
  readonly zone: string;
}

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

const dayOf = (name: string): number | undefined => {
  const index = DAY_NAMES.indexOf(name.toLowerCase());
  return index < 0 ? undefined : index;
};

/** `Mon-Fri,Sun` → [0,1,2,3,4,6]; a range may wrap (`Fri-Mon`). */
const daysOf = (text: string): readonly number[] | string => {
  const days = new Set<number>();
  for (const item of text.split(',')) {
    const [first, last, ...rest] = item.split('-');
    const from = dayOf(first ?? '');
    const to = last === undefined ? from : dayOf(last);
    if (from === undefined || to === undefined || rest.length > 0) {
      return `"${item}" is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun) or a range of days (Mon-Fri)`;
    }
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === to) break;
    }
  }
  return [...days].sort((a, b) => a - b);
};

const minuteOf = (text: string, closing: boolean): number | undefined => {
  if (closing && text === '24:00') return 1440;
  const match = TIME.exec(text);
  return match === null ? undefined : Number(match[1]) * 60 + Number(match[2]);
};

/** One window, or what is wrong with it. */
const parseWindow = (text: string): MaintenanceWindow | string => {
  const tokens = text.split(/\s+/).filter((t) => t !== '');
  if (tokens.length !== 3)
    return 'must be <days> <HH:MM>-<HH:MM> <time zone>, e.g. "Mon-Fri 01:00-04:00 Europe/Berlin"';
  const [dayText = '', timeText = '', zone = ''] = tokens;
  const days = daysOf(dayText);
  if (typeof days === 'string') return days;
  const [startText = '', endText = '', ...more] = timeText.split('-');
  const startMinute = minuteOf(startText, false);
  const endMinute = minuteOf(endText, true);
  if (startMinute === undefined || endMinute === undefined || more.length > 0) {
    return `"${timeText}" is not <HH:MM>-<HH:MM> (24-hour, 00:00 to 24:00)`;
  }
  if (startMinute === endMinute) return `"${timeText}" opens and closes at the same time: a window of no length`;
  if (!isTimeZone(zone))
    return `"${zone}" is not a time zone this runtime knows (an IANA name such as Europe/Berlin, or UTC)`;
  return { text, days, startMinute, endMinute, zone };
};

/** Every window of MAINTENANCE_WINDOW, or one problem per malformed window, naming it. */
export const parseMaintenanceWindows = (
  text: string,
): { readonly windows: readonly MaintenanceWindow[] } | { readonly problems: readonly string[] } => {
  const written = text.split(';').map((w) => w.trim());
  // A trailing ";" closes the list; an empty window anywhere else is a mistake.
  if (written.length > 1 && written.at(-1) === '') written.pop();
  const problems: string[] = [];
  const windows: MaintenanceWindow[] = [];
  written.forEach((w, i) => {
    if (w === '') {
      problems.push(`window ${i + 1} is empty (windows are separated by ";")`);
      return;
    }
    const parsed = parseWindow(w);
    if (typeof parsed === 'string') problems.push(`window ${i + 1} "${w}": ${parsed}`);
    else windows.push(parsed);
  });
  return problems.length > 0 ? { problems } : { windows };
};
