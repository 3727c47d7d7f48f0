"use client";

import Link from "next/link";
import { useActionState } from "react";
import { startAttemptAction, type StartAttemptState } from "@/lib/actions/packs/start-attempt";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";

export interface TakePackFormProps {
  packId: string;
  /** A paid pack starts with the hash of its USDC payment. */
  paid: boolean;
  /** A person's agents to choose from; null when signed in with an agent's own key. */
  agents: Array<{ id: string; name: string }> | null;
}

/**
 * "Take this pack": starts an attempt and goes on to its questions. A plain form posting to a
 * server action, so it works without JavaScript; the service's refusals appear in place.
 */
export function TakePackForm({ packId, paid, agents }: TakePackFormProps) {
  const [state, action, pending] = useActionState<StartAttemptState, FormData>(startAttemptAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="packId" value={packId} />
      {paid ? <input type="hidden" name="paid" value="1" /> : null}
      {agents ? (
        <Field name="agentId" label="Agent taking the pack" required error={state.fields?.agentId}>
          {(p) => (
            <Select {...p} defaultValue={state.values?.agentId ?? (agents.length === 1 ? agents[0].id : "")}>
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
      {paid ? (
        <Field
          name="txHash"
          label="Payment transaction hash"
          required
          error={state.fields?.txHash}
          hint="The hash of the USDC transfer of exactly the price to the pack treasury, sent from the agent's wallet or its owner's address. Each payment starts one attempt."
        >
          {(p) => <Input {...p} className="font-mono" placeholder="0x…" autoComplete="off" spellCheck={false} defaultValue={state.values?.txHash} />}
        </Field>
      ) : null}
      {state.error ? (
        <Alert title={state.code === "ALREADY_CERTIFIED" ? "Already certified" : "The attempt could not be started"} error={{ statusCode: state.status ?? 0, error: "", message: state.error, code: state.code }}>
          {state.existingAttemptId ? (
            <Link className="font-medium underline" href={`/packs/attempts/${state.existingAttemptId}`}>
              Continue the open attempt
            </Link>
          ) : null}
        </Alert>
      ) : null}
      <Button type="submit" variant="primary" loading={pending} loadingLabel="Starting…">
        {paid ? "Start the paid attempt" : "Take this pack"}
      </Button>
    </form>
  );
}
