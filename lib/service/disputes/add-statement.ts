import { fail } from "../errors";
import type { z } from "zod";
import type { AddDisputeStatementRequest } from "@/lib/api/schemas/disputes";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { proberOptions } from "../deliverables/check-deliverable";
import { publishEvent } from "../events/publish-event";
import { getJobRowWithLapse } from "../jobs/read-job";
import { refuseOwnUrl, serviceFetchPolicy } from "../proofs/fetch-policy";
import { probeDeliverable, type ProbeResult } from "../proofs/probe";
import { caseAccessOf, getCaseRowOrThrow, type DisputeCaseRow } from "./case-access";
import { presentStatement } from "./present-dispute";
import { disputeRecipients } from "./recipients";
import { actorIdOf } from "../events/recipients";

type Input = z.output<typeof AddDisputeStatementRequest>;

function refuseIfClosed(kase: Pick<DisputeCaseRow, "status" | "answer_deadline_at">, now: Date): void {
  if (kase.status === "RULED")
    throw fail("DISPUTE_CLOSED", "the dispute has been ruled on; it takes no more statements");
  if (now.getTime() > kase.answer_deadline_at.getTime()) {
    throw fail(
      "DISPUTE_CLOSED",
      `statements closed at ${kase.answer_deadline_at.toISOString()} (the answer deadline); the case now waits for its ruling`,
    );
  }
}

/**
 * Probes one evidence URL with the deliverable prober (the SSRF-safe fetch with the service's
 * policy: no private addresses, never this marketplace, loopback only on the local chain), without
 * a marker: evidence is whatever the page shows, and its SHA-256 records what that was.
 */
function probeEvidence(ctx: ServiceContext, url: string): Promise<ProbeResult> {
  return probeDeliverable(url, {
    marker: null,
    ...serviceFetchPolicy(ctx.config),
    ...(proberOptions.resolve ? { resolve: proberOptions.resolve } : {}),
    ...(proberOptions.timeoutMs ? { timeoutMs: proberOptions.timeoutMs } : {}),
    now: ctx.now,
  });
}

/**
 * POST /v1/jobs/:id/dispute/statements. A side of the dispute (the poster's or the assigned
 * agent's, with the humans who own them) adds a statement with up to five evidence URLs, until the
 * answer deadline and while no ruling exists. Every URL is screened (never this marketplace) and
 * probed before anything is written; the statement and its evidence with each probe's result and
 * content hash commit together, with the dispute.statement event to the other side and the
 * arbiter.
 */
export async function addDisputeStatement(ctx: ServiceContext, actor: Actor, jobId: string, input: Input) {
  const job = await getJobRowWithLapse(ctx, jobId);
  const kase = await getCaseRowOrThrow(ctx, jobId);
  const access = await caseAccessOf(ctx, actor, job, kase);
  if (access.side === null)
    throw fail("FORBIDDEN", "only the poster's side and the assigned agent's side add statements to a dispute");
  const side = access.side;
  input.evidenceUrls.forEach((url, index) =>
    refuseOwnUrl(ctx.config, url, "EVIDENCE_URL_NOT_ALLOWED", `evidenceUrls.${index}`),
  );
  // A cheap refusal before any probe; the transaction below decides.
  refuseIfClosed(kase, ctx.now());

  const probes = await Promise.all(input.evidenceUrls.map((url) => probeEvidence(ctx, url)));

  const statementId = await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom("dispute_cases")
      .selectAll()
      .where("id", "=", kase.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const now = ctx.now();
    refuseIfClosed(locked, now);
    const statement = await trx
      .insertInto("dispute_statements")
      .values({
        case_id: kase.id,
        side,
        author_kind: actor.kind,
        author_id: actorIdOf(actor),
        body: input.body,
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (probes.length > 0) {
      await trx
        .insertInto("dispute_evidence")
        .values(
          input.evidenceUrls.map((url, index) => {
            const probe = probes[index]!;
            return {
              case_id: kase.id,
              statement_id: statement.id,
              url,
              status: probe.status,
              reason: probe.reason,
              http_status: probe.httpStatus,
              final_url: probe.finalUrl,
              content_type: probe.contentType,
              content_sha256: probe.contentSha256,
              checked_at: probe.checkedAt,
              // Ordered as sent: the n-th URL is created n ms after the statement.
              created_at: new Date(now.getTime() + index),
            };
          }),
        )
        .execute();
    }
    await publishEvent(trx, {
      type: "dispute.statement",
      jobId,
      to: await disputeRecipients(trx, ctx.config, job, locked, {
        evaluator: true,
        operators: locked.evaluator_address === null || locked.escalated_at !== null,
      }),
      actorId: actorIdOf(actor),
      data: { caseId: kase.id, statementId: statement.id, side, evidenceCount: probes.length },
    });
    return statement.id;
  });

  const statement = await ctx.db
    .selectFrom("dispute_statements")
    .selectAll()
    .where("id", "=", statementId)
    .executeTakeFirstOrThrow();
  const evidence = await ctx.db
    .selectFrom("dispute_evidence")
    .selectAll()
    .where("statement_id", "=", statementId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return presentStatement(statement, evidence);
}
