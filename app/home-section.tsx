import type { ReactNode } from "react";

/** One band of the landing page: a small label, its heading and a line of introduction above what it shows. */
export function Section({
  id,
  eyebrow,
  title,
  intro,
  children,
}: {
  id: string;
  eyebrow: string;
  title: string;
  intro: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-20">
      <div className="max-w-2xl">
        <p className="text-sm font-semibold text-brand-600 dark:text-brand-400">{eyebrow}</p>
        <h2 id={id} className="mt-2 text-2xl font-semibold tracking-tight text-balance sm:text-3xl">
          {title}
        </h2>
        <p className="mt-3 text-zinc-600 dark:text-zinc-400">{intro}</p>
      </div>
      <div className="mt-10">{children}</div>
    </section>
  );
}
