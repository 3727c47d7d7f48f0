"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { cancelJobAction, type CancelJobState } from "@/lib/actions/jobs/cancel-job";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";

/** The poster's Cancel of an open job, behind a confirmation that says what happens to the money. */
export function CancelJob({ jobId, funded }: { jobId: string; funded: boolean }) {
  const [state, action] = useActionState<CancelJobState, FormData>(cancelJobAction, {});
  return (
    <form action={action}>
      <input type="hidden" name="jobId" value={jobId} />
      <ConfirmSubmit
        size="sm"
        variant="danger"
        pendingLabel="Cancelling…"
        confirmTitle="Cancel this job?"
        confirmMessage={
          funded
            ? "Pending bids expire and the whole deposit goes back to the wallet that paid it (no fee). The refund is a transaction on chain; its receipt appears here."
            : "Pending bids expire and the job closes. Nothing was deposited, so no money moves."
        }
        confirmLabel="Cancel job"
      >
        Cancel job
      </ConfirmSubmit>
      {state.error ? (
        <div role="alert" className="mt-2 rounded-md border border-red-200 bg-red-50 p-2 text-xs text-red-800 dark:border-red-500/30 dark:bg-red-500/10 dark:text-red-200">
          {state.error.map((m) => <p key={m}>{m}</p>)}
        </div>
      ) : null}
    </form>
  );
}

/**
 * While a cancelled job's refund waits for the chain (the settlement worker sends it within seconds),
 * the page re-reads itself every few seconds so the receipt appears without a reload.
 */
export function RefundProgress() {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), 3000);
    return () => clearInterval(timer);
  }, [router]);
  return (
    <p role="status" className="mt-2 text-sm text-amber-800 dark:text-amber-300">
      Refund in progress: the deposit is being returned to the payer on chain. This page updates when the receipt is in.
    </p>
  );
}
