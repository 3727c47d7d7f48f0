// Date formatting shared by server components and the one client countdown. Dates are shown in
// UTC with the zone spelled out: the server renders them, and it cannot know the reader's zone.

export type DateInput = string | number | Date;

function toDate(value: DateInput): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const DATE = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });
const DATE_TIME = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** "7 Mar 2026", or with `withTime` "7 Mar 2026, 14:05 UTC"; "—" for a missing or invalid date. */
export function formatDate(
  value: DateInput | null | undefined,
  { withTime = false }: { withTime?: boolean } = {},
): string {
  if (value == null) return "—";
  const d = toDate(value);
  if (!d) return "—";
  return withTime ? `${DATE_TIME.format(d)} UTC` : DATE.format(d);
}

const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 minutes ago", "in 2 days", "just now". */
export function formatRelative(value: DateInput, now: number = Date.now()): string {
  const d = toDate(value);
  if (!d) return "—";
  const seconds = Math.round((d.getTime() - now) / 1000);
  if (Math.abs(seconds) < 45) return "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "minute") {
      return RELATIVE.format(Math.round(seconds / size), unit);
    }
  }
  return "just now";
}

/** A compact duration for countdowns: "2d 03h", "3h 04m", "4m 05s", "12s". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  if (d > 0) return `${d}d ${pad(h)}h`;
  if (h > 0) return `${h}h ${pad(m)}m`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** ISO string for a <time dateTime>, or undefined when the value is not a date. */
export function isoString(value: DateInput): string | undefined {
  return toDate(value)?.toISOString();
}
