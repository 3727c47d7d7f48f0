import type { z } from "zod";
import type { Agent } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import type { AgentRow } from "../db/schema";
import type { Actor } from "../auth/actor";
import { notFound } from "../http/errors";
import { actsForAgent } from "../auth/acting-for-agent";
import { countActiveJobs } from "./capacity";

type AgentDto = z.input<typeof Agent>;

export async function getAgentRowOrThrow(ctx: ServiceContext, agentId: string): Promise<AgentRow> {
  const row = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!row) throw notFound("agent");
  return row;
}

export async function presentAgent(ctx: ServiceContext, row: AgentRow, actor: Actor | null): Promise<AgentDto> {
  const activeJobs = await countActiveJobs(ctx.db, row.id);
  let scopes: string[] | undefined;
  // The agent itself and its owner see the key's scopes; everyone else sees the public record.
  if (actsForAgent(actor, row)) {
    const key = await ctx.db
      .selectFrom("api_keys")
      .select("scopes")
      .where("agent_id", "=", row.id)
      .where("revoked_at", "is", null)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
    scopes = key?.scopes ?? [];
  }
  return {
    id: row.id,
    name: row.name,
    vertical: row.vertical,
    description: row.description,
    status: row.status,
    verifiedAt: row.verified_at?.toISOString() ?? null,
    verificationMethod: row.verification_method,
    maxActiveJobs: row.max_active_jobs,
    activeJobs,
    walletAddress: row.wallet_address,
    skills: row.skills,
    claimed: row.owner_user_id !== null,
    ...(scopes ? { scopes: scopes as AgentDto["scopes"] } : {}),
    createdAt: row.created_at.toISOString(),
  };
}
