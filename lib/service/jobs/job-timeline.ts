import { fail } from "../errors";
import { JOB_EVENT_TYPES, type JobEvent, type JobEventType } from "@/lib/api/schemas/job-events";
import { formatUsdc, normaliseDecimal } from "@/lib/chain/units";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { decodeCursor, pageOf } from "../http/pagination";
import { readsJobEvents, type JobPartiesRow } from "./job-viewer";
import { getJobRowWithLapse } from "./read-job";

/**
 * The job's timeline, the one place it is put together. It is derived from the rows the service
 * already keeps (jobs, bids, job_claims, proof_checks, job_criteria_results, escrow_settlements,
 * dispute_cases, dispute_statements, dispute_rulings, job_milestones, milestone_settlements,
 * job_change_requests)
 * rather than written by every domain function: an event appears only where a row records when it
 * happened. A cancellation has no timestamp of its own (the refund settlement shows it), and
 * criterion evaluations keep only their latest result, so neither is an event.
 *
 * Order: oldest first by (at, the type's place in JOB_EVENT_TYPES, id), so events of the same
 * millisecond come in the order they happen in a job's life and the order never changes between
 * reads. The cursor carries (at, id); the type is part of the id.
 */

type Event = Omit<JobEvent, "at"> & { at: Date };
type ActorRef = NonNullable<JobEvent["actor"]>;

const SYSTEM: ActorRef = { kind: "SYSTEM", id: null };
const agentActor = (agentId: string): ActorRef => ({ kind: "AGENT", id: agentId });
const rank = (type: JobEventType) => JOB_EVENT_TYPES.indexOf(type);
const EVENT_ID = new RegExp(`^(${JOB_EVENT_TYPES.map((t) => t.replace(".", "\\.")).join("|")}):[^\\s]{1,200}$`);

function compareEvents(
  a: { at: Date; type: JobEventType; id: string },
  b: { at: Date; type: JobEventType; id: string },
): number {
  return a.at.getTime() - b.at.getTime() || rank(a.type) - rank(b.type) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const units = (value: string | null) => (value === null ? null : formatUsdc(BigInt(value)));

/** Parties (poster, its owner, the assigned agent, its owner) and the arbiters (the job's evaluator, the operator): job-viewer.ts decides. */
async function requireTimelineReader(ctx: ServiceContext, actor: Actor, job: JobPartiesRow): Promise<void> {
  if (await readsJobEvents(ctx, actor, job)) return;
  throw fail(
    "FORBIDDEN",
    "only the job's poster, its assigned agent (or the humans who own them), its evaluator and the operator may read its timeline",
  );
}

/** Principals as actors: a human by its user id (= principal id), an agent by its agent id. */
async function actorsOf(ctx: ServiceContext, principalIds: string[]): Promise<Map<string, ActorRef>> {
  const ids = [...new Set(principalIds)];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom("principals")
    .leftJoin("agents", "agents.principal_id", "principals.id")
    .select(["principals.id", "principals.kind", "agents.id as agent_id"])
    .where("principals.id", "in", ids)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      r.kind === "AGENT" && r.agent_id ? agentActor(r.agent_id) : { kind: "USER" as const, id: r.id },
    ]),
  );
}

