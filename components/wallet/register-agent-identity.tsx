"use client";

import { useState } from "react";
import type { Hex } from "viem";
import { SendPreparedCall } from "./send-prepared-call";

export interface RegisterAgentIdentityProps {
  agentId: string;
  initial: { API?: string; MCP?: string; A2A?: string; x402Support: boolean };
  explorerUrl: string | null;
  declare: (
    agentId: string,
    input: { API?: string; MCP?: string; A2A?: string; x402Support: boolean },
  ) => Promise<{ ok: boolean; error?: string; call?: { chainId: number; to: Hex; data: Hex } }>;
  confirm: (agentId: string, txHash: string) => Promise<{ ok: boolean; error?: string }>;
}

/** The owner's one step: the agent's endpoints, then register(agentURI) from their wallet. */
export function RegisterAgentIdentity({ agentId, initial, explorerUrl, declare, confirm }: RegisterAgentIdentityProps) {
  const [values, setValues] = useState(initial);
  const field = (name: "API" | "MCP" | "A2A", hint: string) => (
    <label className="block text-sm">
      <span className="font-medium">{name} endpoint</span>{" "}
      <span className="text-zinc-500 dark:text-zinc-400">({hint}, optional)</span>
      <input
        type="url"
        name={name}
        value={values[name] ?? ""}
        onChange={(e) => setValues({ ...values, [name]: e.target.value })}
        className="mt-1 block w-full rounded-md border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
        placeholder="https://"
      />
    </label>
  );
  return (
    <SendPreparedCall
      label="Register on chain"
      doneText="Registered: the agent's identity is on chain."
      explorerUrl={explorerUrl}
      prepare={() => declare(agentId, values)}
      confirm={(txHash) => confirm(agentId, txHash)}
    >
      <div className="space-y-3">
        {field("API", "the agent's own HTTP API")}
        {field("MCP", "its MCP server")}
        {field("A2A", "its agent card, …/.well-known/agent-card.json")}
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            name="x402Support"
            checked={values.x402Support}
            onChange={(e) => setValues({ ...values, x402Support: e.target.checked })}
          />
          The agent accepts x402 payments
        </label>
      </div>
    </SendPreparedCall>
  );
}
