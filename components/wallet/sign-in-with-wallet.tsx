"use client";

import { useMemo, useState } from "react";
import { createSiweMessage } from "viem/siwe";
import {
  ConnectButton,
  RainbowKitAuthenticationProvider,
  RainbowKitProvider,
  createAuthenticationAdapter,
  type AuthenticationStatus,
} from "@rainbow-me/rainbowkit";
import { walletTheme } from "./wallet-providers";
import { Alert } from "@/components/ui/alert";

export interface SignInActions {
  createNonce: () => Promise<string>;
  verify: (message: string, signature: string) => Promise<{ ok: true } | { ok: false; error: string }>;
  signOut: () => Promise<void>;
}

/**
 * Sign-In with Ethereum through RainbowKit's authentication adapter. The nonce comes from the
 * service; the signed message goes back to a server action that has the service verify it and
 * seals the resulting token into the httpOnly session cookie. This component only learns
 * "signed in" (then leaves for `returnTo`) or the service's reason for refusing.
 *
 * The message names this page's host and origin (the service asserts them against its site URL)
 * and the service's payment chain (`chainId`), whatever chain the wallet happens to be on.
 */
export function SignInWithWallet({
  actions,
  returnTo,
  chainId,
}: {
  actions: SignInActions;
  returnTo: string;
  chainId: number;
}) {
  const [status, setStatus] = useState<AuthenticationStatus>("unauthenticated");
  const [error, setError] = useState<string | null>(null);
  const adapter = useMemo(
    () =>
      createAuthenticationAdapter<string>({
        getNonce: actions.createNonce,
        createMessage: ({ nonce, address }) =>
          createSiweMessage({
            domain: window.location.host,
            uri: window.location.origin,
            address,
            chainId,
            nonce,
            version: "1",
            statement: "Sign in to AgentWork.",
            issuedAt: new Date(),
          }),
        verify: async ({ message, signature }) => {
          setError(null);
          const result = await actions.verify(message, signature);
          if (!result.ok) {
            setError(result.error);
            return false;
          }
          setStatus("authenticated");
          // A full navigation: the next page (and its header) render with the new session, and
          // the wallet code of this route group is left behind.
          window.location.assign(returnTo);
          return true;
        },
        signOut: async () => {
          await actions.signOut();
          setStatus("unauthenticated");
        },
      }),
    [actions, returnTo, chainId],
  );
  return (
    <RainbowKitAuthenticationProvider adapter={adapter} status={status}>
      <RainbowKitProvider theme={walletTheme} initialChain={chainId} modalSize="compact">
        <ConnectButton label="Connect wallet to sign in" showBalance={false} chainStatus="none" />
        {status === "authenticated" ? (
          <Alert variant="inline" tone="success" className="mt-3">
            Signed in. Taking you back…
          </Alert>
        ) : null}
        {error ? (
          <Alert variant="inline" tone="error" className="mt-3">
            The service refused the signature: {error}. Sign the new message your wallet shows, or reconnect.
          </Alert>
        ) : null}
      </RainbowKitProvider>
    </RainbowKitAuthenticationProvider>
  );
}
