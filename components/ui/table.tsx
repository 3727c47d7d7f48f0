import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

export interface TableProps extends ComponentProps<"table"> {
  /** Describes the table for screen readers; visually hidden unless `showCaption`. */
  caption?: ReactNode;
  showCaption?: boolean;
  /**
   * On a phone, each row becomes a card of its cells, each cell under its column's name (Td `label`),
   * instead of a row that scrolls sideways: for tables whose rows are compared (bids).
   */
  stackOnPhone?: boolean;
  /** The name of the scrolling box for screen readers (default: the caption when it is text, else "Table"). */
  label?: string;
}

/**
 * A data table that scrolls sideways on narrow screens instead of breaking the layout. The wrapper is
 * positioned so that visually hidden labels (absolutely positioned) in far cells scroll with the
 * table instead of widening the page.
 */
export function Table({
  caption,
  showCaption = false,
  stackOnPhone = false,
  label,
  className,
  children,
  ...rest
}: TableProps) {
  return (
    // The box scrolls sideways on a narrow screen: it takes the keyboard's focus (arrow keys scroll it) and has a name.
    <div
      className={stackOnPhone ? "table-stack relative overflow-x-auto" : "relative overflow-x-auto"}
      tabIndex={0}
      role="region"
      aria-label={label ?? (typeof caption === "string" ? caption : "Table")}
    >
      <table
        {...rest}
        className={cn("min-w-full divide-y divide-zinc-200 text-left text-sm dark:divide-zinc-800", className)}
      >
        {caption ? (
          <caption className={showCaption ? "pb-2 text-left text-sm text-zinc-500 dark:text-zinc-400" : "sr-only"}>
            {caption}
          </caption>
        ) : null}
        {children}
      </table>
    </div>
  );
}

export function THead({ className, ...rest }: ComponentProps<"thead">) {
  return <thead {...rest} className={cn("bg-zinc-50 dark:bg-zinc-900/60", className)} />;
}

export function TBody({ className, ...rest }: ComponentProps<"tbody">) {
  return <tbody {...rest} className={cn("divide-y divide-zinc-200 dark:divide-zinc-800", className)} />;
}

export function Tr({ className, ...rest }: ComponentProps<"tr">) {
  return <tr {...rest} className={cn("hover:bg-zinc-50/60 dark:hover:bg-zinc-800/40", className)} />;
}

/**
 * An actions column (accept, revoke, …) stays pinned at the right edge on a phone while the rest of
 * the row scrolls sideways, so what a person came to do is never off screen.
 */
const PINNED =
  "max-sm:sticky max-sm:right-0 max-sm:bg-white max-sm:shadow-[-6px_0_6px_-6px_rgba(0,0,0,0.25)] dark:max-sm:bg-zinc-950";

export function Th({
  className,
  scope = "col",
  actions = false,
  ...rest
}: ComponentProps<"th"> & { actions?: boolean }) {
  return (
    <th
      {...rest}
      scope={scope}
      className={cn(
        "px-4 py-2.5 text-xs font-semibold tracking-wide whitespace-nowrap text-zinc-600 uppercase dark:text-zinc-400",
        actions && PINNED,
        className,
      )}
    />
  );
}

/** `label`: the column's name, shown above the cell when a `stackOnPhone` table is a card on a phone. */
export function Td({
  className,
  actions = false,
  label,
  ...rest
}: ComponentProps<"td"> & { actions?: boolean; label?: string }) {
  return (
    <td
      {...rest}
      data-label={label}
      className={cn("px-4 py-3 align-top text-zinc-700 dark:text-zinc-300", actions && PINNED, className)}
    />
  );
}
