"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { useConfig } from "wagmi";
import { signTypedData } from "wagmi/actions";
import type { Hex } from "viem";
import { walletFailureSentence } from "@/lib/chain/escrow/errors";
import type { FundingAuthorizationTypedData } from "@/lib/api/schemas/jobs";
import type { FundBySignatureResult } from "@/lib/actions/jobs/register-escrow";
import { Alert } from "@/components/ui/alert";

type Step = "idle" | "asking" | "signing" | "sending" | "pending" | "failed";

const STEP_TEXT: Record<Step, string> = {
  idle: "",
  asking: "Preparing what your wallet signs…",
  signing: "Waiting for your wallet: sign the deposit (a signature, not a transaction: no ETH needed)…",
  sending: "Signed. The marketplace is sending your deposit and paying its gas…",
  pending:
    "Your deposit is sent and waiting to be final: the marketplace attaches it to the job within a minute, even if you close this page.",
  failed: "",
};

/**
 * Funding in EscrowV2 with one signature and no ETH (POST /v1/jobs/:id/escrow/authorization): the
 * service answers USDC's EIP-3009 ReceiveWithAuthorization to sign, the wallet signs it
 * (eth_signTypedData_v4), and the service sends the deposit, paying the gas.
 */
export function FundBySignature({
  jobId,
  budgetUsdc,
  fund,
}: {
  jobId: string;
  budgetUsdc: string;
  fund: (jobId: string, signature?: string) => Promise<FundBySignatureResult>;
}) {
  const config = useConfig();
  const router = useRouter();
  const [step, setStep] = useState<Step>("idle");
  const [error, setError] = useState<string | null>(null);

  async function signAndSend(authorization: FundingAuthorizationTypedData) {
    setStep("signing");
    const { message } = authorization;
    const signature: Hex = await signTypedData(config, {
      domain: { ...authorization.domain, verifyingContract: authorization.domain.verifyingContract as Hex },
      types: authorization.types,
      primaryType: "ReceiveWithAuthorization",
      message: {
        ...message,
        value: BigInt(message.value),
        validAfter: BigInt(message.validAfter),
        validBefore: BigInt(message.validBefore),
      },
    });
    setStep("sending");
    return fund(jobId, signature);
  }

  async function start() {
    setError(null);
    try {
      setStep("asking");
      let result = await fund(jobId);
      if (result.kind === "sign") result = await signAndSend(result.authorization);
      if (result.kind === "funded") {
        router.refresh();
        return;
      }
      if (result.kind === "pending") {
        setStep("pending");
        router.refresh();
        return;
      }
      setStep("failed");
      setError(
        result.kind === "refused" ? result.error : "The marketplace asked for a signature again; try once more.",
      );
    } catch (e) {
      setStep("failed");
      setError(walletFailureSentence(e));
    }
  }

  const busy = step === "asking" || step === "signing" || step === "sending";
  return (
    <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800" data-testid="fund-by-signature">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        No ETH for gas? Sign once and the marketplace sends your {budgetUsdc} USDC deposit for you, paying the gas. The
        signature moves exactly this budget into this job&apos;s escrow, with the expiry above, and nothing else.
      </p>
      <button
        type="button"
        onClick={start}
        disabled={busy || step === "pending"}
        className="rounded-lg border border-brand-600 px-4 py-2 text-sm font-medium text-brand-700 disabled:opacity-60 dark:text-brand-300"
      >
        {busy ? "Funding…" : "Fund with one signature (no ETH needed)"}
      </button>
      {step !== "idle" && step !== "failed" ? (
        <p role="status" aria-live="polite" className="text-sm">
          {STEP_TEXT[step]}
        </p>
      ) : null}
      {error ? (
        <Alert variant="inline" tone="error">
          {error}
        </Alert>
      ) : null}
    </div>
  );
}
