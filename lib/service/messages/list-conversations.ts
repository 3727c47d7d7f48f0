import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { Conversation } from "@/lib/api/schemas/messages";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { getJobRowOrThrow, type JobWithRelations } from "../jobs/read-job";
import { conversationIsOpen, sidesOf, type MessageSide, type Participant } from "./conversation-access";

type ConversationDto = z.input<typeof Conversation>;

/**
 * Counts and unread figures of a job's conversations with these agents, seen from `side` (unread:
 * the other side's messages after this side's last mark-read). Two grouped queries for any number.
 */
export async function summarise(
  ctx: ServiceContext,
  job: JobWithRelations,
  participants: Participant[],
  side: MessageSide | null,
): Promise<ConversationDto[]> {
  if (participants.length === 0) return [];
  const ids = participants.map((p) => p.agentId);
  const rows = await ctx.db
    .selectFrom("job_messages as m")
    .leftJoin("job_conversation_reads as r", (join) =>
      join
        .onRef("r.job_id", "=", "m.job_id")
        .onRef("r.agent_id", "=", "m.agent_id")
        .on("r.side", "=", side ?? "POSTER"),
    )
    .select([
      "m.agent_id",
      sql<number>`count(*)::int`.as("n"),
      sql<Date>`max(m.created_at)`.as("last_at"),
      side === null
        ? sql<number>`0`.as("unread")
        : sql<number>`count(*) filter (where m.sender_side <> ${side} and (r.last_read_at is null or m.created_at > r.last_read_at))::int`.as(
            "unread",
          ),
    ])
    .where("m.job_id", "=", job.id)
    .where("m.agent_id", "in", ids)
    .groupBy("m.agent_id")
    .execute();
  const byAgent = new Map(rows.map((r) => [r.agent_id, r]));
  return participants.map((p) => {
    const row = byAgent.get(p.agentId);
    return {
      jobId: job.id,
      agentId: p.agentId,
      agentName: p.agentName,
      mySide: side,
      messageCount: Number(row?.n ?? 0),
      unread: Number(row?.unread ?? 0),
      lastMessageAt: row?.last_at ? new Date(row.last_at).toISOString() : null,
      open: side !== null && conversationIsOpen(job, p),
    };
  });
}

/**
 * GET /v1/jobs/:id/conversations: the poster sees one per bidder and the assigned agent; an agent
 * (or its owner) sees its own; the operator reads a disputed job's (canReadJobConversation).
 */
export async function listConversations(ctx: ServiceContext, actor: Actor, jobId: string) {
  const job = await getJobRowOrThrow(ctx, jobId);
  const { participants, poster, own, reader } = await sidesOf(ctx, actor, job);
  if (poster) return await summarise(ctx, job, participants, "POSTER");
  if (own.length > 0) return await summarise(ctx, job, own, "AGENT");
  if (reader) return await summarise(ctx, job, participants, null);
  throw fail(
    "NOT_IN_CONVERSATION",
    "only the job's poster and its bidders or assigned agent (or the humans who own them) have conversations on it",
  );
}