export async function listJobEvents(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  query: { limit?: number; cursor?: string },
) {
  const job = await getJobRowWithLapse(ctx, jobId);
  await requireTimelineReader(ctx, actor, job);
  const limit = query.limit ?? 100;
  const after = decodeCursor(query.cursor, EVENT_ID);
  const afterAt = after ? new Date(after.k) : null;

  // Proof checks can be many (a recheck every 15 minutes): read only the ones a page can need,
  // those of the cursor's millisecond and the first limit + 1 after it. The rest are few per job.
  const checksAfter = ctx.db.selectFrom("proof_checks").selectAll().where("job_id", "=", jobId);
  const [
    bids,
    claims,
    checks,
    checksAtCursor,
    criteria,
    settlements,
    disputeCase,
    statements,
    ruling,
    parts,
    partMoves,
    changeRequests,
  ] = await Promise.all([
    ctx.db.selectFrom("bids").selectAll().where("job_id", "=", jobId).execute(),
    ctx.db.selectFrom("job_claims").selectAll().where("job_id", "=", jobId).execute(),
    (afterAt ? checksAfter.where("checked_at", ">", afterAt) : checksAfter)
      .orderBy("checked_at")
      .orderBy("id")
      .limit(limit + 1)
      .execute(),
    afterAt
      ? ctx.db
          .selectFrom("proof_checks")
          .selectAll()
          .where("job_id", "=", jobId)
          .where("checked_at", "=", afterAt)
          .execute()
      : Promise.resolve([]),
    ctx.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", jobId).execute(),
    ctx.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", jobId)
      .where("status", "=", "CONFIRMED")
      .execute(),
    ctx.db.selectFrom("dispute_cases").selectAll().where("job_id", "=", jobId).executeTakeFirst(),
    ctx.db
      .selectFrom("dispute_statements as st")
      .innerJoin("dispute_cases as c", "c.id", "st.case_id")
      .selectAll("st")
      .select((eb) =>
        eb
          .selectFrom("dispute_evidence as e")
          .select(eb.fn.countAll<string>().as("n"))
          .whereRef("e.statement_id", "=", "st.id")
          .as("evidence_count"),
      )
      .where("c.job_id", "=", jobId)
      .execute(),
    ctx.db
      .selectFrom("dispute_rulings as r")
      .innerJoin("dispute_cases as c", "c.id", "r.case_id")
      .selectAll("r")
      .where("c.job_id", "=", jobId)
      .executeTakeFirst(),
    // A job paid in parts: each part's steps, and every movement of a part out of the escrow.
    ctx.db.selectFrom("job_milestones").selectAll().where("job_id", "=", jobId).execute(),
    ctx.db.selectFrom("milestone_settlements").selectAll().where("job_id", "=", jobId).execute(),
    // Requests for changes (at most maxRevisions per job and per part): each keeps the delivery it sent back.
    ctx.db.selectFrom("job_change_requests").selectAll().where("job_id", "=", jobId).orderBy("round").execute(),
  ]);
  const actors = await actorsOf(ctx, [
    job.poster_id,
    ...criteria.flatMap((c) => [c.ticked_by, c.overridden_by]).filter((id): id is string => id !== null),
    ...changeRequests.map((r) => r.requested_by),
  ]);
  const poster = actors.get(job.poster_id) ?? { kind: "USER" as const, id: job.poster_id };
  const principal = (id: string | null) => (id === null ? null : (actors.get(id) ?? null));

  const events: Event[] = [];
  const add = (
    type: JobEventType,
    rowId: string,
    at: Date | null,
    who: ActorRef | null,
    data: Record<string, unknown>,
  ) => {
    if (at) events.push({ id: `${type}:${rowId}`, type, at, actor: who, data });
  };

  add("job.created", job.id, job.created_at, poster, {
    title: job.title,
    budgetUsdc: normaliseDecimal(job.budget_usdc),
    participationMode: job.participation_mode,
  });
  add("escrow.funded", job.id, job.funded_at, poster, {
    txHash: job.escrow_tx_hash,
    payer: job.escrow_payer,
    budgetUsdc: normaliseDecimal(job.budget_usdc),
  });
  for (const bid of bids) {
    const bidData = { bidId: bid.id, agentId: bid.agent_id, proposedUsdc: normaliseDecimal(bid.proposed_usdc) };
    add("bid.created", bid.id, bid.created_at, agentActor(bid.agent_id), bidData);
    // A bid's status changes once; updated_at is when.
    if (bid.status === "ACCEPTED") add("bid.accepted", bid.id, bid.updated_at, poster, bidData);
    if (bid.status === "REJECTED") add("bid.rejected", bid.id, bid.updated_at, poster, bidData);
    if (bid.status === "WITHDRAWN") add("bid.withdrawn", bid.id, bid.updated_at, agentActor(bid.agent_id), bidData);
    // A bid refused on arrival (bid-refund.ts) is created EXPIRED: no separate event.
    if (bid.status === "EXPIRED" && bid.updated_at.getTime() !== bid.created_at.getTime())
      add("bid.expired", bid.id, bid.updated_at, SYSTEM, bidData);
  }
  for (const claim of claims) {
    const claimData = { claimId: claim.id, agentId: claim.agent_id, expiresAt: claim.expires_at.toISOString() };
    add("claim.started", claim.id, claim.claimed_at, agentActor(claim.agent_id), claimData);
    if (claim.outcome === "LAPSED") add("claim.lapsed", claim.id, claim.ended_at, SYSTEM, claimData);
    if (claim.outcome === "RELEASED")
      add("claim.released", claim.id, claim.ended_at, agentActor(claim.agent_id), claimData);
  }
  // A delivery sent back for changes is kept on its request; the job (or part) row holds only the
  // latest delivery, which is the same one until the agent resubmits.
  const agentOfJob = job.agent_id ? agentActor(job.agent_id) : null;
  const lastSentBack = new Map<string, number>();
  for (const r of changeRequests) {
    const partId = r.milestone_id ?? job.id;
    if (r.delivered_at) lastSentBack.set(partId, Math.max(lastSentBack.get(partId) ?? 0, r.delivered_at.getTime()));
    const part = r.milestone_id ? parts.find((p) => p.id === r.milestone_id) : undefined;
    const partData = part ? { milestoneId: part.id, position: part.position, title: part.title } : {};
    add(part ? "milestone.submitted" : "job.submitted", r.id, r.delivered_at, agentOfJob, {
      ...partData,
      url: r.delivered_url,
      proofHash: r.proof_hash,
    });
    add("job.changes_requested", r.id, r.created_at, principal(r.requested_by), {
      ...partData,
      round: r.round,
      message: r.message,
      deliveredUrl: r.delivered_url,
      deliveredAt: r.delivered_at?.toISOString() ?? null,
    });
  }
  const resubmitted = (partId: string, at: Date | null) => at !== null && lastSentBack.get(partId) !== at.getTime();
  const url = typeof job.output_data?.url === "string" ? job.output_data.url : null;
  add("job.submitted", job.id, resubmitted(job.id, job.submitted_at) ? job.submitted_at : null, agentOfJob, {
    url,
    proofHash: job.proof_hash,
  });
  for (const check of [...checksAtCursor, ...checks]) {
    add("proof.checked", check.id, check.checked_at, SYSTEM, {
      checkId: check.id,
      trigger: check.trigger,
      status: check.status,
      reason: check.reason,
      httpStatus: check.http_status,
      url: check.url,
      contentSha256: check.content_sha256,
    });
  }
  for (const c of criteria) {
    add("criterion.ticked", c.criterion_id, c.ticked_at, principal(c.ticked_by), {
      criterionId: c.criterion_id,
      ticked: c.ticked,
    });
    add("criterion.overridden", c.criterion_id, c.overridden_at, principal(c.overridden_by), {
      criterionId: c.criterion_id,
      reason: c.override_reason,
    });
  }
  add("job.approved", job.id, job.approved_at, job.auto_approved ? SYSTEM : poster, {
    autoApproved: job.auto_approved,
    releaseAt: job.release_at?.toISOString() ?? null,
  });
  // The case (disputes/) records who opened it; a job disputed before cases existed has none.
  const opener: ActorRef | null =
    disputeCase?.opened_by_kind && disputeCase.opened_by_id
      ? { kind: disputeCase.opened_by_kind, id: disputeCase.opened_by_id }
      : null;
  add("job.disputed", job.id, job.disputed_at, opener, {
    reason: job.dispute_reason,
    ...(disputeCase
      ? {
          caseId: disputeCase.id,
          openedBy: disputeCase.opened_by_side,
          answerDeadlineAt: disputeCase.answer_deadline_at.toISOString(),
          rulingDeadlineAt: disputeCase.ruling_deadline_at.toISOString(),
        }
      : {}),
  });
  for (const st of statements) {
    add(
      "dispute.statement",
      st.id,
      st.created_at,
      { kind: st.author_kind, id: st.author_id },
      { statementId: st.id, side: st.side, evidenceCount: Number(st.evidence_count ?? 0) },
    );
  }
  if (disputeCase)
    add("dispute.escalated", disputeCase.id, disputeCase.escalated_at, SYSTEM, {
      caseId: disputeCase.id,
      rulingDeadlineAt: disputeCase.ruling_deadline_at.toISOString(),
    });
  if (ruling) {
    add(
      "dispute.resolved",
      ruling.id,
      ruling.created_at,
      { kind: "USER", id: ruling.ruled_by_user_id },
      {
        outcome: ruling.outcome,
        agentShare: ruling.agent_share,
        arbiter: ruling.arbiter,
        reason: ruling.reason,
        settlementId: ruling.settlement_id,
      },
    );
  }
  for (const s of settlements) {
    // Named as the webhook of the same confirmation: a split pays the agent, and says so.
    add(s.kind === "RELEASE" || s.kind === "SPLIT" ? "job.paid" : "job.refunded", s.id, s.confirmed_at, SYSTEM, {
      settlementId: s.id,
      txHash: s.tx_hash,
      toAddress: s.to_address,
      amountUsdc: units(s.amount_units),
      feeUsdc: units(s.fee_units),
      ...(s.kind === "SPLIT" ? { split: true, payerAmountUsdc: units(s.payer_amount_units) } : {}),
      // EscrowV2 money the parties (or anyone, after the expiry) moved without the service.
      ...(s.settled_outside ? { settledOutside: s.settled_outside } : {}),
    });
  }
  // The parts of a job paid in parts. A part's ruling has no timestamp of its own: the settlement it
  // ordered is recorded at once (before it is sent), so that row's creation is when it was ruled.
  const partOf = new Map(parts.map((p) => [p.id, p]));
  const firstMoveOf = new Map<string, Date>();
  for (const m of partMoves) {
    const seen = firstMoveOf.get(m.milestone_id);
    if (!seen || m.created_at < seen) firstMoveOf.set(m.milestone_id, m.created_at);
  }
  for (const p of parts) {
    const partData = { milestoneId: p.id, position: p.position, title: p.title };
    add("milestone.submitted", p.id, resubmitted(p.id, p.submitted_at) ? p.submitted_at : null, agentOfJob, {
      ...partData,
      url: p.output_url,
      proofHash: p.proof_hash,
    });
    add("milestone.approved", p.id, p.approved_at, poster, {
      ...partData,
      releaseAt: p.release_at?.toISOString() ?? null,
    });
    add("milestone.disputed", p.id, p.disputed_at, null, {
      ...partData,
      openedBy: p.disputed_by,
      reason: p.dispute_reason,
    });
    if (p.ruling_outcome && p.disputed_at)
      add("milestone.resolved", p.id, firstMoveOf.get(p.id) ?? null, null, {
        ...partData,
        outcome: p.ruling_outcome,
        agentShare: p.ruling_agent_share,
        reason: p.ruling_reason,
      });
  }
  for (const m of partMoves) {
    if (m.status !== "CONFIRMED") continue;
    const p = partOf.get(m.milestone_id);
    add(m.kind === "REFUND" ? "milestone.refunded" : "milestone.paid", m.id, m.confirmed_at, SYSTEM, {
      milestoneId: m.milestone_id,
      position: p?.position ?? null,
      settlementId: m.id,
      txHash: m.tx_hash,
      toAddress: m.to_address,
      amountUsdc: units(m.amount_units),
      feeUsdc: units(m.fee_units),
      ...(m.kind === "SPLIT" ? { payerAmountUsdc: units(m.payer_amount_units) } : {}),
    });
  }
  // A job paid in parts whose last part settled with money to its agent (escrow/released.ts, on the
  // rows read above): its payment, as the job.paid webhook announced it, every part summed.
  const paidParts = partMoves.filter((m) => m.status === "CONFIRMED" && m.kind !== "REFUND");
  if (job.release_tx_hash && paidParts.length > 0) {
    const sum = (pick: (m: (typeof paidParts)[number]) => string | null) =>
      paidParts.reduce((total, m) => total + BigInt(pick(m) ?? "0"), 0n).toString();
    add("job.paid", job.id, job.completed_at, SYSTEM, {
      txHash: job.release_tx_hash,
      amountUsdc: units(sum((m) => m.amount_units)),
      feeUsdc: units(sum((m) => m.fee_units)),
      partsTotal: parts.length,
    });
  }

  const cursorEvent =
    after && afterAt
      ? { at: afterAt, type: after.id.slice(0, after.id.indexOf(":")) as JobEventType, id: after.id }
      : null;
  const ordered = events.sort(compareEvents).filter((e) => !cursorEvent || compareEvents(e, cursorEvent) > 0);
  const page = pageOf(ordered.slice(0, limit + 1), limit, (e) => ({ k: e.at.toISOString(), id: e.id }));
  return { items: page.rows.map((e) => ({ ...e, at: e.at.toISOString() })), meta: page.meta };
}
