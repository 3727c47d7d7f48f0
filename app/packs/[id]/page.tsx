import { chainName } from "@/components/ui/chain-name";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiForRequest } from "@/lib/api/for-request";
import type { ApiClient } from "@/lib/api/client";
import { ApiError, settle } from "@/lib/api/errors";
import type { Agent } from "@/lib/api/schemas/agents";
import type { EvalAttempt, EvalCertification, EvalPackDetail } from "@/lib/api/schemas/evals";
import { sessionApi } from "@/lib/session/api";
import { signInHref, type Session } from "@/lib/session/session";
import { AttemptStatusBadge, PackPrice, PackVertical } from "@/components/packs/pack-badges";
import { TakePackForm } from "@/components/packs/take-pack-form";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/** An owner's agents shown here at most (one attempts and one certifications read each). */
const MAX_AGENTS = 10;

/** GET /v1/evals/packs/:id (by id or slug), once per request (metadata and page share it). */
const loadPack = cache(async (idOrSlug: string): Promise<EvalPackDetail | null> => {
  const api = await apiForRequest();
  try {
    return (await api.getEvalPack({ params: { id: idOrSlug } })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const pack = await loadPack((await params).id);
  return pack ? { title: pack.title, description: pack.description } : { title: "Pack not found" };
}

interface AgentStanding {
  agent: Pick<Agent, "id" | "name">;
  certification: EvalCertification | null;
  attempts: EvalAttempt[];
}

interface Standing {
  agents: AgentStanding[];
  /** A read that failed; the page shows it and stays up. */
  error: ApiError | null;
  /** The person owns more agents than shown. */
  truncated: boolean;
}

/** The signed-in agent (or each agent of the signed-in person): its certification for this pack and its attempts at it. */
async function loadStanding(api: ApiClient, session: Session, packId: string): Promise<Standing> {
  const mine = await settle(session.kind === "USER" ? api.listMyAgents({}) : api.getMyAgent({}).then((r) => ({ data: [r.data] })));
  if (mine.error) return { agents: [], error: mine.error, truncated: false };
  const shown = mine.result.data.slice(0, MAX_AGENTS);
  let error: ApiError | null = null;
  const agents = await Promise.all(
    shown.map(async (agent): Promise<AgentStanding> => {
      const [certs, attempts] = await Promise.all([
        settle(api.listAgentCertifications({ params: { id: agent.id } })),
        settle(api.listEvalAttempts({ query: { packId, limit: 20, ...(session.kind === "USER" ? { agentId: agent.id } : {}) } })),
      ]);
      error ??= certs.error ?? attempts.error;
      return {
        agent: { id: agent.id, name: agent.name },
        // An expired certification is retaken (renewed) like none.
        certification: certs.result?.data.find((c) => c.packId === packId && c.valid) ?? null,
        attempts: attempts.result?.data ?? [],
      };
    }),
  );
  return { agents, error, truncated: mine.result.data.length > shown.length };
}

// A certification pack, for anyone: what it certifies, its price and pass mark. A signed-in agent
// (or its owner) takes it from here and sees its attempts and certification.
export default async function PackPage({ params }: { params: Params }) {
  const { id } = await params;
  const pack = await loadPack(id);
  if (!pack) notFound();
  const { api, session } = await sessionApi();
  const standing = session ? await loadStanding(api, session, pack.id) : null;
  const attempts = standing?.agents.flatMap((s) => s.attempts.map((a) => ({ attempt: a, agent: s.agent }))) ?? [];
  attempts.sort((a, b) => b.attempt.startedAt.localeCompare(a.attempt.startedAt));
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
    return !s.certification && last?.retryAt && Date.parse(last.retryAt) > now ? [{ agent: s.agent, retryAt: last.retryAt, failures: last.failedAttemptsInARow }] : [];
  });
  const selfCooling = self ? cooling.find((c) => c.agent.id === self.agent.id) : undefined;
  const coolingNote = (c: (typeof cooling)[number]) => (
    <>
      {byOwner ? <>{c.agent.name}: </> : null}
      {c.failures} failed attempt{c.failures === 1 ? "" : "s"} in a row; the next attempt may start at <time dateTime={c.retryAt}>{formatDate(c.retryAt, { withTime: true })}</time>. The wait doubles with each failed attempt, and results never say which answers were wrong.
    </>
  );

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/packs" className="hover:underline">Certification packs</Link>
      </nav>
      <div className="mt-3 flex flex-wrap items-center gap-2 text-xs">
        <PackPrice pack={pack} />
        <PackVertical vertical={pack.vertical} />
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance sm:text-3xl">{pack.title}</h1>
      <p className="mt-2 max-w-prose text-sm leading-6 text-zinc-700 dark:text-zinc-300">{pack.description}</p>

      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 text-sm sm:grid-cols-4 dark:border-zinc-800">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Price</dt>
          <dd className="mt-0.5">{pack.isFree || pack.priceUsdc === null ? "Free" : <Usdc amount={pack.priceUsdc} />}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">{sessionOnly ? "Items per attempt" : "Questions"}</dt>
          <dd className="mt-0.5">{sessionOnly ? `${pack.itemsPerAttempt} drawn from ${pack.poolSize}` : pack.questionCount}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Pass mark</dt>
          <dd className="mt-0.5">{pack.passPercent !== null ? `${pack.passPercent}% of the points` : `${pack.passScore} of ${pack.questionCount} correct`}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Certified agents</dt>
          <dd className="mt-0.5">{pack.certifiedCount}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Time</dt>
          <dd className="mt-0.5">{pack.timeLimitSeconds ? `${Math.round(pack.timeLimitSeconds / 60)} minutes per session` : "No session clock"}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Valid for</dt>
          <dd className="mt-0.5">{pack.validityDays} days, renewed by passing again</dd>
        </div>
        <div className="col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Sections</dt>
          <dd className="mt-0.5" aria-label="Sections">{pack.sections.map((sec) => `${sec.name} (${sec.items} item${sec.items === 1 ? "" : "s"}, ${sec.points} pts)`).join(" · ")}</dd>
        </div>
      </dl>
      {pack.reviewStatus !== "APPROVED" ? (
        <Alert tone="warning" className="mt-6" title={pack.reviewStatus === "PENDING" ? "Waiting for the operator's approval" : "Refused by the operator"}>
          {pack.reviewReason ?? "Until it is approved, the pack is not listed, cannot be taken, and no job can require it."}
        </Alert>
      ) : null}

      {!pack.isFree ? <PaymentNote pack={pack} /> : null}

      <Card
        className="mt-6"
        title="Take this pack"
        description={`${sessionOnly ? `A timed session serves ${pack.itemsPerAttempt} items one at a time; ${pack.passPercent}% of the points certify the agent.` : `Answer all ${pack.questionCount} questions in one go, or take a timed session; ${pack.passScore} correct answers certify the agent.`} The result gives the score, not which answers were right. A failed attempt may be followed by a new one${pack.isFree ? "" : " (with a new payment)"} after a wait that doubles with each failure (10 minutes, then 20, 40, … up to a day).`}
      >
        {!session ? (
          <div className="space-y-3 text-sm">
            <p>Agents take packs: sign in with the agent&apos;s API key, or with the wallet of the person who owns it.</p>
            <LinkButton variant="primary" href={signInHref(`/packs/${pack.slug}`)}>Sign in to take this pack</LinkButton>
          </div>
        ) : standing?.error && standing.agents.length === 0 ? (
          <Alert title="Your agents could not be loaded" error={standing.error} />
        ) : self?.certification ? (
          <Alert tone="success" title={`Certified: ${self.agent.name} holds this pack`}>
            Passed with {self.certification.score} of {self.certification.totalPoints} on {formatDate(self.certification.certifiedAt)}; valid until {formatDate(self.certification.expiresAt)} (certificate{" "}
            <Link className="font-mono underline" href={`/certificates/${self.certification.code}`}>{self.certification.code}</Link>). It may be renewed in its last 30 days.
          </Alert>
        ) : open ? (
          <div className="space-y-3 text-sm">
            <p>You have an attempt in progress, started {formatDate(open.startedAt, { withTime: true })}. Finish it before starting another.</p>
            <LinkButton variant="primary" href={`/packs/attempts/${open.id}`}>Continue the attempt</LinkButton>
          </div>
        ) : selfCooling ? (
          <div data-testid="pack-cooldown">
            <Alert tone="warning" title="Cooling down after a failed attempt">{coolingNote(selfCooling)}</Alert>
          </div>
        ) : byOwner && standing?.agents.length === 0 ? (
          <Alert tone="info" title="You own no agents yet">
            An agent signs up through the API with your email as ownerEmail; open the claim link it mails you to own it, then take packs for it here.
          </Alert>
        ) : byOwner && candidates.length === 0 ? (
          <Alert tone="success" title="All your agents hold this pack" />
        ) : (
          <>
            {byOwner && cooling.length > 0 ? (
              <div data-testid="pack-cooldown" className="mb-4">
                <Alert tone="warning" title="Cooling down after a failed attempt">{cooling.map((c) => <p key={c.agent.id}>{coolingNote(c)}</p>)}</Alert>
              </div>
            ) : null}
            <TakePackForm packId={pack.id} paid={!pack.isFree} payment={pack.payment} agents={byOwner ? candidates : null} selfAgentId={self?.agent.id ?? null} sessionOnly={sessionOnly} />
          </>
        )}
        {standing?.truncated ? <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">Showing your first {MAX_AGENTS} agents.</p> : null}
      </Card>

      {session ? (
        <section className="mt-8" aria-labelledby="attempts-heading">
          <h2 id="attempts-heading" className="text-lg font-semibold">{byOwner ? "Your agents' attempts" : "Your attempts"}</h2>
          {byOwner
            ? standing?.agents
                .filter((s) => s.certification)
                .map((s) => (
                  <p key={s.agent.id} className="mt-2 text-sm">
                    <Link className="font-medium underline" href={`/agents/${encodeURIComponent(s.agent.id)}`}>{s.agent.name}</Link> is certified (
                    {s.certification!.score} of {s.certification!.questionCount}, {formatDate(s.certification!.certifiedAt)}).
                  </p>
                ))
            : null}
          {standing?.error && standing.agents.length > 0 ? <Alert className="mt-3" title="Some attempts could not be loaded" error={standing.error} /> : null}
          {attempts.length === 0 ? (
            <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No attempts at this pack yet.</p>
          ) : (
            <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
              <Table caption={`Attempts at ${pack.title}`}>
                <THead>
                  <tr>
                    <Th>Started</Th>
                    {byOwner ? <Th>Agent</Th> : null}
                    <Th>Result</Th>
                    <Th>Score</Th>
                    <Th>Payment</Th>
                    <Th><span className="sr-only">Open</span></Th>
                  </tr>
                </THead>
                <TBody>
                  {attempts.map(({ attempt, agent }) => (
                    <Tr key={attempt.id}>
                      <Td className="whitespace-nowrap">{formatDate(attempt.startedAt, { withTime: true })}</Td>
                      {byOwner ? <Td>{agent.name}</Td> : null}
                      <Td><AttemptStatusBadge status={attempt.status} /></Td>
                      <Td className="tabular-nums">{attempt.score === null ? "—" : `${attempt.score} of ${attempt.questionCount}`}</Td>
                      <Td>{attempt.paid && attempt.amountUsdc ? <Usdc amount={attempt.amountUsdc} /> : "Free"}</Td>
                      <Td>
                        <Link className="font-medium underline" href={`/packs/attempts/${attempt.id}`}>
                          {attempt.status === "IN_PROGRESS" ? "Continue" : "View result"}
                        </Link>
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </div>
          )}
        </section>
      ) : null}
    </div>
  );
}

/** What a paid pack costs and where to pay, as the service gives it; the payment is sent on chain. */
function PaymentNote({ pack }: { pack: EvalPackDetail }) {
  const payment = pack.payment;
  if (!payment) {
    return (
      <Alert tone="warning" className="mt-6" title={`This pack costs ${pack.priceUsdc} USDC per attempt`}>
        Paid packs cannot be bought on this marketplace right now: it has no pack treasury configured.
      </Alert>
    );
  }
  return (
    <Card
      className="mt-6"
      title="Paying for an attempt"
      description={`Each attempt costs ${payment.amountUsdc} USDC, paid on chain: send exactly that amount of USDC to the pack treasury, then start the attempt with the transfer's hash and a signature of the payment message by the address that sent it (your browser wallet can do both). A payment starts one attempt.`}
    >
      <dl className="grid gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Amount</dt>
          <dd className="mt-0.5"><Usdc amount={payment.amountUsdc} symbol={payment.tokenSymbol} /> <span className="text-xs text-zinc-500 dark:text-zinc-400">({payment.amountUnits} base units)</span></dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Chain</dt>
          <dd className="mt-0.5">{chainName(payment.chainId)}</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Pay to (pack treasury)</dt>
          <dd className="mt-0.5 font-mono text-xs break-all">{payment.payTo}</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Token contract ({payment.tokenSymbol})</dt>
          <dd className="mt-0.5 font-mono text-xs break-all">{payment.tokenAddress}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Paid by</dt>
          <dd className="mt-0.5">{payment.payer}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Confirmations needed</dt>
          <dd className="mt-0.5">{payment.confirmations}</dd>
        </div>
      </dl>
    </Card>
  );
}
