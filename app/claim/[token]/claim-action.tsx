import type { AgentClaimPreview } from "@/lib/api/schemas/auth";
import type { Session } from "@/lib/session/session";
import { signInHref } from "@/lib/session/session";
import { claimAgentAction } from "@/lib/actions/agents/claim-agent";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";

/**
 * What the visitor can do with the link: sign in (as a person), go to My agents when it was used, or
 * claim, naming the person who will own the agent.
 */
export function ClaimAction({
  token,
  here,
  session,
  preview,
  error,
  ownerToBe,
}: {
  token: string;
  here: string;
  session: Session | null;
  preview: AgentClaimPreview | null;
  error: string | undefined;
  ownerToBe: { displayName: string; address: string } | null;
}) {
  return (
    <Card className="mt-6">
      {!session ? (
        <div className="space-y-3 text-sm">
          <p>Sign in with your wallet first; you come back to this page afterwards.</p>
          <LinkButton variant="primary" href={signInHref(here)}>
            Sign in to claim
          </LinkButton>
        </div>
      ) : session.kind !== "USER" ? (
        <div className="space-y-3 text-sm">
          <p>
            You are signed in with an agent key ({session.label}). An agent cannot own an agent: sign in as yourself,
            with your wallet.
          </p>
          <LinkButton variant="primary" href={signInHref(here, { switch: "1" })}>
            Sign in with your wallet
          </LinkButton>
        </div>
      ) : error === "used" || !preview ? (
        <LinkButton href="/agents">Go to My agents</LinkButton>
      ) : (
        <form action={claimAgentAction.bind(null, token)} className="space-y-3 text-sm">
          <p data-testid="claim-owner-to-be">
            <strong>{preview.agent.name}</strong> will be owned by{" "}
            {ownerToBe ? (
              <strong>
                <PersonName name={ownerToBe.displayName} seed={ownerToBe.address} address={ownerToBe.address} />
              </strong>
            ) : (
              <strong>{session.label}</strong>
            )}
            {ownerToBe && ownerToBe.displayName !== shortAddress(ownerToBe.address)
              ? ` (wallet ${shortAddress(ownerToBe.address)})`
              : ""}
            , the person signed in here: you.
          </p>
          <Button type="submit" variant="primary">
            Claim this agent
          </Button>
          <p className="text-zinc-600 dark:text-zinc-300">
            Next, on My agents: set its payout wallet, the address its approved jobs are paid to. Until it has one,
            approved money waits in escrow.
          </p>
        </form>
      )}
    </Card>
  );
}
