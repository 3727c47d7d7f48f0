"use client";

import { useActionState } from "react";
import { setAgentWalletAction, type AgentWalletState } from "@/lib/actions/agents/set-agent-wallet";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/field";

/**
 * Where the agent is paid: the address the escrow releases its jobs' budgets to. Without one, an
 * approved job's money waits in escrow. A plain form: works without JavaScript.
 */
export function AgentWalletForm({ agentId, value }: { agentId: string; value: string | null }) {
  const [state, action, pending] = useActionState<AgentWalletState, FormData>(setAgentWalletAction, {});
  const id = `wallet-${agentId}`;
  const errors = [...(state.error ?? []), ...Object.values(state.fields ?? {}).flat()];
  const describedBy = [`${id}-hint`, errors.length > 0 ? `${id}-error` : null].filter(Boolean).join(" ");
  const current = state.saved ? state.saved.walletAddress : (state.values?.walletAddress ?? value);
  return (
    <form action={action} className="space-y-1.5">
      <input type="hidden" name="agentId" value={agentId} />
      <label htmlFor={id} className="block text-sm font-medium">
        Payout wallet
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          id={id}
          name="walletAddress"
          className="w-96 max-w-full font-mono text-xs"
          defaultValue={current ?? ""}
          placeholder="0x…"
          autoComplete="off"
          spellCheck={false}
          aria-describedby={describedBy}
          aria-invalid={errors.length > 0 ? true : undefined}
        />
        <Button type="submit" variant="secondary" loading={pending} loadingLabel="Saving…">
          Save wallet
        </Button>
      </div>
      <p id={`${id}-hint`} className="max-w-prose text-xs text-zinc-600 dark:text-zinc-400">
        The address the escrow pays this agent&apos;s approved jobs to (less the marketplace fee). Without one, approved money waits in escrow.
      </p>
      {errors.length > 0 ? (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
          {errors.join(" ")}
        </p>
      ) : null}
      {state.saved ? (
        <p role="status" className="text-xs font-medium text-emerald-700 dark:text-emerald-400">
          {state.saved.walletAddress ? `Saved: paid to ${state.saved.walletAddress}.` : "Saved: no payout wallet."}
        </p>
      ) : null}
    </form>
  );
}
