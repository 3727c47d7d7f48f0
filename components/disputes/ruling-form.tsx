"use client";

import { useActionState, useState } from "react";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import { ruleDisputeAction } from "@/lib/actions/disputes/rule-dispute";
import { DISPUTE_LIMITS } from "@/lib/api/schemas/constants";
import { formatUsdc, parseUsdc, rulingAmounts } from "@/lib/chain/units";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Field, Input, Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

const OUTCOMES = [
  { value: "PAY_AGENT", label: "Pay the agent", hint: "the budget, less the fee" },
  { value: "REFUND_POSTER", label: "Refund the poster", hint: "the whole deposit" },
  { value: "SPLIT", label: "Split", hint: "a percentage to the agent, the rest back to the poster" },
] as const;
type Outcome = (typeof OUTCOMES)[number]["value"];

/** The agent's percentage of an outcome, or null while a split has no valid share yet. */
function shareOf(outcome: Outcome | null, share: string): number | null {
  if (outcome === "PAY_AGENT") return 100;
  if (outcome === "REFUND_POSTER") return 0;
  if (outcome !== "SPLIT" || !/^\d{1,3}$/.test(share)) return null;
  const n = Number(share);
  return n >= DISPUTE_LIMITS.agentShareMin && n <= DISPUTE_LIMITS.agentShareMax ? n : null;
}

/**
 * The arbiter's ruling. Nothing is chosen in advance (a preselected outcome would be a suggestion
 * to one side): the arbiter picks pay, refund or split (and the split's share), and the confirmation
 * says where the money goes, in USDC, before anything is sent. `feeBps` null: the chain's fee is
 * unknown, and the confirmation says the fee comes out of the agent's share without a figure.
 */
export function RulingForm({
  jobId,
  budgetUsdc,
  feeBps,
}: {
  jobId: string;
  budgetUsdc: string;
  feeBps: number | null;
}) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(ruleDisputeAction, {});
  const [outcome, setOutcome] = useState<Outcome | null>((state.values?.outcome as Outcome | undefined) ?? null);
  const [share, setShare] = useState(state.values?.agentShare ?? "");
  if (state.done)
    return (
      <Alert variant="inline" tone="success">
        Ruled. The escrow is being settled.
      </Alert>
    );
  const agentShare = shareOf(outcome, share);
  const amounts = agentShare === null ? null : rulingAmounts(parseUsdc(budgetUsdc), agentShare, feeBps ?? 0);
  const usdc = (units: bigint) => `${formatUsdc(units)} USDC`;
  const confirmation =
    amounts === null ? (
      <>Choose an outcome first{outcome === "SPLIT" ? ", and the agent's share" : ""}.</>
    ) : (
      <>
        <span className="block" data-testid="ruling-confirmation-amounts">
          The agent gets <strong>{usdc(amounts.agentNet)}</strong>
          {feeBps === null ? " less the fee" : amounts.fee > 0n ? ` (after the ${usdc(amounts.fee)} fee)` : ""}; the
          payer gets <strong>{usdc(amounts.payer)}</strong> back.
        </span>
        <span className="mt-2 block">The escrow is settled on chain as you rule. A ruling is final.</span>
      </>
    );
  return (
    <form action={action} className="space-y-3" key={state.attempt} data-testid="dispute-ruling-form">
      <input type="hidden" name="jobId" value={jobId} />
      <fieldset className="space-y-2" aria-describedby={state.fields?.outcome ? "ruling-outcome-error" : undefined}>
        <legend className="text-sm font-medium text-zinc-900 dark:text-zinc-100">
          Ruling on {budgetUsdc} USDC held in escrow
        </legend>
        {OUTCOMES.map((o) => (
          <label key={o.value} className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name="outcome"
              value={o.value}
              required
              checked={outcome === o.value}
              onChange={() => setOutcome(o.value)}
              className="mt-0.5 size-4"
            />
            <span>
              <span className="font-medium">{o.label}</span>{" "}
              <span className="text-zinc-600 dark:text-zinc-400">({o.hint})</span>
            </span>
          </label>
        ))}
        {state.fields?.outcome ? (
          <p id="ruling-outcome-error" className="text-xs font-medium text-red-600 dark:text-red-400">
            Choose an outcome.
          </p>
        ) : null}
      </fieldset>
      {/* Always in the page (a split chosen before the page's script runs still has its field). */}
      {outcome === null || outcome === "SPLIT" ? (
        <Field
          name="agentShare"
          label="Agent's share for a split (%)"
          required={outcome === "SPLIT"}
          error={state.fields?.agentShare}
          hint="Only for a split. The fee comes only out of the agent's share; the rest goes back to the poster."
        >
          {(p) => (
            <Input
              {...p}
              type="number"
              inputMode="numeric"
              min={DISPUTE_LIMITS.agentShareMin}
              max={DISPUTE_LIMITS.agentShareMax}
              step={1}
              value={share}
              onChange={(e) => setShare(e.target.value)}
            />
          )}
        </Field>
      ) : null}
      {amounts ? (
        <p className="text-sm" data-testid="ruling-amounts">
          The agent gets {usdc(amounts.agentNet)}
          {feeBps === null ? " less the fee" : ""}, the payer gets {usdc(amounts.payer)}.
        </p>
      ) : null}
      <Field
        name="reason"
        label="Why"
        required
        error={state.fields?.reason}
        hint="Both sides see it; an operator's ruling is written to the audit log."
      >
        {(p) => (
          <Textarea
            {...p}
            rows={3}
            minLength={DISPUTE_LIMITS.rulingReasonMin}
            maxLength={DISPUTE_LIMITS.rulingReasonMax}
            defaultValue={state.values?.reason}
          />
        )}
      </Field>
      <ConfirmSubmit
        variant="danger"
        pendingLabel="Ruling…"
        confirmTitle="Rule on this dispute?"
        confirmMessage={confirmation}
        confirmLabel="Rule"
      >
        Rule
      </ConfirmSubmit>
      {state.error ? (
        <Alert tone="error">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
      ) : null}
    </form>
  );
}
