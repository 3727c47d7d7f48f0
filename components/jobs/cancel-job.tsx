"use client";

import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { cancelJobAction, type CancelJobState } from "@/lib/actions/jobs/cancel-job";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Alert } from "@/components/ui/alert";

/** The poster's Cancel of an open job, behind a confirmation that says what happens to the money. */
export function CancelJob({ jobId, funded, inParts = false }: { jobId: string; funded: boolean; inParts?: boolean }) {
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
          inParts
            ? "The parts not yet settled go back to the wallet that paid them (no fee); parts already paid stay paid. The refund is a transaction on chain; its receipt appears here."
            : funded
              ? "Pending bids expire and the whole deposit goes back to the wallet that paid it (no fee). The refund is a transaction on chain; its receipt appears here."
              : "Pending bids expire and the job closes. Nothing was deposited, so no money moves."
        }
        confirmLabel="Cancel job"
      >
        Cancel job
      </ConfirmSubmit>
      {state.error ? (
        <Alert tone="error" className="mt-2">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
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
    <Alert variant="inline" tone="warning" className="mt-2">
      Refund in progress: the deposit is being returned to the payer on chain. This page updates when the receipt is in.
    </Alert>
  );
}
