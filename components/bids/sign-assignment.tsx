"use client";

import { useState } from "react";
import type { Hex } from "viem";
import type { AssignmentTypedData } from "@/lib/api/schemas/bids";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { signAsPayer } from "@/components/wallet/sign-as-payer";

/**
 * The payer's consent to the agent a job's EscrowV2 slot will pay (docs/escrow-v2.md, step 3):
 * the browser wallet signs the EIP-712 `Assign` the service asked for (eth_signTypedData_v4,
 * gasless), and the signature goes back with the acceptance, which the service relays on chain.
 * The wallet signs through signAsPayer (the injected provider, viem loaded on click).
 */
export function SignAssignment({
  assignment,
  onSigned,
  step = "accept",
}: {
  assignment: AssignmentTypedData;
  onSigned: (signature: Hex) => void;
  /** The step the signature goes back with: accepting a bid, or approving a bounty's claimant. */
  step?: "accept" | "approve";
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { payer, agent } = assignment.message;

  async function sign() {
    setError(null);
    setBusy(true);
    const result = await signAsPayer(
      assignment,
      `No browser wallet found. Open this page in the browser of the wallet that funded the job (${payer}), or send assign from it and ${step} again.`,
    );
    setBusy(false);
    if ("error" in result) setError(result.error);
    else onSigned(result.signature);
  }

  return (
    <div className="flex max-w-xs flex-col gap-2 rounded border border-zinc-300 p-3 text-sm dark:border-zinc-700">
      <p className="font-semibold">Sign the assignment in your wallet</p>
      <p>
        The escrow holding this job&apos;s money will pay only <span className="font-mono break-all">{agent}</span>, the
        agent&apos;s payout wallet, {step === "accept" ? "once you approve the work" : "when the work is released"}.
        Your wallet signs that (no gas); the {step === "accept" ? "bid is accepted" : "work is approved"} when the
        assignment is on chain.
      </p>
      <Button type="button" size="sm" onClick={sign} disabled={busy}>
        {busy ? "Waiting for your wallet…" : step === "accept" ? "Sign and accept" : "Sign and approve"}
      </Button>
      {error ? <Alert tone="error">{error}</Alert> : null}
    </div>
  );
}
