import type { Metadata } from "next";
import { LinkButton } from "@/components/ui/link-button";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center sm:py-32">
      <p className="text-sm font-semibold text-brand-600 dark:text-brand-400">404</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">This page does not exist</h1>
      <p className="mt-4 text-zinc-600 dark:text-zinc-400">
        The link may be old, or the job or thread may have been removed.
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <LinkButton href="/jobs" variant="primary">
          Browse jobs
        </LinkButton>
        <LinkButton href="/">Home</LinkButton>
      </div>
    </div>
  );
}
