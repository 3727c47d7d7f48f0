import { fail } from "../errors";
import { randomUUID } from "node:crypto";
import { CompiledQuery, sql } from "kysely";
import type { z } from "zod";
import type { PlaceBidRequest } from "@/lib/api/schemas/bids";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { isUniqueViolation } from "../db/errors";
import { presentBid } from "./present-bid";
import { actsForAgent } from "../auth/acting-for-agent";
import { assertPrincipalNotSuspended } from "../auth/suspension";
import type { BidRow, JobRow } from "../db/schema";
import { JOB_COLUMNS } from "../jobs/read-job";
import { assertBeforeDeadline, assertBidAllowedByJobRules } from "./bid-rules";
import { assertEscrowExpiryCovers, escrowExpiryNeededForPlan } from "../jobs/escrow-expiry";
import { expireForumRewardBid } from "./bid-refund";
import { eventRow } from "../events/publish-event";
import { assertPlanFitsBudget, assertScaledPlanPayable } from "../jobs/milestone-plan";
import { assertDeadlinesAhead } from "../jobs/deadlines";

/**
 * One bid per agent per job, forever: the unique constraint decides, so that 20 parallel requests
 * give exactly one bid and a withdrawn, rejected or expired bid still blocks a second one.
 *
 * A plain bid (placePlainBid) is placed in one statement; anything else, and every refusal, takes
 * the general path below, which reads the bid's facts and judges them rule by rule.
 */
export async function placeBid(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof PlaceBidRequest>,
) {
  const placed = await placePlainBid(ctx, actor, jobId, input);
  if (placed) return presentBid(placed);
  return placeBidByRules(ctx, actor, jobId, input);
}

/**
 * The plain bid, in one statement: an agent's own key bids on an OPEN job in participation mode
 * BID, with no plan of parts on either side, no certification required and no EscrowV2 slot
 * expiring before the job's need. The statement reads the agent and the job and inserts the bid and its bid.created notice
 * only where every condition below holds; each is the plain case of a rule whose home is the general
 * path (placeBidByRules), never a rule of its own. So it places a bid only where the general path
 * would, and where it places none (a refusal, or a bid that is not plain) the general path runs and
 * answers as always. One round trip instead of two, and a statement compiled once: bids are the
 * busiest write (npm run bench, the writes line).
 */
async function placePlainBid(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof PlaceBidRequest>,
): Promise<BidRow | null> {
  // The agent's own key (an owner's session acts for its agent on the general path), and no plan.
  if (actor.kind !== "AGENT" || !actsForAgent(actor, { id: input.agentId, owner_user_id: null })) return null;
  if (input.milestones) return null;
  try {
    const { rows } = await ctx.db.executeQuery<BidRow>(
      CompiledQuery.raw(PLAIN_BID, [
        input.agentId,
        jobId,
        ctx.now(),
        input.proposedUsdc,
        randomUUID(),
        input.coverLetter ?? null,
        asStoredUsdc(input.proposedUsdc),
      ]),
    );
    return rows[0] ?? null;
  } catch (error) {
    // A second bid raced this one in: the general path reads it and refuses (BID_ALREADY_PLACED).
    if (isUniqueViolation(error, "bids_one_per_agent_per_job")) return null;
    throw error;
  }
}

/**
 * $1 agent id, $2 job id, $3 now, $4 proposed price, $5 the new bid's id, $6 cover letter, $7 the
 * price as the numeric(20, 6) column reads back (the notice's proposedUsdc).
 */
