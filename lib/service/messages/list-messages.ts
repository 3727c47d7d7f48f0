import type { z } from "zod";
import type { JobMessage, ListMessagesQuery } from "@/lib/api/schemas/messages";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import type { JobMessagesTable } from "../db/schema";
import type { Selectable } from "kysely";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { resolveConversation } from "./conversation-access";

export function presentMessage(row: Selectable<JobMessagesTable>): z.input<typeof JobMessage> {
  return {
    id: row.id,
    jobId: row.job_id,
    agentId: row.agent_id,
    senderSide: row.sender_side,
    senderId: row.sender_id,
    body: row.body,
    createdAt: row.created_at.toISOString(),
  };
}

/** GET /v1/jobs/:id/messages?with=: one conversation, oldest first, by keyset cursor. Reading does not mark it read. */
export async function listMessages(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  query: z.output<typeof ListMessagesQuery>,
) {
  const access = await resolveConversation(ctx, actor, jobId, query.with);
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("job_messages")
    .selectAll()
    .where("job_id", "=", access.job.id)
    .where("agent_id", "=", access.agentId);
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "asc"));
  const rows = await q
    .orderBy("created_at")
    .orderBy("id")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return { items: page.rows.map(presentMessage), meta: page.meta };
}
