import type { AdminOverview, AdminSettlement } from "@/lib/api/schemas/admin";
import { ADMIN_JOB_STATUSES } from "@/lib/api/schemas/admin";
import type { ServiceContext, Worker } from "../context";
import type { Selectable } from "kysely";
import type { EscrowSettlementsTable } from "../db/schema";
import { checkHealth } from "../ops/check-health";
import { listOutgoingTransfers } from "./list-transfers";

/** GET /v1/admin/overview (the caller is checked by the route: requireOperator). */
export async function getAdminOverview(ctx: ServiceContext, workers: Worker[]): Promise<AdminOverview> {
  const [byStatus, settlements, health, reports, suspended, transfers] = await Promise.all([
    ctx.db
      .selectFrom("jobs")
      .select(["status", (eb) => eb.fn.countAll<string>().as("n")])
      .groupBy("status")
      .execute(),
    unfinishedSettlements(ctx),
    // The same answer as GET /v1/health, from the same code.
    checkHealth(ctx, workers),
    ctx.db
      .selectFrom("forum_reports")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("resolved_at", "is", null)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom("principals")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("suspended_at", "is not", null)
      .executeTakeFirstOrThrow(),
    listOutgoingTransfers(ctx),
  ]);
  return {
    generatedAt: ctx.now().toISOString(),
    jobsByStatus: ADMIN_JOB_STATUSES.map((status) => ({
      status,
      count: Number(byStatus.find((r) => r.status === status)?.n ?? 0),
    })),
    settlements,
    transfers,
    health,
    openReports: Number(reports.n),
    suspendedPrincipals: Number(suspended.n),
  };
}

/** Settlements PENDING or FAILED, whole jobs' and parts' alike, oldest first (up to 100). */
async function unfinishedSettlements(ctx: ServiceContext): Promise<AdminSettlement[]> {
  const [whole, parts] = await Promise.all([
    ctx.db
      .selectFrom("escrow_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .selectAll("s")
      .select("j.title as job_title")
      .where("s.status", "in", ["PENDING", "FAILED"])
      .orderBy("s.created_at", "asc")
      .limit(100)
      .execute(),
    ctx.db
      .selectFrom("milestone_settlements as s")
      .innerJoin("jobs as j", "j.id", "s.job_id")
      .innerJoin("job_milestones as m", "m.id", "s.milestone_id")
      .selectAll("s")
      .select(["j.title as job_title", "m.position"])
      .where("s.status", "in", ["PENDING", "FAILED"])
      .orderBy("s.created_at", "asc")
      .limit(100)
      .execute(),
  ]);
  return [
    ...whole.map((s) => presentSettlement(s, s.job_title)),
    ...parts.map((s) => presentSettlement(s, s.job_title, s.position)),
  ]
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .slice(0, 100);
}

/** The columns a whole job's and a part's settlement share (migration 0100). */
export type PresentableSettlement = Omit<
  Selectable<EscrowSettlementsTable>,
  "agent_share_units" | "payer_amount_units" | "reorg_resent_at" | "settled_outside"
>;

export function presentSettlement(
  s: PresentableSettlement,
  jobTitle: string,
  milestonePosition: number | null = null,
): AdminSettlement {
  return {
    id: s.id,
    jobId: s.job_id,
    jobTitle,
    milestonePosition,
    kind: s.kind,
    status: s.status,
    toAddress: s.to_address,
    attempts: s.attempts,
    lastError: s.last_error,
    leaseUntil: s.lease_until?.toISOString() ?? null,
    failedAt: s.failed_at?.toISOString() ?? null,
    failedToAddress: s.failed_to_address,
    failedReason: s.failed_reason,
    resettleCount: s.resettle_count,
    resettledAt: s.resettled_at?.toISOString() ?? null,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
  };
}
