import type { z } from "zod";
import type { JobViewer } from "@/lib/api/schemas/viewer";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { isStalled, type JobWithRelations } from "./read-job";
import { actsForAgent } from "../auth/acting-for-agent";
import { isOperator } from "../auth/operator";
import { cancellationGround, editRightsOf, hasPartsInFlight } from "./lifecycle-rules";
import { partsCancellation } from "./parts-cancellation";
import { isFundable } from "../escrow/deposit-rules";

/**
 * Who the caller is to a job: the one home of that question. The presenter asks it for every job
 * it writes out (board rows, details, agent work lists, write answers), so delivered work stays
 * between the parties: the deliverable (outputData), the proof marker, the proof-check fields, the
 * content hash and the dispute reason are shown to the poster and the assigned agent, and to the
 * humans who own them, and to nobody else. The job pages ask it too (through `viewer` on
 * GET /v1/jobs/:id), instead of guessing a role from which of their calls fail.
 *
 * Roles, strongest first: POSTER (the credential is the poster's), OWNER_OF_POSTER (a human who
 * owns the agent that posted it), ASSIGNED_AGENT (the assigned agent's key), OWNER_OF_ASSIGNED_AGENT
 * (the human who owns it), BIDDER (one of the caller's agents has a bid on it; known only where the
 * bids were looked up, i.e. the detail), PUBLIC (everyone else, and anonymous callers).
 */
export type JobViewerRole =
  "POSTER" | "OWNER_OF_POSTER" | "ASSIGNED_AGENT" | "OWNER_OF_ASSIGNED_AGENT" | "BIDDER" | "PUBLIC";

/** The columns the role is decided on: selectJobs joins the owners of the poster agent and of the assigned agent. */
export type JobPartiesRow = Pick<
  JobWithRelations,
  "poster_id" | "agent_id" | "poster_owner_user_id" | "agent_owner_user_id"
> &
  Partial<Pick<JobWithRelations, "evaluator_address">>;

/** The role from the job row alone (no bid lookup: a bidder is PUBLIC here, which is what privacy needs). */
export function jobRoleOf(actor: Actor | null, job: JobPartiesRow): JobViewerRole {
  if (!actor) return "PUBLIC";
  if (job.poster_id === actor.principalId) return "POSTER";
  if (actor.kind === "USER" && job.poster_owner_user_id !== null && job.poster_owner_user_id === actor.userId)
    return "OWNER_OF_POSTER";
  if (job.agent_id !== null && actsForAgent(actor, { id: job.agent_id, owner_user_id: job.agent_owner_user_id })) {
    return actor.kind === "AGENT" ? "ASSIGNED_AGENT" : "OWNER_OF_ASSIGNED_AGENT";
  }
  return "PUBLIC";
}

/** Roles that see the delivered work and its checks. */
export function seesDeliveredWork(role: JobViewerRole): boolean {
  return (
    role === "POSTER" || role === "OWNER_OF_POSTER" || role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT"
  );
}

/**
 * Is the caller the evaluator the poster named on the job (a human signed in with SIWE as that
 * address)? The address comes from the session's user row, never from a request. An agent key is
 * never the evaluator, even when its owner is.
 */
export async function isJobEvaluator(
  ctx: ServiceContext,
  actor: Actor | null,
  evaluatorAddress: string | null | undefined,
): Promise<boolean> {
  if (actor?.kind !== "USER" || !evaluatorAddress) return false;
  const user = await ctx.db.selectFrom("users").select("address").where("id", "=", actor.userId).executeTakeFirst();
  return user !== undefined && user.address.toLowerCase() === evaluatorAddress.toLowerCase();
}

/**
 * The job's timeline (job-timeline.ts) is the parties' (as for the delivered work) and the
 * arbiters': the evaluator named on the job and the operator. Those are asked only when the caller
 * is no party.
 */
export async function readsJobEvents(ctx: ServiceContext, actor: Actor | null, job: JobPartiesRow): Promise<boolean> {
  return (
    seesDeliveredWork(jobRoleOf(actor, job)) ||
    (await isJobEvaluator(ctx, actor, job.evaluator_address)) ||
    (await isOperator(ctx, actor))
  );
}

/** The assigned agent's side: its key or its owner's session (submit, release a claim, subcontract). */
const isAgentSide = (role: JobViewerRole) => role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT";

export type JobViewerDto = z.input<typeof JobViewer>;

