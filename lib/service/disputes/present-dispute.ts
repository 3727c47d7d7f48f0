import type { Selectable } from "kysely";
import type { z } from "zod";
import type { DisputeCase, DisputeCaseSummary, DisputeStatement } from "@/lib/api/schemas/disputes";
import { formatUsdc, normaliseDecimal } from "@/lib/chain/units";
import type { Actor } from "../auth/actor";
import { requireOperator } from "../auth/operator";
import type { ServiceContext } from "../context";
import type { DisputeEvidenceTable, DisputeStatementsTable, EscrowSettlementsTable } from "../db/schema";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { listJobEvents } from "../jobs/job-timeline";
import { getJobRowWithLapse } from "../jobs/read-job";
import {
  arbiterOf,
  canRule,
  caseAccessOf,
  getCaseRowOrThrow,
  requireCaseReader,
  type DisputeCaseRow,
} from "./case-access";

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const units = (v: string | null) => (v === null ? null : formatUsdc(BigInt(v)));

export function presentStatement(
  s: Selectable<DisputeStatementsTable>,
  evidence: Array<Selectable<DisputeEvidenceTable>>,
): z.input<typeof DisputeStatement> {
  return {
    id: s.id,
    side: s.side,
    author: { kind: s.author_kind, id: s.author_id },
    body: s.body,
    createdAt: s.created_at.toISOString(),
    evidence: evidence.map((e) => ({
      id: e.id,
      url: e.url,
      status: e.status,
      reason: e.reason,
      httpStatus: e.http_status,
      finalUrl: e.final_url,
      contentSha256: e.content_sha256,
      checkedAt: iso(e.checked_at),
    })),
  };
}

type SummaryRow = DisputeCaseRow & { title: string; budget_usdc: string; outcome: string | null };

function presentSummary(row: SummaryRow): z.input<typeof DisputeCaseSummary> {
  return {
    id: row.id,
    jobId: row.job_id,
    jobTitle: row.title,
    budgetUsdc: normaliseDecimal(row.budget_usdc),
    status: row.status,
    openedBy: row.opened_by_side,
    reason: row.reason,
    arbiter: arbiterOf(row),
    evaluatorAddress: row.evaluator_address,
    answerDeadlineAt: row.answer_deadline_at.toISOString(),
    rulingDeadlineAt: row.ruling_deadline_at.toISOString(),
    escalatedAt: iso(row.escalated_at),
    ruledAt: iso(row.ruled_at),
    outcome: row.outcome as z.input<typeof DisputeCaseSummary>["outcome"],
    createdAt: row.created_at.toISOString(),
  };
}

function presentSettlement(s: Selectable<EscrowSettlementsTable> | undefined) {
  if (!s) return null;
  const confirmed = s.status === "CONFIRMED";
  return {
    kind: s.kind,
    status: s.status,
    txHash: s.tx_hash as `0x${string}` | null,
    agentAmountUsdc: confirmed && s.kind !== "REFUND" ? units(s.amount_units) : null,
    feeUsdc: confirmed ? units(s.fee_units) : null,
    payerAmountUsdc: confirmed
      ? s.kind === "REFUND"
        ? units(s.amount_units)
        : s.kind === "SPLIT"
          ? units(s.payer_amount_units)
          : null
      : null,
    lastError: s.last_error,
    confirmedAt: iso(s.confirmed_at),
  };
}

/**
 * GET /v1/jobs/:id/dispute: the whole case for its parties, the job's evaluator and the operator:
 * statements with their evidence probes, the ruling and its settlement's receipt, the
 * deliverable's whole proof-check history and the job's timeline.
 */
