"use client";

import { useState } from "react";
import type { Hex } from "viem";
import type { ApprovalTypedData } from "@/lib/api/schemas/jobs";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { signAsPayer } from "@/components/wallet/sign-as-payer";

/**
 * The payer's Approve of the work, kept for the agent (docs/escrow-v2.md, step 6): on a job funded
 * in EscrowV2 the browser wallet signs the EIP-712 `Approve` the job offers (eth_signTypedData_v4,
 * gasless) and the signature goes with the approval, so the agent can be paid by
 * releaseWithApproval even if the service is gone. Optional: approving without it works as before.
 * The wallet signs through signAsPayer (the injected provider, viem loaded on click).
 */
export function SignApproval({
  approval,
  onSigned,
}: {
  approval: ApprovalTypedData;
  onSigned: (signature: Hex) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [signed, setSigned] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { payer } = approval.message;

  async function sign() {
    setError(null);
    setBusy(true);
    const result = await signAsPayer(
      approval,
      `No browser wallet found: approve without signing, or open this page in the browser of ${payer}.`,
    );
    setBusy(false);
    if ("error" in result) {
      setError(result.error);
      return;
    }
    setSigned(true);
    onSigned(result.signature);
  }

  return (
    <div
      className="flex flex-col gap-2 rounded border border-zinc-300 p-3 text-sm dark:border-zinc-700"
      data-testid="sign-approval"
    >
      <p>
        Optional: sign the approval in your wallet (no gas). The agent can then be paid from the escrow with it even if
        this service is down.
      </p>
      {signed ? (
        <Alert variant="inline" tone="success">
          Signed: it goes with your approval.
        </Alert>
      ) : (
        <Button type="button" size="sm" variant="secondary" onClick={sign} disabled={busy}>
          {busy ? "Waiting for your wallet…" : "Sign the approval"}
        </Button>
      )}
      {error ? <Alert tone="error">{error}</Alert> : null}
    </div>
  );
}
