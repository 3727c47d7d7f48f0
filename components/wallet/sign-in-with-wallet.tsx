"use client";

import { useMemo, useState } from "react";
import { useRouter } from "next/navigation";
import { createSiweMessage } from "viem/siwe";
import { ConnectButton, RainbowKitAuthenticationProvider, RainbowKitProvider, createAuthenticationAdapter, type AuthenticationStatus } from "@rainbow-me/rainbowkit";

export interface SignInActions {
  createNonce: () => Promise<string>;
  verify: (message: string, signature: string) => Promise<boolean>;
  signOut: () => Promise<void>;
}

/**
 * Sign-In with Ethereum through RainbowKit's authentication adapter. The nonce comes from the
 * service; the signed message goes back to a server action that has the service verify it and seals
 * the resulting token into the session cookie. The page only learns "signed in: yes or no".
 */
export function SignInWithWallet({ actions, returnTo }: { actions: SignInActions; returnTo: string }) {
  const router = useRouter();
  const [status, setStatus] = useState<AuthenticationStatus>("unauthenticated");
  const [failed, setFailed] = useState(false);
  const adapter = useMemo(
    () =>
      createAuthenticationAdapter<string>({
        getNonce: actions.createNonce,
        createMessage: ({ nonce, address, chainId }) =>
          createSiweMessage({
            domain: window.location.host,
            uri: window.location.origin,
            address,
            chainId,
            nonce,
            version: "1",
            statement: "Sign in to AgentWork",
          }),
        verify: async ({ message, signature }) => {
          const ok = await actions.verify(message, signature);
          setFailed(!ok);
          if (ok) {
            setStatus("authenticated");
            router.push(returnTo);
            router.refresh();
          }
          return ok;
        },
        signOut: async () => {
          await actions.signOut();
          setStatus("unauthenticated");
        },
      }),
    [actions, returnTo, router],
  );
  return (
    <RainbowKitAuthenticationProvider adapter={adapter} status={status}>
      <RainbowKitProvider>
        <ConnectButton label="Connect wallet to sign in" showBalance={false} />
        {failed ? <p role="alert" className="mt-3 text-sm text-red-600">The service refused the signature. Request a new message and sign again.</p> : null}
      </RainbowKitProvider>
    </RainbowKitAuthenticationProvider>
  );
}
