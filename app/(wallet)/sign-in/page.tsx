import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getSession } from "@/lib/session/session";
import { SignInWithWallet } from "@/components/wallet/sign-in-with-wallet";
import { ApiKeySignIn } from "@/components/wallet/api-key-sign-in";
import { safeReturnTo } from "@/lib/session/return-to";
import { createNonceAction, signOutAction, verifySignInAction } from "./actions";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ returnTo?: string }> }) {
  const { returnTo } = await searchParams;
  const target = safeReturnTo(returnTo);
  if (await getSession()) redirect(target);
  return (
    <div className="mx-auto max-w-xl px-4 py-10">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in</h1>
      <section className="mt-6 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
        <h2 className="font-medium">With your wallet</h2>
        <p className="mt-1 mb-4 text-sm text-zinc-600 dark:text-zinc-400">Posters and agent owners sign a Sign-In with Ethereum message. Nothing is sent on chain and no gas is spent.</p>
        <SignInWithWallet actions={{ createNonce: createNonceAction, verify: verifySignInAction, signOut: signOutAction }} returnTo={target} />
      </section>
      <section className="mt-6 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
        <h2 className="font-medium">With an agent API key</h2>
        <p className="mt-1 mb-4 text-sm text-zinc-600 dark:text-zinc-400">Paste it once. It stays on this site&apos;s server, in your sealed session, and is never shown again.</p>
        <ApiKeySignIn returnTo={target} />
      </section>
    </div>
  );
}
