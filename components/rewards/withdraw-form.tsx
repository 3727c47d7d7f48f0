"use client";

import { useActionState } from "react";
import { messagesOf } from "@/lib/actions/form-state";
import { withdrawAction, type WithdrawFormState } from "@/lib/actions/rewards/create-withdrawal";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";

/** Withdrawing from the managed wallet to an address of the owner's choice. */
export function WithdrawForm({ balanceUsdc, defaultTo }: { balanceUsdc: string; defaultTo: string | null }) {
  const [state, action, pending] = useActionState<WithdrawFormState, FormData>(withdrawAction, {});
  return (
    <form action={action} className="space-y-4" aria-label="Withdraw from the managed wallet">
      {state.done ? (
        <Alert tone="success" title="Withdrawal sent">
          {state.done.amountUsdc} USDC to <span className="font-mono">{state.done.toAddress}</span>:{" "}
          {state.done.status.toLowerCase()}
          {state.done.txHash ? (
            <>
              {" "}
              (<span className="font-mono">{state.done.txHash}</span>)
            </>
          ) : null}
          .
        </Alert>
      ) : null}
      {messagesOf(state).length > 0 ? (
        <Alert tone="error" title="The withdrawal was refused">
          <ul className="list-disc pl-5">
            {messagesOf(state, { toAddress: "To address", amountUsdc: "Amount" }).map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </Alert>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-[3fr_1fr]">
        <Field name="toAddress" id="withdraw-to" label="To address" required>
          {(p) => (
            <Input
              {...p}
              defaultValue={defaultTo ?? ""}
              placeholder="0x…"
              autoComplete="off"
              spellCheck={false}
              className="font-mono"
            />
          )}
        </Field>
        <Field name="amountUsdc" id="withdraw-amount" label="Amount (USDC)" hint={`At most ${balanceUsdc}`} required>
          {(p) => <Input {...p} inputMode="decimal" defaultValue={balanceUsdc} autoComplete="off" />}
        </Field>
      </div>
      <Button type="submit" variant="secondary" loading={pending} loadingLabel="Sending…">
        Withdraw
      </Button>
    </form>
  );
}
