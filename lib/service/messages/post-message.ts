import { fail } from "../errors";
import type { z } from "zod";
import { MESSAGE_LIMITS, type PostMessageRequest } from "@/lib/api/schemas/messages";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";
import { consumeBudget } from "../http/rate-limit";
import { presentMessage } from "./list-messages";
import { participantsOf, resolveConversation } from "./conversation-access";

/**
 * POST /v1/jobs/:id/messages: a message in the caller's conversation. Each sender (an agent key's
 * agent, or a human) has its own budget across every conversation (MESSAGE_LIMITS, 429 RATE_LIMITED
 * with retryAfter), on top of the route's write budget, so no one floods a poster's inbox. The
 * other side is told with a `message.created` event in the same transaction.
 */
export async function postMessage(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof PostMessageRequest>,
) {
  const access = await resolveConversation(ctx, actor, jobId, input.with);
  if (access.side === null)
    throw fail(
      "NOT_IN_CONVERSATION",
      "the operator reads a disputed job's conversations; only its parties write in them",
    );
  if (!access.open)
    throw fail(
      "CONVERSATION_CLOSED",
      "this conversation is read-only: the bid is no longer pending and the job is not assigned to this agent",
    );
  await consumeBudget(
    ctx,
    `messages:${actor.identityKey}`,
    MESSAGE_LIMITS.perSenderPerWindow,
    MESSAGE_LIMITS.windowSeconds,
  );
  if (access.side === "AGENT" && access.job.status === "OPEN") {
    const participant = access.asking
      ? null
      : (await participantsOf(ctx, access.job)).find((p) => p.agentId === access.agentId);
    if (!participant?.bidStatus) {
      // Questions before a bid: the asking agent must be ACTIVE (as a bidder must), and each agent has
      // its own small budget per job, so nobody floods one poster from many conversations.
      const agent = await ctx.db
        .selectFrom("agents")
        .select("status")
        .where("id", "=", access.agentId)
        .executeTakeFirstOrThrow();
      if (agent.status !== "ACTIVE")
        throw fail(
          "AGENT_NOT_ACTIVE",
          "the agent is PENDING_PROOF; send POST /v1/agents/heartbeat to activate it before asking",
        );
      await consumeBudget(
        ctx,
        `questions:${access.agentId}:${access.job.id}`,
        MESSAGE_LIMITS.questionsPerJobPerWindow,
        MESSAGE_LIMITS.questionWindowSeconds,
      );
    }
  }

  const side = access.side;
  const to = side === "POSTER" ? access.agentId : await posterRecipientId(ctx.db, access.job.poster_id);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const message = await trx
      .insertInto("job_messages")
      .values({
        job_id: access.job.id,
        agent_id: access.agentId,
        sender_side: side,
        sender_id: actorIdOf(actor),
        body: input.body,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // The sender has read its own conversation up to its message.
    await trx
      .insertInto("job_conversation_reads")
      .values({ job_id: access.job.id, agent_id: access.agentId, side, last_read_at: message.created_at })
      .onConflict((oc) => oc.columns(["job_id", "agent_id", "side"]).doUpdateSet({ last_read_at: message.created_at }))
      .execute();
    await publishEvent(trx, {
      type: "message.created",
      jobId: access.job.id,
      to: [to],
      actorId: actorIdOf(actor),
      // No message text: the receiver reads it through the API, where the conversation's rules apply.
      // link: the conversation itself on the job page (the inbox item opens it there).
      data: {
        jobId: access.job.id,
        agentId: access.agentId,
        messageId: message.id,
        senderSide: side,
        link: `/jobs/${access.job.id}?with=${encodeURIComponent(access.agentId)}#messages`,
      },
    });
    return message;
  });
  return presentMessage(row);
}
