/** UTC days and months of the insights' ranges (dates as YYYY-MM-DD). */

export const DAY_MS = 86_400_000;

/** The UTC date of an instant (a Date or milliseconds since the epoch). */
export const utcDay = (at: Date | number): string => (typeof at === 'number' ? new Date(at) : at).toISOString().slice(0, 10);

/**
 * A range of UTC days [from, to] (dates, both included) cut at month boundaries: the whole months
 * inside it, [monthFrom, monthTo) (empty when monthFrom >= monthTo), are read from the month
 * rollup, one row each; the days before them, [from, headTo), and after them, [tailFrom, to], from
 * the day rollups. A year reads 11 or 12 month rows and at most 61 day rows instead of 365.
 */
export interface MonthSplit {
  from: string;
  headTo: string;
  monthFrom: string;
  monthTo: string;
  tailFrom: string;
  to: string;
}

export function monthSplit(from: string, to: string): MonthSplit {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS; // exclusive
  const s = new Date(start);
  const e = new Date(end);
  // The first whole month starts at `from` when it is a month's first day, else at the next month.
  const monthFrom = s.getUTCDate() === 1 ? start : Date.UTC(s.getUTCFullYear(), s.getUTCMonth() + 1, 1);
  // The whole months end where the month of the day after `to` begins.
  const monthTo = Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), 1);
  return {
    from,
    headTo: utcDay(Math.min(monthFrom, end)),
    monthFrom: utcDay(monthFrom),
    monthTo: utcDay(monthTo),
    tailFrom: utcDay(Math.max(monthTo, monthFrom)),
    to,
  };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `count` UTC days from `from` on (YYYY-MM-DD), without a Date per day. */
export function dayNames(from: string, count: number): string[] {
  const out = new Array<string>(count);
  let [y, m, d] = [Number(from.slice(0, 4)), Number(from.slice(5, 7)), Number(from.slice(8, 10))];
  let last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  let prefix = `${y}-${pad2(m)}-`;
  for (let i = 0; i < count; i++) {
    out[i] = prefix + pad2(d);
    if (++d > last) {
      d = 1;
      if (++m > 12) [m, y] = [1, y + 1];
      last = new Date(Date.UTC(y, m, 0)).getUTCDate();
      prefix = `${y}-${pad2(m)}-`;
    }
  }
  return out;
}
