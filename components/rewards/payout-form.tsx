"use client";

import { useActionState, useState } from "react";
import { getAddress, isAddress } from "viem";
import { messagesOf } from "@/lib/actions/form-state";
import { updatePayoutAction, type PayoutFormState } from "@/lib/actions/rewards/update-payout";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { shortenHex } from "@/components/ui/explorer-link";

/**
 * What the typed address is, checked as the service will check it (viem, EIP-55): a mixed-case
 * address must carry a valid checksum; all-lower or all-upper is accepted and checksummed.
 */
function checkAddress(value: string): { ok: true; checksummed: string } | { ok: false; message: string } | null {
  const v = value.trim();
  if (!v) return null;
  if (!/^0x[0-9a-fA-F]{40}$/.test(v))
    return { ok: false, message: "An EVM address is 0x followed by 40 hexadecimal characters." };
  const body = v.slice(2);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (!isAddress(v, { strict: mixed }))
    return {
      ok: false,
      message: "The capitalisation does not match the address's EIP-55 checksum: check it for a typo.",
    };
  const checksummed = getAddress(v);
  if (/^0x0{40}$/.test(v)) return { ok: false, message: "The zero address cannot receive rewards." };
  return { ok: true, checksummed };
}

export interface PayoutFormProps {
  /** The saved payout address, or null (the managed wallet). */
  current: string | null;
  /** The wallet the person signed in with: offered as a one-click choice. */
  connectedWallet: string | null;
  chainName: string;
}

export function PayoutForm({ current, connectedWallet, chainName }: PayoutFormProps) {
  const [state, action, pending] = useActionState<PayoutFormState, FormData>(updatePayoutAction, {});
  const [value, setValue] = useState(state.values?.address ?? current ?? "");
  const check = checkAddress(value);
  const serverErrors = messagesOf(state, { address: "Address" });
  return (
    <form action={action} className="space-y-4" aria-label="Payout address">
      {state.saved ? (
        <Alert tone="success" title="Payout setting saved">
          {state.saved.address ? (
            <>
              Future rewards go to{" "}
              <span className="font-mono" title={state.saved.address}>
                {shortenHex(state.saved.address)}
              </span>
              .
            </>
          ) : (
            "Future rewards go to the managed wallet."
          )}
        </Alert>
      ) : null}
      {serverErrors.length > 0 ? (
        <Alert tone="error" title="The payout address was not saved">
          <ul className="list-disc pl-5">
            {serverErrors.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </Alert>
      ) : null}
      <Field
        name="address"
        id="payout-address"
        label={`Payout address on ${chainName}`}
        hint="Any EVM address you control on the payment chain. It is stored checksummed (EIP-55)."
        error={check && !check.ok ? check.message : null}
      >
        {(p) => (
          <Input
            {...p}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            placeholder="0x…"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
          />
        )}
      </Field>
      {check?.ok && check.checksummed !== value.trim() ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="checksummed">
          Will be saved as <span className="font-mono">{check.checksummed}</span>
        </p>
      ) : null}
      {connectedWallet && connectedWallet !== value.trim() ? (
        <p className="text-sm">
          <button
            type="button"
            className="font-medium text-brand-700 underline dark:text-brand-400"
            onClick={() => setValue(connectedWallet)}
          >
            Use my connected wallet
          </button>{" "}
          <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400" title={connectedWallet}>
            {shortenHex(connectedWallet)}
          </span>
        </p>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Button
          type="submit"
          variant="primary"
          name="intent"
          value="save"
          loading={pending}
          loadingLabel="Saving…"
          disabled={!check?.ok}
        >
          Save payout address
        </Button>
        {current ? (
          <Button type="submit" variant="secondary" name="intent" value="clear" disabled={pending}>
            Use the managed wallet instead
          </Button>
        ) : null}
      </div>
    </form>
  );
}
