"use client";

import Link from "next/link";
import { useActionState, useEffect, useRef, useState } from "react";
import { startAttemptAction, type StartAttemptState } from "@/lib/actions/packs/start-attempt";
import type { Address } from "viem";
import type { EvalPayment } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";

export interface TakePackFormProps {
  packId: string;
  /** A paid pack's payment instructions; null for a free pack (or when paid packs cannot be bought). */
  payment: EvalPayment | null;
  paid: boolean;
  /** A person's agents to choose from; null when signed in with an agent's own key. */
  agents: Array<{ id: string; name: string }> | null;
  /** The signed-in agent's own id (agent key sessions). */
  selfAgentId: string | null;
  /** A community pack is taken by timed sessions only; the marketplace's packs also in one go. */
  sessionOnly?: boolean;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** What went wrong in the wallet, in a sentence: a rejection anywhere in the error's causes says so. */
function walletErrorText(error: unknown): string {
  for (let e = error as { code?: number; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === 4001 || /rejected|denied/i.test(e.message ?? "")) return "You rejected the request in your wallet.";
  }
  const e = error as { message?: string; shortMessage?: string };
  return (e?.shortMessage ?? e?.message)?.split("\n")[0] ?? String(error);
}

/** The message the payer signs: the service's template with this agent and hash filled in. */
function fill(template: string, agentId: string, txHash: string): string {
  return template.replace("{agentId}", agentId).replace("{txHash}", txHash.toLowerCase());
}

/**
 * "Take this pack": starts an attempt and goes on to its questions. A plain form posting to a
 * server action, so a free pack (and a pasted payment) works without JavaScript; the service's
 * refusals appear in place. A paid attempt needs the transfer's hash and the signature of the
 * address that sent it over a message naming the pack, the agent and the hash: the browser wallet
 * can pay and sign in one go, or sign for a transfer already made, or both are pasted.
 */
export function TakePackForm({ packId, payment, paid, agents, selfAgentId, sessionOnly = false }: TakePackFormProps) {
  const [state, action, pending] = useActionState<StartAttemptState, FormData>(startAttemptAction, {});
  const [agentId, setAgentId] = useState(state.values?.agentId ?? (agents?.length === 1 ? agents[0].id : ""));
  const [txHash, setTxHash] = useState(state.values?.txHash ?? "");
  const [signature, setSignature] = useState(state.values?.signature ?? "");
  const [walletStep, setWalletStep] = useState<string | null>(null);
  const [walletError, setWalletError] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  // Set when the wallet has paid and signed: the form is submitted once the filled fields render.
  const [submitWhenFilled, setSubmitWhenFilled] = useState(false);
  useEffect(() => {
    if (submitWhenFilled && TX_HASH.test(txHash) && signature) {
      setSubmitWhenFilled(false);
      form.current?.requestSubmit();
    }
  }, [submitWhenFilled, txHash, signature]);
  const forAgent = agents ? agentId : (selfAgentId ?? "");
  const message = payment && forAgent && TX_HASH.test(txHash) ? fill(payment.messageTemplate, forAgent, txHash) : null;

  async function withWallet(payFirst: boolean) {
    if (!payment) return;
    setWalletError(null);
    if (!forAgent) return setWalletError("Choose the agent first: the signature names it.");
    if (!payFirst && !TX_HASH.test(txHash))
      return setWalletError("Paste the hash of your transfer first: the signature names it.");
    try {
      setWalletStep("Connecting to your wallet…");
      // The wallet code (wagmi, viem) loads only now, when the visitor asks for it.
      const { connectPackWallet } = await import("./pack-wallet");
      const wallet = await connectPackWallet(payment.chainId);
      let hash = txHash;
      if (payFirst) {
        setWalletStep(`Waiting for your wallet: send ${payment.amountUsdc} USDC to the pack treasury…`);
        hash = await wallet.transfer({
          token: payment.tokenAddress as Address,
          to: payment.payTo as Address,
          units: BigInt(payment.amountUnits),
          onSent: (sent) => {
            setTxHash(sent);
            setWalletStep("Transfer sent; waiting until it is mined…");
          },
        });
      }
      setWalletStep("Waiting for your wallet: sign the payment message…");
      setSignature(await wallet.sign(fill(payment.messageTemplate, forAgent, hash)));
      setWalletStep(null);
      setSubmitWhenFilled(true);
    } catch (error) {
      setWalletStep(null);
      setWalletError(walletErrorText(error));
    }
  }

  return (
    <form ref={form} action={action} className="space-y-4">
      <input type="hidden" name="packId" value={packId} />
      {paid ? <input type="hidden" name="paid" value="1" /> : null}
      {agents ? (
        <Field name="agentId" label="Agent taking the pack" required error={state.fields?.agentId}>
          {(p) => (
            <Select {...p} value={agentId} onChange={(e) => setAgentId(e.target.value)}>
              <option value="">Choose an agent…</option>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.id})
                </option>
              ))}
            </Select>
          )}
        </Field>
      ) : null}
      <Field
        name="mode"
        label="How the agent answers"
        error={state.fields?.mode}
        hint="A session serves the items one at a time against the clock; the mode is shown on the certificate."
      >
        {(p) => (
          <Select {...p} defaultValue={state.values?.mode ?? (sessionOnly ? "CLOSED_BOOK" : "")}>
            {sessionOnly ? null : <option value="">All questions at once (no session)</option>}
            <option value="CLOSED_BOOK">Session: closed book</option>
            <option value="TOOL_ALLOWED">Session: tools allowed</option>
            <option value="WEB_ALLOWED">Session: web allowed</option>
          </Select>
        )}
      </Field>
      {paid && payment ? (
        <div className="space-y-2">
          <Button
            type="button"
            variant="primary"
            disabled={walletStep !== null || pending}
            onClick={() => withWallet(true)}
          >
            Pay {payment.amountUsdc} USDC and sign with your browser wallet
          </Button>
          <p className="text-xs text-zinc-500 dark:text-zinc-400">
            Or pay from any wallet and fill in the hash and signature below.
          </p>
        </div>
      ) : null}
      {paid ? (
        <>
          <Field
            name="txHash"
            label="Payment transaction hash"
            required
            error={state.fields?.txHash}
            hint="The hash of the USDC transfer of exactly the price to the pack treasury. Each payment starts one attempt."
          >
            {(p) => (
              <Input
                {...p}
                className="font-mono"
                placeholder="0x…"
                autoComplete="off"
                spellCheck={false}
                value={txHash}
                onChange={(e) => setTxHash(e.target.value.trim())}
              />
            )}
          </Field>
          <Field
            name="signature"
            label="Payment signature"
            error={state.fields?.signature}
            hint="The personal_sign (EIP-191) signature, by the address that sent the transfer, of the message below. It proves you control that address; an address you merely name proves nothing."
          >
            {(p) => (
              <Input
                {...p}
                className="font-mono"
                placeholder="0x…"
                autoComplete="off"
                spellCheck={false}
                value={signature}
                onChange={(e) => setSignature(e.target.value.trim())}
              />
            )}
          </Field>
          {payment ? (
            <div className="space-y-2 text-sm">
              <p className="font-medium">Message to sign</p>
              {message ? (
                <pre
                  tabIndex={0}
                  role="region"
                  aria-label="Message to sign"
                  className="overflow-x-auto rounded-lg bg-zinc-100 p-3 text-xs whitespace-pre-wrap dark:bg-zinc-900"
                >
                  {message}
                </pre>
              ) : (
                <p className="text-zinc-500 dark:text-zinc-400">
                  {agents && !agentId ? "Choose the agent and paste" : "Paste"} the transaction hash to see the exact
                  message.
                </p>
              )}
              <Button
                type="button"
                variant="secondary"
                disabled={walletStep !== null || pending}
                onClick={() => withWallet(false)}
              >
                Sign with your browser wallet
              </Button>
            </div>
          ) : null}
          {walletStep ? (
            <p role="status" aria-live="polite" className="text-sm">
              {walletStep}
            </p>
          ) : null}
          {walletError ? <Alert title="The wallet step did not complete" error={walletError} /> : null}
        </>
      ) : null}
      {state.error ? (
        <Alert
          title={state.code === "ALREADY_CERTIFIED" ? "Already certified" : "The attempt could not be started"}
          error={{
            statusCode: state.status ?? 0,
            error: "",
            message: state.error.join("; "),
            messages: state.error,
            code: state.code,
          }}
        >
          {state.existingAttemptId ? (
            <Link className="font-medium underline" href={`/packs/attempts/${state.existingAttemptId}`}>
              Continue the open attempt
            </Link>
          ) : null}
        </Alert>
      ) : null}
      <Button type="submit" variant={paid ? "secondary" : "primary"} loading={pending} loadingLabel="Starting…">
        {paid ? "Start the paid attempt" : "Take this pack"}
      </Button>
    </form>
  );
}
