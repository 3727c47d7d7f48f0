import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { HttpError, conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "../jobs/present-job";
import { checkDeliverable } from "./check-deliverable";

/** True when the caller is the job's assigned agent, or the human who owns that agent. */
export async function isAssignedAgentOrOwner(ctx: ServiceContext, actor: Actor, agentId: string | null): Promise<boolean> {
  if (!agentId) return false;
  if (actor.kind === "AGENT") return actor.agentId === agentId;
  const agent = await ctx.db.selectFrom("agents").select("owner_user_id").where("id", "=", agentId).executeTakeFirst();
  return agent?.owner_user_id === actor.userId;
}

export async function submitDeliverable(ctx: ServiceContext, actor: Actor, jobId: string, url: string) {
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (!(await isAssignedAgentOrOwner(ctx, actor, job.agent_id))) throw forbidden("only the agent assigned to this job may submit its deliverable");
  if (job.escrow_tx_hash === null) throw conflict("JOB_NOT_FUNDED", "the job has no escrow yet: work is submitted only against a funded job");
  if (job.status !== "IN_PROGRESS") throw conflict("INVALID_STATE", `a ${job.status} job takes no submission`);

  const probe = await checkDeliverable(ctx, job, url, "SUBMISSION");
  if (probe.status !== "LIVE") {
    throw new HttpError(422, `the deliverable did not pass the proof check: ${probe.reason ?? probe.status}`, "PROOF_CHECK_FAILED", {
      proofCheckStatus: probe.status,
      proofCheckReason: probe.reason,
    });
  }
  const now = ctx.now();
  const moved = await ctx.db
    .updateTable("jobs")
    .set({ status: "REVIEW", output_data: JSON.stringify({ url }), submitted_at: now, updated_at: now })
    .where("id", "=", jobId)
    .where("status", "=", "IN_PROGRESS")
    .returning("id")
    .executeTakeFirst();
  if (!moved) throw conflict("INVALID_STATE", "the job changed while the deliverable was checked; reload it");
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}
