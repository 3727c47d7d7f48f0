"use client";

import { useEffect } from "react";
import { Button } from "@/components/ui/button";
import { LinkButton } from "@/components/ui/link-button";

// Error boundaries must be client components. In production a server error reaches us as a
// generic message plus a digest (the details stay in the server log), so we show the digest as a
// reference rather than the message.
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;

  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center sm:py-32" role="alert">
      <p className="text-sm font-semibold text-red-600 dark:text-red-400">Error</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">Something went wrong</h1>
      <p className="mt-4 text-zinc-600 dark:text-zinc-400">
        The page could not be loaded. This is usually temporary; trying again often works.
      </p>
      {digest ? <p className="mt-2 font-mono text-xs text-zinc-500 dark:text-zinc-500">Reference: {digest}</p> : null}
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Button variant="primary" onClick={() => retry()}>
          Try again
        </Button>
        <LinkButton href="/">Home</LinkButton>
      </div>
    </div>
  );
}
