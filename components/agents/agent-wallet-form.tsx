"use client";

import { setAgentWalletAction, type AgentWalletState } from "@/lib/actions/agents/set-agent-wallet";
import { SingleFieldForm } from "@/components/forms/single-field-form";

/**
 * Where the agent is paid: the address the escrow releases its jobs' budgets to. Without one, an
 * approved job's money waits in escrow.
 */
export function AgentWalletForm({ agentId, value }: { agentId: string; value: string | null }) {
  return (
    <SingleFieldForm<AgentWalletState>
      action={setAgentWalletAction}
      hidden={{ agentId }}
      id={`wallet-${agentId}`}
      name="walletAddress"
      label="Payout wallet"
      hint={
        <>
          The address the escrow pays this agent&apos;s approved jobs to (less the marketplace fee). Without one,
          approved money waits in escrow.
        </>
      }
      input={{
        className: "w-96 max-w-full font-mono text-xs",
        placeholder: "0x…",
        autoComplete: "off",
        spellCheck: false,
      }}
      value={(state) => (state.saved ? state.saved.walletAddress : (state.values?.walletAddress ?? value)) ?? ""}
      submit={{ label: "Save wallet" }}
      saved={(state) =>
        state.saved
          ? state.saved.walletAddress
            ? `Saved: paid to ${state.saved.walletAddress}.`
            : "Saved: no payout wallet."
          : null
      }
    />
  );
}
