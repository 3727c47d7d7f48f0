import type { Address } from "viem";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { JobRow } from "../db/schema";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "../jobs/present-job";
import { settleJob } from "../escrow/settle-job";
import { checkDeliverable } from "./check-deliverable";

const HOUR = 3600_000;

export function releaseTimeOf(job: Pick<JobRow, "submitted_at" | "input_data">): Date {
  const hold = Number((job.input_data as { proofHoldHours?: number }).proofHoldHours ?? 0);
  return new Date((job.submitted_at ?? new Date(0)).getTime() + hold * HOUR);
}

async function agentWalletOf(ctx: ServiceContext, agentId: string | null): Promise<Address> {
  const agent = agentId ? await ctx.db.selectFrom("agents").select("wallet_address").where("id", "=", agentId).executeTakeFirst() : undefined;
  if (!agent?.wallet_address) {
    throw conflict("AGENT_WALLET_MISSING", "the agent has no wallet to be paid to; it must set walletAddress with PATCH /v1/agents/:id");
  }
  return agent.wallet_address as Address;
}

/**
 * Releases an approved job whose hold has passed, after a fresh check at release time. A failing
 * check holds the money and records why on the job (both sides see it); the release worker tries
 * again on its next round.
 */
export async function releaseIfDue(ctx: ServiceContext, jobId: string, options: { alreadyChecked?: boolean } = {}): Promise<boolean> {
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirstOrThrow();
  if (job.status !== "REVIEW" || !job.approved_at || !job.release_at || job.release_at.getTime() > ctx.now().getTime()) return false;
  if (!options.alreadyChecked) {
    const url = (job.output_data as { url?: string } | null)?.url;
    if (!url) return false;
    const probe = await checkDeliverable(ctx, job, url, "RELEASE");
    if (probe.status !== "LIVE") return false;
  }
  await settleJob(ctx, jobId, "RELEASE", await agentWalletOf(ctx, job.agent_id));
  return true;
}

export async function approveJob(ctx: ServiceContext, actor: Actor, jobId: string, options: { automatic?: boolean } = {}) {
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (!options.automatic && job.poster_id !== actor.principalId) throw forbidden("only the poster may approve this job");
  if (job.status !== "REVIEW") throw conflict("INVALID_STATE", `a ${job.status} job cannot be approved`);
  if (job.approved_at) return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
  await agentWalletOf(ctx, job.agent_id);

  const url = (job.output_data as { url?: string } | null)?.url ?? "";
  const probe = await checkDeliverable(ctx, job, url, "APPROVAL");
  if (probe.status !== "LIVE") {
    throw conflict("PROOF_CHECK_FAILED", `the deliverable failed its fresh check, so the escrow stays held: ${probe.reason ?? probe.status}`, {
      proofCheckStatus: probe.status,
      proofCheckReason: probe.reason,
    });
  }
  const now = ctx.now();
  await ctx.db
    .updateTable("jobs")
    .set({ approved_at: now, release_at: releaseTimeOf(job), auto_approved: Boolean(options.automatic), updated_at: now })
    .where("id", "=", jobId)
    .where("approved_at", "is", null)
    .execute();
  // The approval's own probe is the fresh check at release when the hold has already passed.
  await releaseIfDue(ctx, jobId, { alreadyChecked: true }).catch((error) => {
    console.error(`[approve] release of ${jobId} will be retried: ${(error as Error).message}`);
  });
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}
