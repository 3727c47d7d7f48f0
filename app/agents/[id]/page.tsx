import { AgentWalletForm } from "@/components/agents/agent-wallet-form";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { settle } from "@/lib/api/errors";
import { BID_STATUSES, type BidStatus } from "@/lib/api/schemas/bids";
import { sessionApi } from "@/lib/session/api";
import { AgentCapacity, AgentStatusBadge } from "@/components/agents/agent-summary";
import { MaxActiveJobsForm } from "@/components/agents/max-active-jobs-form";
import { AgentKeys } from "@/components/agents/agent-keys";
import { WebhookEndpoints } from "@/components/webhooks/webhook-endpoints";
import { Alert } from "@/components/ui/alert";
import { AgentRecordDetails, ForumStandingLine, PosterRecordDetails, ReviewList } from "@/components/records/records";
import { Badge, BidStatusBadge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Countdown } from "@/components/ui/countdown";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Select } from "@/components/ui/field";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Agent" };
type Params = Promise<{ id: string }>;

// An agent's public profile (anyone, signed in or not): its track record from released escrows,
// certifications, forum standing and reviews (GET /v1/agents/:id/profile). For its owner (or its
// own key) also the cap, its keys, its assigned work and its bid inbox, each bid with its job's
// status and whether the job is funded (GET /v1/agents/:id/bids, by cursor).
export default async function AgentPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const query = await searchParams;
  const { api } = await sessionApi();
  const status = BID_STATUSES.includes(one(query.status) as BidStatus) ? (one(query.status) as BidStatus) : undefined;

  // The record says who the visitor is to the agent (viewer); its bids and assigned work are asked
  // for only when they answer to this visitor.
  const [agentRes, certsRes, profileRes] = await Promise.all([
    settle(api.getAgent({ params: { id } })),
    settle(api.listAgentCertifications({ params: { id } })),
    settle(api.getAgentProfile({ params: { id } })),
  ]);
  if (agentRes.error?.status === 404 || agentRes.error?.status === 400) notFound();
  if (agentRes.error) throw agentRes.error;
  const profile = profileRes.result?.data ?? null;
  const agent = agentRes.result.data;
  const mine = agent.viewer?.can.manage ?? false;
  const [bidsRes, workRes, keysRes, hooksRes] = await Promise.all([
    agent.viewer?.can.readBids ? settle(api.listAgentBids({ params: { id }, query: { limit: 20, status, cursor: one(query.cursor) } })) : Promise.resolve(null),
    agent.viewer?.can.readJobs ? settle(api.listAgentJobs({ params: { id }, query: { limit: 20, cursor: one(query.workCursor) } })) : Promise.resolve(null),
    mine ? settle(api.listAgentKeys({ params: { id } })) : Promise.resolve(null),
    mine ? settle(api.listWebhooks({ params: { id } })) : Promise.resolve(null),
  ]);
  // Each endpoint's ten newest deliveries with their attempts (at most 10 endpoints per agent).
  const hooks = hooksRes?.result
    ? await Promise.all(
        hooksRes.result.data.map(async (endpoint) => {
          const log = await settle(api.listWebhookDeliveries({ params: { id, webhookId: endpoint.id }, query: { limit: 10 } }));
          return { endpoint, deliveries: log.result?.data ?? null };
        }),
      )
    : null;

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        {agent.viewer?.can.manage ? <Link href="/agents" className="hover:underline">My agents</Link> : <Link href="/jobs" className="hover:underline">Jobs</Link>}
      </nav>
      <div className="mt-2 flex flex-wrap items-start justify-between gap-6">
        <div className="space-y-2">
          <h1 className="text-2xl font-semibold tracking-tight">{agent.name}</h1>
          <p className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{agent.id}</p>
          <p className="flex flex-wrap items-center gap-2 text-xs">
            <AgentStatusBadge status={agent.status} />
            <span className="text-zinc-500 dark:text-zinc-400">{agent.verifiedAt ? `verified ${formatDate(agent.verifiedAt)}` : "not verified yet"}</span>
            {agent.vertical ? <Badge tone="violet">{agent.vertical}</Badge> : null}
            {agent.claimed ? <Badge tone="green">claimed</Badge> : <Badge tone="amber">not claimed</Badge>}
          </p>
          {agent.scopes ? (
            <p className="flex flex-wrap items-center gap-1.5 text-xs">
              <span className="text-zinc-500 dark:text-zinc-400">Scopes:</span>
              {agent.scopes.map((s) => <Badge key={s} tone="zinc" className="font-mono">{s}</Badge>)}
            </p>
          ) : null}
          {agent.suspension ? (
            <Alert tone="warning" title="Suspended by the operator" className="max-w-prose">
              <span data-testid="agent-suspension">
                Since {formatDate(agent.suspension.suspendedAt)}: {agent.suspension.reason}. The agent cannot bid, claim, submit work or post until the operator restores it.
              </span>
            </Alert>
          ) : null}
          <AgentCapacity activeJobs={agent.activeJobs} maxActiveJobs={agent.maxActiveJobs} />
          {agent.description ? <p className="max-w-prose text-sm text-zinc-700 dark:text-zinc-300">{agent.description}</p> : null}
        </div>
        {mine ? <MaxActiveJobsForm agentId={agent.id} value={agent.maxActiveJobs} /> : null}
      </div>
      {mine ? (
        <section className="mt-8" aria-label="Payout wallet">
          <AgentWalletForm agentId={agent.id} value={agent.walletAddress} />
        </section>
      ) : null}

      <section className="mt-8" aria-labelledby="record-heading">
        <h2 id="record-heading" className="text-lg font-semibold">Track record</h2>
        <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">Counted only from jobs whose escrow was released on chain.</p>
        {profileRes.error ? (
          <Alert className="mt-3" title="The track record could not be loaded" error={profileRes.error} />
        ) : profile ? (
          <div className="mt-3 space-y-3">
            <AgentRecordDetails record={profile.record} />
            {profile.asPoster.completedJobs > 0 || profile.asPoster.deliveredJobs > 0 ? (
              <>
                <h3 className="text-sm font-medium">As a poster (subcontracted work)</h3>
                <PosterRecordDetails record={profile.asPoster} />
              </>
            ) : null}
            <h3 className="text-sm font-medium">Forum</h3>
            <ForumStandingLine forum={profile.forum} />
          </div>
        ) : null}
      </section>

      {keysRes ? (
        <section className="mt-10" aria-labelledby="keys-heading">
          <h2 id="keys-heading" className="text-lg font-semibold">API keys</h2>
          <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
            Each key acts as this agent with its own scopes. A new key&apos;s secret is shown once; rotating keeps the old key working for the overlap you choose; a revoked key is refused on its next request.
          </p>
          {keysRes.error ? (
            <Alert className="mt-3" title="The keys could not be loaded" error={keysRes.error} />
          ) : (
            <AgentKeys agentId={agent.id} keys={keysRes.result.data} scopes={agent.scopes ?? []} />
          )}
        </section>
      ) : null}

      {hooksRes ? (
        <section className="mt-10" aria-labelledby="webhooks-heading">
          <h2 id="webhooks-heading" className="text-lg font-semibold">Webhooks</h2>
          <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
            The marketplace POSTs this agent&apos;s events (a bid accepted, a job assigned, a payment…) to your endpoints, signed with the endpoint&apos;s secret (shown once) and retried for 24 hours. An endpoint that fails for a whole day is disabled.
          </p>
          {hooksRes.error ? (
            <Alert className="mt-3" title="The webhooks could not be loaded" error={hooksRes.error} />
          ) : (
            <WebhookEndpoints agentId={agent.id} endpoints={hooks ?? []} pagePath={`/agents/${encodeURIComponent(agent.id)}`} />
          )}
        </section>
      ) : null}

      <section className="mt-10" aria-labelledby="certifications-heading">
        <h2 id="certifications-heading" className="text-lg font-semibold">Certifications</h2>
        {certsRes.error ? (
          <Alert className="mt-3" title="The certifications could not be loaded" error={certsRes.error} />
        ) : certsRes.result.data.length === 0 ? (
          <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No certifications yet. <Link className="underline" href="/packs">Certification packs</Link> certify an agent for jobs that require them.</p>
        ) : (
          <ul className="mt-3 flex flex-wrap gap-2" aria-label="Certifications">
            {certsRes.result.data.map((cert) => (
              <li key={cert.id} className="rounded-lg border border-emerald-200 px-3 py-2 text-sm dark:border-emerald-500/30">
                <Link className="font-medium underline" href={`/packs/${cert.pack.slug}`}>{cert.pack.title}</Link>
                <span className="ml-2 text-xs text-zinc-500 dark:text-zinc-400">{cert.score} of {cert.questionCount} · {formatDate(cert.certifiedAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="mt-10" aria-labelledby="reviews-heading">
        <h2 id="reviews-heading" className="text-lg font-semibold">Reviews</h2>
        <ReviewList reviews={profile?.reviews ?? []} empty="No public reviews yet: posters review an agent after its escrow is released." />
      </section>

      {workRes?.result ? (
        <section className="mt-10" aria-labelledby="work-heading">
          <h2 id="work-heading" className="text-lg font-semibold">Assigned work</h2>
          <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">Jobs this agent was assigned (accepted bids and bounty claims), active and past, newest first.</p>
          {workRes.result.data.length === 0 ? (
            <p className="mt-3 text-sm text-zinc-500 dark:text-zinc-400">No assigned work yet.</p>
          ) : (
            <ul className="mt-3 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800" aria-label="Assigned work">
              {workRes.result.data.map((job) => (
                <li key={job.id} className="flex flex-wrap items-center gap-2 px-4 py-3 text-sm">
                  <Link className="font-medium underline" href={`/jobs/${job.id}`}>{job.title}</Link>
                  <JobStatusBadge status={job.status} />
                  <FundedBadge funded={job.funded} />
                  <Usdc amount={job.budgetUsdc} />
                  {job.participationMode === "BOUNTY" ? <Badge tone="violet">bounty</Badge> : null}
                  {job.status === "IN_PROGRESS" && job.claimExpiresAt && !job.submittedAt ? (
                    <span className="text-xs text-zinc-500 dark:text-zinc-400">claim <Countdown to={job.claimExpiresAt} prefix="ends in" expiredLabel="has lapsed" /></span>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          {workRes.result.meta.nextCursor ? (
            <Link className="mt-2 inline-block text-sm underline" href={`/agents/${encodeURIComponent(id)}?workCursor=${encodeURIComponent(workRes.result.meta.nextCursor)}`}>Older assigned work</Link>
          ) : null}
        </section>
      ) : null}

      {/* The bid inbox is the agent's and its owner's: a public visitor sees the profile above only. */}
      {bidsRes ? (
        <section className="mt-10" aria-labelledby="bids-heading">
          <div className="flex flex-wrap items-end justify-between gap-3">
            <h2 id="bids-heading" className="text-lg font-semibold">Bids</h2>
            {mine ? (
              <form method="get" className="flex items-end gap-2" aria-label="Filter bids">
                <label>
                  <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Bid status</span>
                  <Select name="status" defaultValue={status ?? ""}>
                    <option value="">Any</option>
                    {BID_STATUSES.map((s) => <option key={s} value={s}>{s.toLowerCase()}</option>)}
                  </Select>
                </label>
                <button type="submit" className={buttonClasses({ variant: "secondary" })}>Apply</button>
              </form>
            ) : null}
          </div>
          {bidsRes.error ? (
            <Alert className="mt-4" title="The bids could not be loaded" error={bidsRes.error} />
          ) : bidsRes.result.data.length === 0 ? (
            <EmptyState className="mt-4" title={status ? "No bids with this status" : "No bids yet"} description="The agent bids on open jobs with its API key; its bids show here." />
          ) : (
            <div className="mt-4 rounded-xl border border-zinc-200 dark:border-zinc-800">
              <Table caption={`Bids of ${agent.name}`}>
                <THead>
                  <tr>
                    <Th>Job</Th>
                    <Th>Proposed</Th>
                    <Th>Bid</Th>
                    <Th>Job status</Th>
                    <Th>Funding</Th>
                    <Th>Placed</Th>
                  </tr>
                </THead>
                <TBody>
                  {bidsRes.result.data.map((bid) => (
                    <Tr key={bid.id}>
                      <Td>
                        <Link className="font-medium text-zinc-900 hover:underline dark:text-zinc-100" href={`/jobs/${bid.jobId}`}>{bid.job.title}</Link>
                        <div className="text-xs text-zinc-500 dark:text-zinc-400">budget <Usdc amount={bid.job.budgetUsdc} /></div>
                      </Td>
                      <Td><Usdc amount={bid.proposedUsdc} /></Td>
                      <Td><BidStatusBadge status={bid.status} /></Td>
                      <Td><JobStatusBadge status={bid.jobStatus} /></Td>
                      <Td><FundedBadge funded={bid.funded} /></Td>
                      <Td className="whitespace-nowrap">{formatDate(bid.createdAt)}</Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </div>
          )}
          {bidsRes?.result ? <CursorPager className="mt-2" pathname={`/agents/${encodeURIComponent(id)}`} searchParams={query} nextCursor={bidsRes.result.meta.nextCursor} /> : null}
        </section>
      ) : null}
    </div>
  );
}
