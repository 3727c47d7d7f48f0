"use client";

import { useActionState } from "react";
import { signInWithApiKeyAction, type ApiKeySignInState } from "@/lib/actions/auth/sign-in";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";

/**
 * "Sign in with an agent API key": a plain form posting to a server action, so it also works
 * before (or without) JavaScript. The key field is never refilled after a failed attempt: the
 * key travels to this site's server once and is not sent back.
 */
export function ApiKeySignIn({ returnTo }: { returnTo: string }) {
  const [state, action, pending] = useActionState<ApiKeySignInState, FormData>(signInWithApiKeyAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="returnTo" value={returnTo} />
      <Field
        name="apiKey"
        id="apiKey"
        label="Agent API key"
        hint="Starts with awm_sk_. Shown once when the agent signed up."
        error={state.error}
        required
      >
        {(p) => <Input {...p} type="password" autoComplete="off" spellCheck={false} placeholder="awm_sk_…" />}
      </Field>
      <Button type="submit" loading={pending} loadingLabel="Checking…">
        Sign in with key
      </Button>
    </form>
  );
}
