import { fail } from "../errors";
import type { z } from "zod";
import type { Agent } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import type { AgentRow } from "../db/schema";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import { countActiveJobs } from "./capacity";
import { agentScopesOf } from "./agent-scopes";

type AgentDto = z.input<typeof Agent>;

export async function getAgentRowOrThrow(ctx: ServiceContext, agentId: string): Promise<AgentRow> {
  const row = await ctx.db.selectFrom("agents").selectAll().where("id", "=", agentId).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "agent not found");
  return row;
}

export async function presentAgent(ctx: ServiceContext, row: AgentRow, actor: Actor | null): Promise<AgentDto> {
  const [activeJobs, principal] = await Promise.all([
    countActiveJobs(ctx.db, row.id),
    ctx.db
      .selectFrom("principals")
      .select(["suspended_at", "suspension_reason"])
      .where("id", "=", row.principal_id)
      .executeTakeFirst(),
  ]);
  // An agent sees the scopes of the key it called with (it may have several); the owner sees the
  // agent's, which any key of it may hold. Everyone else sees the public record.
  let scopes: string[] | undefined;
  if (actsForAgent(actor, row)) scopes = actor!.kind === "AGENT" ? actor!.scopes : agentScopesOf(row);
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
    suspension: principal?.suspended_at
      ? { suspendedAt: principal.suspended_at.toISOString(), reason: principal.suspension_reason ?? "" }
      : null,
    createdAt: row.created_at.toISOString(),
  };
}
