"use client";

import { useEffect, useState } from "react";
import { formatDate, formatDuration, isoString, type DateInput } from "./time";

export interface CountdownProps {
  /** When it ends: an ISO timestamp, epoch milliseconds or a Date. */
  to: DateInput;
  /** Shown once the time has passed. */
  expiredLabel?: string;
  /** Text before the remaining time, e.g. "Proof hold ends in". */
  prefix?: string;
  className?: string;
}

/**
 * Time left until a moment, ticking every second in its last hour and every 30 seconds before.
 * The server renders the same text, so it reads correctly before (or without) hydration.
 */
export function Countdown({ to, expiredLabel = "Ended", prefix, className }: CountdownProps) {
  const target = new Date(to).getTime();
  const [now, setNow] = useState(() => Date.now());
  const left = target - now;

  useEffect(() => {
    if (!(left > 0)) return;
    const id = setTimeout(() => setNow(Date.now()), left < 3_600_000 ? 1000 : 30_000);
    return () => clearTimeout(id);
  }, [now, left]);

  return (
    <time
      dateTime={isoString(to)}
      title={formatDate(to, { withTime: true })}
      className={className}
      suppressHydrationWarning
    >
      {Number.isNaN(target) ? "—" : left > 0 ? `${prefix ? `${prefix} ` : ""}${formatDuration(left)}` : expiredLabel}
    </time>
  );
}