export async function getDispute(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
): Promise<z.input<typeof DisputeCase>> {
  const job = await getJobRowWithLapse(ctx, jobId);
  const kase = await getCaseRowOrThrow(ctx, jobId);
  const access = await caseAccessOf(ctx, actor, job, kase);
  requireCaseReader(access);

  const [statements, evidence, ruling, checks, timeline] = await Promise.all([
    ctx.db
      .selectFrom("dispute_statements")
      .selectAll()
      .where("case_id", "=", kase.id)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    ctx.db
      .selectFrom("dispute_evidence")
      .selectAll()
      .where("case_id", "=", kase.id)
      .orderBy("created_at")
      .orderBy("id")
      .execute(),
    ctx.db.selectFrom("dispute_rulings").selectAll().where("case_id", "=", kase.id).executeTakeFirst(),
    ctx.db
      .selectFrom("proof_checks")
      .selectAll()
      .where("job_id", "=", jobId)
      .orderBy("checked_at")
      .orderBy("id")
      .execute(),
    listJobEvents(ctx, actor, jobId, { limit: 500 }),
  ]);
  const settlement = ruling?.settlement_id
    ? await ctx.db
        .selectFrom("escrow_settlements")
        .selectAll()
        .where("id", "=", ruling.settlement_id)
        .executeTakeFirst()
    : undefined;
  const now = ctx.now();
  return {
    ...presentSummary({ ...kase, title: job.title, budget_usdc: job.budget_usdc, outcome: ruling?.outcome ?? null }),
    statements: statements.map((s) =>
      presentStatement(
        s,
        evidence.filter((e) => e.statement_id === s.id),
      ),
    ),
    ruling: ruling
      ? {
          outcome: ruling.outcome,
          agentShare: ruling.agent_share,
          arbiter: ruling.arbiter,
          ruledBy: ruling.ruled_by_address,
          reason: ruling.reason,
          createdAt: ruling.created_at.toISOString(),
          settlement: presentSettlement(settlement),
        }
      : null,
    deliverable:
      typeof job.output_data?.url === "string"
        ? { url: job.output_data.url, submittedAt: job.submitted_at?.toISOString() ?? null, proofHash: job.proof_hash }
        : null,
    proofChecks: checks.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      url: r.url,
      trigger: r.trigger,
      status: r.status,
      reason: r.reason,
      httpStatus: r.http_status,
      finalUrl: r.final_url,
      contentSha256: r.content_sha256,
      checkedAt: r.checked_at.toISOString(),
    })),
    timeline: timeline.items,
    viewer: {
      role: access.side ?? (access.evaluator ? "EVALUATOR" : "OPERATOR"),
      can: {
        addStatement:
          access.side !== null && kase.status !== "RULED" && now.getTime() <= kase.answer_deadline_at.getTime(),
        rule: canRule(access, kase),
      },
    },
  };
}

type CaseListQuery = { status?: "OPEN" | "ESCALATED" | "RULED"; limit?: number; cursor?: string };

/** GET /v1/disputes: the operator's queue, newest first, optionally by status. */
export async function listDisputes(ctx: ServiceContext, actor: Actor, query: CaseListQuery) {
  await requireOperator(ctx, actor);
  return listCases(ctx, query, null);
}

/**
 * GET /v1/me/cases: the cases a person was named to decide (the jobs whose evaluator_address is
 * their address), newest first. An agent key is never an evaluator: its list is empty.
 */
export async function listMyCases(ctx: ServiceContext, actor: Actor, query: CaseListQuery) {
  if (actor.kind !== "USER") return { items: [], meta: pageOf([], query.limit ?? 50, () => ({ k: "", id: "" })).meta };
  const user = await ctx.db
    .selectFrom("users")
    .select("address")
    .where("id", "=", actor.userId)
    .executeTakeFirstOrThrow();
  return listCases(ctx, query, user.address.toLowerCase());
}

async function listCases(ctx: ServiceContext, query: CaseListQuery, evaluatorAddress: string | null) {
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("dispute_cases as c")
    .innerJoin("jobs as j", "j.id", "c.job_id")
    .leftJoin("dispute_rulings as r", "r.case_id", "c.id")
    .selectAll("c")
    .select(["j.title", "j.budget_usdc", "r.outcome"]);
  if (query.status) q = q.where("c.status", "=", query.status);
  if (evaluatorAddress !== null) q = q.where("c.evaluator_address", "=", evaluatorAddress);
  if (after) q = q.where(keysetAfter(after, "c.created_at", "c.id", "desc"));
  const rows = await q
    .orderBy("c.created_at", "desc")
    .orderBy("c.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return { items: page.rows.map(presentSummary), meta: page.meta };
}
