"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { JOB_EVENT_TYPES } from "@/lib/api/schemas/event-names";

/**
 * Keeps an open job page current: listens to the job's server-sent events (relayed by
 * /jobs/:id/live) and re-renders the server page when something happened (a bid, a proof check, a
 * status change). Several events in a burst cause one refresh.
 */
export function LiveJobUpdates({ jobId }: { jobId: string }) {
  const router = useRouter();
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource(`/jobs/${jobId}/live`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      clearTimeout(timer);
      timer = setTimeout(() => router.refresh(), 250);
    };
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    for (const type of ["job", ...JOB_EVENT_TYPES]) source.addEventListener(type, refresh);
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [jobId, router]);
  return (
    <p className="text-xs text-zinc-500 dark:text-zinc-400" data-live={live ? "on" : "off"}>
      {live ? "Updates appear here as they happen." : null}
    </p>
  );
}
