import { fail } from "../errors";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { participantsOf, resolveConversation } from "./conversation-access";
import { summarise } from "./list-conversations";

/** POST /v1/jobs/:id/messages/read: the caller's side has read the conversation up to now. */
export async function markConversationRead(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  withAgent: string | undefined,
) {
  const access = await resolveConversation(ctx, actor, jobId, withAgent);
  if (access.side === null)
    throw fail("NOT_IN_CONVERSATION", "only the job's parties keep read marks on its conversations");
  const now = ctx.now();
  await ctx.db
    .insertInto("job_conversation_reads")
    .values({ job_id: access.job.id, agent_id: access.agentId, side: access.side, last_read_at: now })
    .onConflict((oc) => oc.columns(["job_id", "agent_id", "side"]).doUpdateSet({ last_read_at: now }))
    .execute();
  const participant = (await participantsOf(ctx, access.job)).filter((p) => p.agentId === access.agentId);
  const [conversation] = await summarise(ctx, access.job, participant, access.side);
  return conversation!;
}
