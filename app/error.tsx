"use client";

import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { LinkButton } from "@/components/ui/link-button";
import { tryAgainFromDigest } from "@/lib/api/try-again";

/** "in 30 seconds", "in 2 minutes", "in about an hour": the service's Retry-After in words. */
function waitInWords(seconds: number): string {
  if (seconds <= 1) return "in a moment";
  if (seconds < 90) return `in ${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `in ${minutes} minutes`;
  return `in about ${Math.round(minutes / 60)} hours`;
}

// Error boundaries must be client components. In production a server error reaches us as a
// generic message plus a digest (the details stay in the server log), so we show the digest as a
// reference rather than the message. A service that cannot answer now (lib/api/page-data.ts) says
// so in the digest, with the wait it asked for: that is a "try again" page, not a failure.
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;
  const unavailable = tryAgainFromDigest(digest);

  useEffect(() => {
    if (!unavailable) console.error(error);
  }, [error, unavailable]);

  if (unavailable) {
    const wait = unavailable.retryAfterSeconds;
    return (
      <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center sm:py-32" role="alert">
        <p className="text-sm font-semibold text-amber-700 dark:text-amber-300">Busy</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">
          The service cannot answer right now
        </h1>
        <p className="mt-4 text-zinc-600 dark:text-zinc-300">
          Nothing is wrong with this page or your account: the marketplace is busy or briefly unavailable.{" "}
          <span data-testid="retry-after">
            {wait === null ? "Try again in a little while." : `Try again ${waitInWords(wait)}.`}
          </span>
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <Button variant="primary" onClick={() => retry()}>
            Try again
          </Button>
          <LinkButton href="/">Home</LinkButton>
        </div>
      </div>
    );
  }

  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center sm:py-32" role="alert">
      <p className="text-sm font-semibold text-red-600 dark:text-red-400">Error</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">Something went wrong</h1>
      <p className="mt-4 text-zinc-600 dark:text-zinc-400">
        The page could not be loaded. This is usually temporary; trying again often works.
      </p>
      {digest ? <p className="mt-2 font-mono text-xs text-zinc-500 dark:text-zinc-400">Reference: {digest}</p> : null}
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Button variant="primary" onClick={() => retry()}>
          Try again
        </Button>
        <LinkButton href="/">Home</LinkButton>
      </div>
    </div>
  );
}
