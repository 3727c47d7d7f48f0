import { formatDate, formatRelative, isoString, type DateInput } from "./time";

export interface TimeAgoProps {
  value: DateInput | null | undefined;
  /** Text when there is no date. */
  fallback?: string;
  className?: string;
}

/** "3 hours ago", with the exact UTC time as tooltip and machine-readable dateTime. Server-rendered. */
export function TimeAgo({ value, fallback = "—", className }: TimeAgoProps) {
  if (value == null || !isoString(value)) return <span className={className}>{fallback}</span>;
  return (
    <time dateTime={isoString(value)} title={formatDate(value, { withTime: true })} className={className}>
      {formatRelative(value)}
    </time>
  );
}
