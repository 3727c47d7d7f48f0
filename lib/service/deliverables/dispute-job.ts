import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "../jobs/present-job";
import { isAssignedAgentOrOwner } from "./submit-deliverable";

export async function disputeJob(ctx: ServiceContext, actor: Actor, jobId: string, reason: string) {
  const job = await ctx.db.selectFrom("jobs").select(["id", "poster_id", "agent_id", "status"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  const isPoster = job.poster_id === actor.principalId;
  if (!isPoster && !(await isAssignedAgentOrOwner(ctx, actor, job.agent_id))) throw forbidden("only the poster or the assigned agent may dispute this job");
  if (job.status !== "IN_PROGRESS" && job.status !== "REVIEW") throw conflict("INVALID_STATE", `a ${job.status} job cannot be disputed`);
  const now = ctx.now();
  await ctx.db
    .updateTable("jobs")
    .set({ status: "DISPUTED", disputed_at: now, dispute_reason: reason, updated_at: now })
    .where("id", "=", jobId)
    .where("status", "in", ["IN_PROGRESS", "REVIEW"])
    .execute();
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}
