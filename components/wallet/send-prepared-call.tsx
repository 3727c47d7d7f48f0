"use client";

import { useState, type ReactNode } from "react";
import { ConnectButton, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { useAccount, useConfig } from "wagmi";
import { sendTransaction, switchChain, waitForTransactionReceipt } from "wagmi/actions";
import { BaseError, UserRejectedRequestError, type Hex } from "viem";
import { Alert } from "@/components/ui/alert";

type Step = "idle" | "preparing" | "switching" | "signing" | "confirming" | "recording" | "done" | "failed";

const STEP_TEXT: Record<Step, string> = {
  idle: "",
  preparing: "Preparing the transaction…",
  switching: "Switching your wallet to the network…",
  signing: "Waiting for your wallet: sign the transaction…",
  confirming: "Sent; waiting for the chain…",
  recording: "On chain; the marketplace is checking it…",
  done: "",
  failed: "",
};

export interface SendPreparedCallProps {
  label: string;
  doneText: string;
  /** Asks the service for the call (and does what must come first); a refusal is shown as is. */
  prepare: () => Promise<{ ok: boolean; error?: string; call?: { chainId: number; to: Hex; data: Hex } }>;
  /** Hands the mined transaction to the service, when it must know of it. */
  confirm?: (txHash: Hex) => Promise<{ ok: boolean; error?: string }>;
  explorerUrl: string | null;
  children?: ReactNode;
}

function explain(error: unknown): string {
  if (error instanceof BaseError && error.walk((e) => e instanceof UserRejectedRequestError))
    return "You rejected the request in your wallet. Nothing was sent.";
  const message = error instanceof Error ? error.message : String(error);
  if (/rejected|denied/i.test(message)) return "You rejected the request in your wallet. Nothing was sent.";
  return `The transaction failed: ${message.split("\n")[0]}`;
}

/** One transaction the service prepared, sent from the connected wallet (one signature). */
function SendInner({ label, doneText, prepare, confirm, explorerUrl, children }: SendPreparedCallProps) {
  const config = useConfig();
  const { chainId, isConnected } = useAccount();
  const [step, setStep] = useState<Step>("idle");
  const [error, setError] = useState<string | null>(null);
  const [hash, setHash] = useState<Hex | null>(null);

  async function run() {
    setError(null);
    setHash(null);
    try {
      setStep("preparing");
      const prepared = await prepare();
      if (!prepared.ok || !prepared.call) {
        setStep("failed");
        setError(prepared.error ?? "The marketplace prepared nothing to send.");
        return;
      }
      if (chainId !== prepared.call.chainId) {
        setStep("switching");
        await switchChain(config, { chainId: prepared.call.chainId });
      }
      setStep("signing");
      const sent = await sendTransaction(config, { to: prepared.call.to, data: prepared.call.data });
      setHash(sent);
      setStep("confirming");
      const receipt = await waitForTransactionReceipt(config, { hash: sent });
      if (receipt.status !== "success") throw new Error("the transaction reverted");
      if (confirm) {
        setStep("recording");
        const result = await confirm(sent);
        if (!result.ok) {
          setStep("failed");
          setError(`The marketplace did not accept it: ${result.error}`);
          return;
        }
      }
      setStep("done");
    } catch (e) {
      setStep("failed");
      setError(explain(e));
    }
  }

  const busy = !["idle", "done", "failed"].includes(step);
  const link = hash && explorerUrl ? `${explorerUrl.replace(/\/$/, "")}/tx/${hash}` : null;
  return (
    <div className="space-y-4">
      {/* The chain shows as an icon: RainbowKit names its chain button "Chain Selector", not the chain it shows. */}
      <ConnectButton showBalance={false} chainStatus="icon" />
      {children}
      {isConnected ? (
        <button
          type="button"
          onClick={run}
          disabled={busy || step === "done"}
          className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60"
        >
          {busy ? "Working…" : label}
        </button>
      ) : null}
      {busy ? (
        <p role="status" aria-live="polite" className="text-sm">
          {STEP_TEXT[step]}
        </p>
      ) : null}
      {step === "done" ? (
        <p role="status" className="text-sm font-medium">
          {doneText}
        </p>
      ) : null}
      {error ? (
        <Alert variant="inline" tone="error">
          {error}
        </Alert>
      ) : null}
      {hash ? (
        <p className="text-sm">
          Transaction:{" "}
          {link ? (
            <a className="underline" href={link} target="_blank" rel="noreferrer">
              {hash.slice(0, 10)}…
            </a>
          ) : (
            <code className="break-all">{hash}</code>
          )}
        </p>
      ) : null}
    </div>
  );
}

export function SendPreparedCall(props: SendPreparedCallProps) {
  return (
    <RainbowKitProvider>
      <SendInner {...props} />
    </RainbowKitProvider>
  );
}
