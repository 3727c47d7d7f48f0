"use client";

import { useEffect, useState } from "react";
import { useRouter } from "next/navigation";
import { ConnectButton, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { useAccount, useConfig, useReadContract } from "wagmi";
import { readContract, switchChain, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import type { Address, Hex } from "viem";
import { ESCROW_STATES, escrowAbi, escrowV2Abi, usdcAbi } from "@/lib/chain/abi";
import { depositExpiresAt } from "@/lib/chain/escrow/contracts";
import { walletFailureSentence } from "@/lib/chain/escrow/errors";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import { Alert } from "@/components/ui/alert";
import type { FundBySignatureResult } from "@/lib/actions/jobs/register-escrow";
import { FundBySignature } from "./fund-by-signature";

type Step =
  | "idle"
  | "checking"
  | "switching"
  | "approving"
  | "depositing"
  | "confirming"
  | "registering"
  | "finishing"
  | "done"
  | "failed";

const STEP_TEXT: Record<Step, string> = {
  idle: "",
  checking: "Checking that the job still takes this deposit…",
  switching: "Switching your wallet to the payment network…",
  approving: "Waiting for your wallet: approve the escrow to take the budget…",
  depositing: "Waiting for your wallet: deposit the budget into the escrow…",
  confirming: "Deposit sent; waiting for confirmations…",
  registering: "Confirmed on chain; the marketplace is checking the deposit…",
  finishing:
    "Already funded, finishing: your deposit is confirmed on chain and the marketplace attaches it to the job within a minute, even if you close this page.",
  done: "Funded. The budget is held in escrow until you approve the work.",
  failed: "",
};

export interface FundJobProps {
  jobId: string;
  escrowJobId: Hex;
  budgetUsdc: string;
  /** escrowAddress and escrowVersion: the contract new deposits go to (GET /v1/chain). */
  chain: {
    chainId: number;
    tokenAddress: Address;
    escrowAddress: Address;
    escrowVersion: 1 | 2;
    confirmations: number;
    explorerUrl: string | null;
  };
  /**
   * The job's escrowExpiryNeededAt: a version 2 deposit's expiry, moved into the contract's bounds
   * when the deposit is sent (depositExpiresAt). The page shows it before the poster funds.
   */
  escrowExpiryNeededAt: string | null;
  register: (jobId: string, txHash: string) => Promise<{ ok: boolean; error?: string }>;
  /**
   * Asks the service, just before each transaction, whether the job still takes this deposit (still
   * fundable, same budget); a refusal stops the flow with its reason before the wallet is asked.
   */
  recheck: (jobId: string, budgetUsdc: string) => Promise<{ ok: boolean; reason?: string }>;
  /** EscrowV2 only: funding with one signature, the service paying the gas (fund-by-signature.tsx). */
  fundBySignature?: (jobId: string, signature?: string) => Promise<FundBySignatureResult>;
}

/** How often the page asks whether the service has attached a deposit it saw on chain. */
const FINISHING_REFRESH_MS = 5_000;

/** approve + deposit from the connected wallet, with every step visible, then registration. */
function FundJobInner({
  jobId,
  escrowJobId,
  budgetUsdc,
  chain,
  escrowExpiryNeededAt,
  register,
  recheck,
  fundBySignature,
}: FundJobProps) {
  const config = useConfig();
  const { address, chainId, isConnected } = useAccount();
  const [step, setStep] = useState<Step>("idle");
  const [error, setError] = useState<string | null>(null);
  const [txs, setTxs] = useState<{ label: string; hash: Hex }[]>([]);
  const amount = parseUsdc(budgetUsdc);
  // The connected wallet's USDC on the payment network, read in the browser and again after a deposit.
  const walletBalance = useReadContract({
    address: chain.tokenAddress,
    abi: usdcAbi,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId: chain.chainId,
    query: { enabled: Boolean(address) },
  });
  const link = (hash: Hex) => (chain.explorerUrl ? `${chain.explorerUrl.replace(/\/$/, "")}/tx/${hash}` : null);
  const router = useRouter();
  // This wallet's slot of the job, read on chain: a deposit already there (a tab closed before the
  // marketplace heard of it) is never offered a second time; the service attaches it by itself.
  // Each version answers getEscrow in its own order: (amount, state, …) in 1, (state, amount, …) in 2.
  const v2 = chain.escrowVersion === 2;
  const slotV1 = useReadContract({
    address: chain.escrowAddress,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: address ? [escrowJobId, address] : undefined,
    chainId: chain.chainId,
    query: { enabled: Boolean(address) && !v2 },
  });
  const slotV2 = useReadContract({
    address: chain.escrowAddress,
    abi: escrowV2Abi,
    functionName: "getEscrow",
    args: address ? [escrowJobId, address] : undefined,
    chainId: chain.chainId,
    query: { enabled: Boolean(address) && v2 },
  });
  const slot = v2
    ? { data: slotV2.data && { state: slotV2.data[0], amount: slotV2.data[1] }, isError: slotV2.isError }
    : { data: slotV1.data && { state: slotV1.data[1], amount: slotV1.data[0] }, isError: slotV1.isError };
  const slotFunded = slot.data !== undefined && ESCROW_STATES[slot.data.state] === "FUNDED";
  // Another amount (the budget changed after it was sent) can never fund the job: it goes back by itself.
  const slotMismatch = slotFunded && slot.data!.amount !== amount;
  const finishing = step === "finishing" || (slotFunded && !slotMismatch && step === "idle");
  // While finishing, the page is read again until the service says the job is funded (the server
  // page then shows it funded instead of this form).
  useEffect(() => {
    if (!finishing) return;
    const timer = setInterval(() => router.refresh(), FINISHING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [finishing, router]);

  /** false (and the reason shown) when the job no longer takes this deposit. */
  async function stillFundable(): Promise<boolean> {
    setStep("checking");
    const result = await recheck(jobId, budgetUsdc);
    if (result.ok) return true;
    setStep("failed");
    setError(`Not sent: ${result.reason ?? "the job can no longer be funded"}`);
    return false;
  }

  async function fund() {
    if (!address) return;
    setError(null);
    setTxs([]);
    try {
      if (chainId !== chain.chainId) {
        setStep("switching");
        await switchChain(config, { chainId: chain.chainId });
      }
      const balance = await readContract(config, {
        address: chain.tokenAddress,
        abi: usdcAbi,
        functionName: "balanceOf",
        args: [address],
      });
      if (balance < amount) {
        setStep("failed");
        setError(
          `Not enough USDC: this wallet holds ${formatUsdc(balance)} USDC and the job needs ${budgetUsdc} USDC.`,
        );
        return;
      }
      const allowance = await readContract(config, {
        address: chain.tokenAddress,
        abi: usdcAbi,
        functionName: "allowance",
        args: [address, chain.escrowAddress],
      });
      if (allowance < amount) {
        if (!(await stillFundable())) return;
        setStep("approving");
        const approveHash = await writeContract(config, {
          address: chain.tokenAddress,
          abi: usdcAbi,
          functionName: "approve",
          args: [chain.escrowAddress, amount],
        });
        setTxs((t) => [...t, { label: "Approval", hash: approveHash }]);
        await waitForTransactionReceipt(config, { hash: approveHash });
      }
      if (!(await stillFundable())) return;
      setStep("depositing");
      const depositHash = v2
        ? await writeContract(config, {
            address: chain.escrowAddress,
            abi: escrowV2Abi,
            functionName: "deposit",
            // The expiry chosen by the service for this job, within the contract's bounds as of now.
            args: [escrowJobId, amount, depositExpiresAt(new Date(escrowExpiryNeededAt!))],
          })
        : await writeContract(config, {
            address: chain.escrowAddress,
            abi: escrowAbi,
            functionName: "deposit",
            args: [escrowJobId, amount],
          });
      setTxs((t) => [...t, { label: "Deposit", hash: depositHash }]);
      setStep("confirming");
      const receipt = await waitForTransactionReceipt(config, {
        hash: depositHash,
        confirmations: chain.confirmations,
      });
      if (receipt.status !== "success") throw new Error("the deposit reverted");
      setStep("registering");
      void walletBalance.refetch();
      let result: Awaited<ReturnType<typeof register>>;
      try {
        result = await register(jobId, depositHash);
      } catch {
        // The request did not arrive (the network dropped): the deposit is on chain all the same,
        // and the marketplace attaches it by itself.
        setStep("finishing");
        return;
      }
      if (!result.ok) {
        setStep("failed");
        setError(`The marketplace did not accept the deposit: ${result.error}`);
        return;
      }
      setStep("done");
    } catch (e) {
      setStep("failed");
      setError(walletFailureSentence(e));
    }
  }

  const busy = !["idle", "done", "failed", "finishing"].includes(step);
  return (
    <div className="space-y-4">
      {/* The chain shows as an icon: RainbowKit names its chain button "Chain Selector", not the chain it shows. */}
      <ConnectButton showBalance={false} chainStatus="icon" />
      {isConnected && address ? (
        <p className="text-sm" data-testid="wallet-usdc-balance">
          {walletBalance.data !== undefined ? (
            <>
              Your wallet holds <strong className="tabular-nums">{formatUsdc(walletBalance.data)} USDC</strong>
              {walletBalance.data < amount && step !== "done" ? (
                <span className="text-red-700 dark:text-red-400">
                  {" "}
                  — not enough for this job&apos;s {budgetUsdc} USDC.
                </span>
              ) : (
                "."
              )}
            </>
          ) : walletBalance.isError ? (
            "Your wallet's USDC balance could not be read."
          ) : (
            "Reading your wallet's USDC balance…"
          )}
        </p>
      ) : null}
      {finishing ? (
        <p role="status" aria-live="polite" className="text-sm font-medium" data-testid="fund-finishing">
          {STEP_TEXT.finishing}
        </p>
      ) : slotMismatch ? (
        <Alert variant="inline" tone="warning">
          This wallet already deposited {formatUsdc(slot.data!.amount)} USDC for this job, which is not its budget of{" "}
          {budgetUsdc} USDC: that deposit cannot fund it and goes back to this wallet by itself within the hour. The
          escrow takes one deposit per job and wallet, so fund this job from another wallet.
        </Alert>
      ) : isConnected && (slot.data !== undefined || slot.isError) ? (
        <button
          type="button"
          onClick={fund}
          disabled={busy || step === "done"}
          className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60"
        >
          {busy ? "Funding…" : `Fund ${budgetUsdc} USDC into escrow`}
        </button>
      ) : null}
      {v2 && fundBySignature && isConnected && !finishing && !slotFunded && (step === "idle" || step === "failed") ? (
        <FundBySignature jobId={jobId} budgetUsdc={budgetUsdc} fund={fundBySignature} />
      ) : null}
      {step !== "idle" && step !== "failed" && step !== "finishing" ? (
        <p role="status" aria-live="polite" className="text-sm">
          {STEP_TEXT[step]}
        </p>
      ) : null}
      {error ? (
        <Alert variant="inline" tone="error">
          {error}
        </Alert>
      ) : null}
      {txs.length > 0 ? (
        <ul className="space-y-1 text-sm">
          {txs.map((tx) => (
            <li key={tx.hash}>
              {tx.label}:{" "}
              {link(tx.hash) ? (
                <a className="underline" href={link(tx.hash)!} target="_blank" rel="noreferrer">
                  {tx.hash.slice(0, 10)}…
                </a>
              ) : (
                <code>{tx.hash}</code>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {step === "done" ? (
        <a href={`/jobs/${jobId}`} className="text-sm font-medium underline">
          Back to the job
        </a>
      ) : null}
    </div>
  );
}

export function FundJob(props: FundJobProps) {
  return (
    <RainbowKitProvider>
      <FundJobInner {...props} />
    </RainbowKitProvider>
  );
}