export const PLAIN_BID = `
  with bidder as (
    select agents.id, agents.name, agents.principal_id
    from agents join principals on principals.id = agents.principal_id
    where agents.id = $1
      and agents.status = 'ACTIVE'                          -- AGENT_NOT_ACTIVE
      and principals.suspended_at is null                   -- AGENT_SUSPENDED (auth/suspension.ts)
  ),
  job as (
    select jobs.id, coalesce(poster_agent.id, jobs.poster_id::text) as poster_recipient_id
    from bidder, jobs
    left join agents as poster_agent on poster_agent.principal_id = jobs.poster_id
    where jobs.id = $2::uuid
      and jobs.status = 'OPEN'                              -- JOB_NOT_OPEN
      and (jobs.deadline_at is null or jobs.deadline_at > $3::timestamptz)   -- DEADLINE_PASSED (bid-rules.ts)
      and jobs.poster_id <> bidder.principal_id             -- OWN_JOB
      and jobs.participation_mode = 'BID'                   -- bounties, forum reward slots (bid-rules.ts, bid-refund.ts)
      and jobs.required_pack_id is null                     -- PACK_REQUIRED (bid-rules.ts)
      and (jobs.escrow_tx_hash is null or jobs.budget_usdc = $4::numeric)    -- BID_AMOUNT_MISMATCH
      -- ESCROW_EXPIRY_TOO_SHORT (jobs/escrow-expiry.ts): a slot reaching what the job needs is
      -- enough (the rule may need less, never more), and anything else is judged there.
      and (jobs.escrow_version is distinct from 2 or jobs.escrow_expires_at is null
           or jobs.escrow_expiry_needed_at is null or jobs.escrow_expires_at >= jobs.escrow_expiry_needed_at)
      and not exists (select 1 from job_milestones where job_milestones.job_id = jobs.id)  -- a plan to scale (jobs/milestone-plan.ts)
      and not exists (select 1 from bids where bids.job_id = jobs.id and bids.agent_id = bidder.id)  -- BID_ALREADY_PLACED
  ),
  placed as (
    insert into bids (id, job_id, agent_id, proposed_usdc, cover_letter, status)
    select $5::uuid, job.id, bidder.id, $4::numeric, $6::text, 'PENDING' from job, bidder
    returning *
  ),
  -- The poster's notice (events/publish-event.ts, eventRow): to posterRecipientId (events/recipients.ts).
  announced as (
    insert into domain_events (type, job_id, recipient_ids, actor_id, data)
    select 'bid.created', placed.job_id, array[job.poster_recipient_id], placed.agent_id,
           jsonb_build_object('bidId', placed.id, 'jobId', placed.job_id, 'agentId', placed.agent_id,
                              'agentName', bidder.name, 'proposedUsdc', $7::text)
    from placed, job, bidder
  )
  select * from placed`;

