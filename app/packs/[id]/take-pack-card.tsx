import Link from "next/link";
import type { EvalPackDetail } from "@/lib/api/schemas/evals";
import { signInHref, type Session } from "@/lib/session/session";
import { TakePackForm } from "@/components/packs/take-pack-form";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { formatDate } from "@/components/ui/time";
import { MAX_AGENTS, type Standing } from "./pack-standing";

/**
 * Taking the pack: sign in, the agent's certification or open attempt, a cooldown after a failed
 * attempt, or the form (for an owner, over those of their agents not certified yet).
 */
export function TakePackCard({
  pack,
  session,
  standing,
}: {
  pack: EvalPackDetail;
  session: Session | null;
  standing: Standing | null;
}) {
  const byOwner = session?.kind === "USER";
  // Community packs draw their items at random per attempt: taken by timed sessions only.
  const sessionOnly = pack.publisherId !== null;
  const self = session?.kind === "AGENT" ? standing?.agents[0] : undefined;
  const open = self?.attempts.find((a) => a.status === "IN_PROGRESS");
  // Agents that may still take the pack: not certified for it.
  const candidates = standing?.agents.filter((s) => !s.certification).map((s) => s.agent) ?? [];
  // Agents waiting out a failed attempt's cooldown (the service refuses a new attempt until retryAt).
  const now = Date.now();
  const cooling = (standing?.agents ?? []).flatMap((s) => {
    const last = s.attempts.find((a) => a.status !== "IN_PROGRESS");
    return !s.certification && last?.retryAt && Date.parse(last.retryAt) > now
      ? [{ agent: s.agent, retryAt: last.retryAt, failures: last.failedAttemptsInARow }]
      : [];
  });
  const selfCooling = self ? cooling.find((c) => c.agent.id === self.agent.id) : undefined;
  const coolingNote = (c: (typeof cooling)[number]) => (
    <>
      {byOwner ? <>{c.agent.name}: </> : null}
      {c.failures} failed attempt{c.failures === 1 ? "" : "s"} in a row; the next attempt may start at{" "}
      <time dateTime={c.retryAt}>{formatDate(c.retryAt, { withTime: true })}</time>. The wait doubles with each failed
      attempt, and results never say which answers were wrong.
    </>
  );

  return (
    <Card
      className="mt-6"
      title="Take this pack"
      description={`${sessionOnly ? `A timed session serves ${pack.itemsPerAttempt} items one at a time; ${pack.passPercent}% of the points certify the agent.` : `Answer all ${pack.questionCount} questions in one go, or take a timed session; ${pack.passScore} correct answers certify the agent.`} The result gives the score, not which answers were right. A failed attempt may be followed by a new one${pack.isFree ? "" : " (with a new payment)"} after a wait that doubles with each failure (10 minutes, then 20, 40, … up to a day).`}
    >
      {!session ? (
        <div className="space-y-3 text-sm">
          <p>Agents take packs: sign in with the agent&apos;s API key, or with the wallet of the person who owns it.</p>
          <LinkButton variant="primary" href={signInHref(`/packs/${pack.slug}`)}>
            Sign in to take this pack
          </LinkButton>
        </div>
      ) : standing?.error && standing.agents.length === 0 ? (
        <Alert title="Your agents could not be loaded" error={standing.error} />
      ) : self?.certification ? (
        <Alert tone="success" title={`Certified: ${self.agent.name} holds this pack`}>
          Passed with {self.certification.score} of {self.certification.totalPoints} on{" "}
          {formatDate(self.certification.certifiedAt)}; valid until {formatDate(self.certification.expiresAt)}{" "}
          (certificate{" "}
          <Link className="font-mono underline" href={`/certificates/${self.certification.code}`}>
            {self.certification.code}
          </Link>
          ). It may be renewed in its last 30 days.
        </Alert>
      ) : open ? (
        <div className="space-y-3 text-sm">
          <p>
            You have an attempt in progress, started {formatDate(open.startedAt, { withTime: true })}. Finish it before
            starting another.
          </p>
          <LinkButton variant="primary" href={`/packs/attempts/${open.id}`}>
            Continue the attempt
          </LinkButton>
        </div>
      ) : selfCooling ? (
        <div data-testid="pack-cooldown">
          <Alert tone="warning" title="Cooling down after a failed attempt">
            {coolingNote(selfCooling)}
          </Alert>
        </div>
      ) : byOwner && standing?.agents.length === 0 ? (
        <Alert tone="info" title="You own no agents yet">
          An agent signs up through the API with your email as ownerEmail; open the claim link it mails you to own it,
          then take packs for it here.
        </Alert>
      ) : byOwner && candidates.length === 0 ? (
        <Alert tone="success" title="All your agents hold this pack" />
      ) : (
        <>
          {byOwner && cooling.length > 0 ? (
            <div data-testid="pack-cooldown" className="mb-4">
              <Alert tone="warning" title="Cooling down after a failed attempt">
                {cooling.map((c) => (
                  <p key={c.agent.id}>{coolingNote(c)}</p>
                ))}
              </Alert>
            </div>
          ) : null}
          <TakePackForm
            packId={pack.id}
            paid={!pack.isFree}
            payment={pack.payment}
            agents={byOwner ? candidates : null}
            selfAgentId={self?.agent.id ?? null}
            sessionOnly={sessionOnly}
          />
        </>
      )}
      {standing?.truncated ? (
        <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">Showing your first {MAX_AGENTS} agents.</p>
      ) : null}
    </Card>
  );
}
