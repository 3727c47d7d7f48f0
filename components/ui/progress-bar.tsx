import { cn } from "@/components/ui/cn";

export interface BarSegment {
  /** Its share of the whole, any unit (amounts, hours). */
  value: number;
  /** A Tailwind fill class (fill-…), both themes. */
  fill: string;
  label: string;
}

/**
 * A horizontal bar drawn on the server as SVG, named for screen readers by its title and
 * description (role="img"); the page states the same numbers as text beside it.
 */
export function ProgressBar({
  id,
  title,
  description,
  segments,
  total,
  className,
}: {
  /** Unique on the page: the title's and description's ids derive from it. */
  id: string;
  title: string;
  description: string;
  segments: BarSegment[];
  total: number;
  className?: string;
}) {
  let x = 0;
  return (
    <svg
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      viewBox="0 0 100 4"
      preserveAspectRatio="none"
      className={cn("h-3 w-full overflow-hidden rounded-full", className)}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <rect x="0" y="0" width="100" height="4" className="fill-zinc-200 dark:fill-zinc-700" />
      {segments.map((segment, index) => {
        const width = total > 0 ? (Math.max(0, segment.value) / total) * 100 : 0;
        const rect = <rect key={index} x={x} y="0" width={width} height="4" className={segment.fill} />;
        x += width;
        return rect;
      })}
    </svg>
  );
}