/** Every bid the plain path does not place: its facts read in one statement, judged rule by rule, then inserted. */
async function placeBidByRules(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof PlaceBidRequest>,
) {
  // The bidder (the caller's own agent; the body may only name it, never someone else's), the job,
  // this agent's earlier bid on it and who hears of the bid, in one read: bids are the busiest
  // write, and each round trip on it counts.
  const read = await ctx.db
    .selectFrom("agents as bidder")
    .innerJoin("principals as bidder_principal", "bidder_principal.id", "bidder.principal_id")
    .leftJoin("jobs", (join) => join.on("jobs.id", "=", jobId))
    .leftJoin("bids as earlier", (join) =>
      join.onRef("earlier.job_id", "=", "jobs.id").onRef("earlier.agent_id", "=", "bidder.id"),
    )
    .leftJoin("agents as poster_agent", "poster_agent.principal_id", "jobs.poster_id")
    .select(JOB_COLUMNS)
    .select([
      "bidder.id as bidder_id",
      "bidder.principal_id as bidder_principal_id",
      "bidder.name as bidder_name",
      "bidder.status as bidder_status",
      "bidder.owner_user_id as bidder_owner_user_id",
      "bidder_principal.kind as bidder_kind",
      "bidder_principal.suspended_at as bidder_suspended_at",
      "bidder_principal.suspension_reason as bidder_suspension_reason",
      "earlier.id as existing_bid_id",
      "earlier.status as existing_bid_status",
      // posterRecipientId's rule (events/recipients.ts) in the same read: a job posted by an agent is
      // told to that agent (its webhooks; its owner's inbox), else to the human poster.
      sql<string>`coalesce(poster_agent.id, jobs.poster_id::text)`.as("poster_recipient_id"),
      // The job's plan (its parts' amounts in order), which a bid at another price scales.
      sql<
        string | null
      >`(select string_agg(amount_usdc::text, ',' order by position) from job_milestones where job_id = jobs.id)`.as(
        "plan_amounts",
      ),
    ])
    .where("bidder.id", "=", input.agentId)
    .executeTakeFirst();
  // As ownAgentOrThrow and assertNotSuspended answer, in their order, then the job.
  const refused = () => fail("FORBIDDEN", "agentId must be your own agent");
  if (!read) throw refused();
  const agent = {
    id: read.bidder_id,
    principal_id: read.bidder_principal_id,
    name: read.bidder_name,
    status: read.bidder_status,
    owner_user_id: read.bidder_owner_user_id,
  };
  if (!actsForAgent(actor, agent)) throw refused();
  assertPrincipalNotSuspended({
    kind: read.bidder_kind,
    suspended_at: read.bidder_suspended_at,
    suspension_reason: read.bidder_suspension_reason,
  });
  const {
    bidder_id: _id,
    bidder_principal_id: _principal,
    bidder_name: _name,
    bidder_status: _status,
    bidder_owner_user_id: _owner,
    bidder_kind: _kind,
    bidder_suspended_at: _suspended,
    bidder_suspension_reason: _reason,
    existing_bid_id,
    existing_bid_status,
    poster_recipient_id,
    plan_amounts,
    ...jobColumns
  } = read;
  if (jobColumns.id === null) throw fail("NOT_FOUND", "job not found");
  // Every column of the job, present since the job is (the left join only made them nullable).
  const job = jobColumns as JobRow;

  if (existing_bid_id) {
    throw fail(
      "BID_ALREADY_PLACED",
      `agent ${agent.id} already has a bid on this job (status ${existing_bid_status}); one bid per agent per job`,
      { existingBidId: existing_bid_id },
    );
  }
  if (job.status !== "OPEN") throw fail("JOB_NOT_OPEN", `the job is ${job.status} and takes no bids`);
  assertBeforeDeadline(job, ctx.now());
  if (agent.status !== "ACTIVE")
    throw fail(
      "AGENT_NOT_ACTIVE",
      "the agent is PENDING_PROOF; send POST /v1/agents/heartbeat to activate it before bidding",
    );
  if (job.poster_id === agent.principal_id) throw fail("OWN_JOB", "an agent cannot bid on its own job");
  // Forum reward slots take no bids: the bid is recorded EXPIRED and refunded (BID_REFUND).
  if (job.participation_mode === "AUTOMATIC_FORUM_REWARD") return expireForumRewardBid(ctx, job, agent, input);
  await assertBidAllowedByJobRules(ctx, job, agent);
  if (job.escrow_tx_hash !== null && parseUsdc(input.proposedUsdc) !== parseUsdc(job.budget_usdc)) {
    throw fail(
      "BID_AMOUNT_MISMATCH",
      `the job is funded: proposedUsdc must equal the locked gross budget ${Number(job.budget_usdc)}`,
    );
  }

  // A proposed plan adds up to the bid's price exactly, as a job's plan adds up to its budget;
  // without one, the job's plan scales to the price at acceptance, and no part may fall below the floor.
  if (input.milestones) assertPlanFitsBudget(input.milestones, input.proposedUsdc, "milestones (to proposedUsdc)");
  if (input.milestones) assertDeadlinesAhead(ctx.now(), { milestones: input.milestones });
  else if (plan_amounts) assertScaledPlanPayable(plan_amounts.split(","), input.proposedUsdc);
  // A funded EscrowV2 deposit must outlast the work bid for (the bid's own plan when it has one).
  assertEscrowExpiryCovers(
    job,
    input.milestones ? escrowExpiryNeededForPlan(ctx.config, job, input.milestones) : undefined,
  );

  try {
    // The bid and the poster's notice of it (bid.created) commit together, in one statement: the
    // bid's id is chosen here so that the notice can name it, and its amount is written as the
    // numeric(20, 6) column reads back.
    const bidId = randomUUID();
    const row = await ctx.db
      .with("announced", (db) =>
        db.insertInto("domain_events").values(
          eventRow({
            type: "bid.created",
            jobId,
            to: [poster_recipient_id],
            actorId: agent.id,
            data: {
              bidId,
              jobId,
              agentId: agent.id,
              agentName: agent.name,
              proposedUsdc: asStoredUsdc(input.proposedUsdc),
            },
          }),
        ),
      )
      .insertInto("bids")
      .values({
        id: bidId,
        job_id: jobId,
        agent_id: agent.id,
        proposed_usdc: input.proposedUsdc,
        cover_letter: input.coverLetter ?? null,
        milestones: input.milestones ? JSON.stringify(input.milestones) : null,
        status: "PENDING",
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return presentBid(row);
  } catch (error) {
    if (isUniqueViolation(error, "bids_one_per_agent_per_job")) {
      throw fail("BID_ALREADY_PLACED", `agent ${agent.id} already has a bid on this job; one bid per agent per job`);
    }
    throw error;
  }
}

/** A DecimalString (at most 6 decimals) as a numeric(20, 6) column gives it back: "40" is "40.000000". */
function asStoredUsdc(value: string): string {
  const [whole, fraction = ""] = value.split(".");
  return `${whole}.${fraction.padEnd(6, "0")}`;
}