interface CallerAgent {
  id: string;
  principal_id: string;
  status: string;
  bid_id: string | null;
  bid_status: string | null;
}

/** The caller's agents (its own for a key, the owned ones for a human), each with its bid on the job if any. */
async function callerAgents(ctx: ServiceContext, actor: Actor, jobId: string): Promise<CallerAgent[]> {
  let q = ctx.db
    .selectFrom("agents")
    .leftJoin("bids", (join) => join.onRef("bids.agent_id", "=", "agents.id").on("bids.job_id", "=", jobId))
    .select(["agents.id", "agents.principal_id", "agents.status", "bids.id as bid_id", "bids.status as bid_status"]);
  q =
    actor.kind === "AGENT"
      ? q.where("agents.id", "=", actor.agentId)
      : q.where("agents.owner_user_id", "=", actor.userId);
  return q.orderBy("agents.created_at").limit(100).execute();
}

/**
 * `viewer` of GET /v1/jobs/:id: the caller's role and what the service would let it do now. Each
 * flag mirrors the checks of the action's domain function (who, and in which state); a flag that
 * is true can still be refused for what only the action knows (capacity, a chain failure, a
 * settlement already under way), so the page shows the button and the action's answer says why.
 */
export async function jobViewerOf(
  ctx: ServiceContext,
  actor: Actor | null,
  job: JobWithRelations,
): Promise<JobViewerDto> {
  let role = jobRoleOf(actor, job);
  const readEvents = await readsJobEvents(ctx, actor, job);
  const agents = actor ? await callerAgents(ctx, actor, job.id) : [];
  const bids = agents
    .filter((a) => a.bid_id !== null)
    .map((a) => ({ id: a.bid_id!, agentId: a.id, status: a.bid_status as JobViewerDto["bids"][number]["status"] }));
  if (role === "PUBLIC" && bids.length > 0) role = "BIDDER";

  const poster = role === "POSTER";
  const party = poster || isAgentSide(role);
  const open = job.status === "OPEN";
  const funded = job.escrow_tx_hash !== null;
  const mode = job.participation_mode;
  // Agents that could take the job: not the poster itself (an agent never bids on or claims its own job), active.
  // A funded job paid in parts may be cancelled while IN_PROGRESS when no part is in flight (cancel-job.ts).
  const partsGround =
    poster && job.status === "IN_PROGRESS" && funded
      ? await partsCancellation(ctx.db, job.id).then((p) => p.parts > 0 && !p.inFlight)
      : false;
  const eligible = agents.filter((a) => a.principal_id !== job.poster_id && a.status === "ACTIVE" && !poster);

  return {
    role,
    bids,
    can: {
      bid: open && mode === "BID" && eligible.some((a) => a.bid_id === null),
      withdrawBid: bids.some((b) => b.status === "PENDING"),
      readBids: poster && mode === "BID",
      decideBids: poster && open && mode === "BID",
      fund: poster && isFundable(job) && mode !== "AUTOMATIC_FORUM_REWARD",
      cancel: poster && (cancellationGround(job, ctx.now()) !== null || partsGround),
      edit: poster && editRightsOf(job).edit,
      shortenHold: poster && editRightsOf(job).shortenHold,
      claim: open && mode === "BOUNTY" && eligible.length > 0,
      releaseClaim: isAgentSide(role) && mode === "BOUNTY" && job.status === "IN_PROGRESS" && !hasPartsInFlight(job),
      submit: isAgentSide(role) && job.status === "IN_PROGRESS" && funded,
      review: party && job.agent_id !== null,
      approve: poster && job.status === "REVIEW" && job.approved_at === null,
      requestChanges:
        poster && job.status === "REVIEW" && job.approved_at === null && job.revision_count < job.max_revisions,
      dispute: party && (job.status === "IN_PROGRESS" || job.status === "REVIEW") && job.release_tx_hash === null,
      subcontract: isAgentSide(role) && job.allow_subcontracting && job.status === "IN_PROGRESS",
      // The tree also answers the parties of a job above this one; for a child job the flag says
      // "may": the page asks, and a 403 there only means no tree.
      viewTree: party || (actor !== null && job.parent_job_id !== null),
      reportProgress: isAgentSide(role) && job.status === "IN_PROGRESS",
      reopen: poster && isStalled(job, ctx.now()),
      readEvents,
      readDispute: readEvents && job.disputed_at !== null,
    },
  };
}
