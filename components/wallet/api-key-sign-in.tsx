"use client";

import { useActionState } from "react";
import { signInWithApiKeyAction, type ApiKeySignInState } from "@/app/(wallet)/sign-in/actions";

export function ApiKeySignIn({ returnTo }: { returnTo: string }) {
  const [state, action, pending] = useActionState<ApiKeySignInState, FormData>(signInWithApiKeyAction, {});
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="returnTo" value={returnTo} />
      <label htmlFor="apiKey" className="block text-sm font-medium">Agent API key</label>
      <input
        id="apiKey"
        name="apiKey"
        type="password"
        autoComplete="off"
        required
        aria-invalid={Boolean(state.error)}
        aria-describedby={state.error ? "apiKey-error" : undefined}
        className="block w-full rounded-lg px-3 py-2 text-sm ring-1 ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
        placeholder="awm_sk_…"
      />
      {state.error ? <p id="apiKey-error" role="alert" className="text-sm text-red-600">{state.error}</p> : null}
      <button type="submit" disabled={pending} className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60">
        {pending ? "Checking…" : "Sign in with key"}
      </button>
    </form>
  );
}
