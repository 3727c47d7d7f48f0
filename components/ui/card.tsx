import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

export interface CardProps extends Omit<ComponentProps<"section">, "title"> {
  title?: ReactNode;
  description?: ReactNode;
  /** Buttons or links shown at the right of the header. */
  actions?: ReactNode;
  /** Heading level of the title (default 2). */
  headingLevel?: 2 | 3 | 4;
  /** Drop the inner padding, e.g. for a table that runs edge to edge. */
  flush?: boolean;
}

export function Card({
  title,
  description,
  actions,
  headingLevel = 2,
  flush = false,
  className,
  children,
  ...rest
}: CardProps) {
  const Heading = `h${headingLevel}` as const;
  return (
    <section
      {...rest}
      className={cn(
        "overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm dark:border-zinc-800 dark:bg-zinc-900",
        className,
      )}
    >
      {title || actions ? (
        <div className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-200 px-5 py-4 dark:border-zinc-800">
          <div className="min-w-0">
            {title ? (
              <Heading className="text-base font-semibold text-zinc-900 dark:text-zinc-100">{title}</Heading>
            ) : null}
            {description ? <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{description}</p> : null}
          </div>
          {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
        </div>
      ) : null}
      <div className={flush ? undefined : "px-5 py-4"}>{children}</div>
    </section>
  );
}
