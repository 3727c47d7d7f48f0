import { expect } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { jobInput, newAgent, newUser, type TestAgent, type TestService, type TestUser } from "./harness";

export const fakeTxHash = () => `0x${randomBytes(32).toString("hex")}`;

/** A job posted by `poster` (a new human by default), with a pending bid of `agent` (a new one by default). */
export async function jobWithBid(
  service: TestService,
  options: { poster?: TestUser; agent?: TestAgent; budget?: string; deadlineAt?: string } = {},
) {
  const poster = options.poster ?? (await newUser(service));
  const agent = options.agent ?? (await newAgent(service));
  const budget = options.budget ?? "40";
  const job = await poster.client.createJob({
    body: jobInput({ budget, ...(options.deadlineAt ? { deadlineAt: options.deadlineAt } : {}) }),
  });
  const bid = await agent.client.placeBid({
    params: { id: job.data.id },
    body: { agentId: agent.id, proposedUsdc: budget },
  });
  return { poster, agent, jobId: job.data.id, bidId: bid.data.id };
}

/** jobWithBid, then the poster accepts the bid: the agent is assigned. */
export async function assignedJob(service: TestService, options: Parameters<typeof jobWithBid>[1] = {}) {
  const made = await jobWithBid(service, options);
  await made.poster.client.acceptBid({ params: { jobId: made.jobId, bidId: made.bidId } });
  return made;
}

/**
 * What the chain and the settlement worker leave behind for a job, written directly (these suites
 * run without a chain; lib/service/escrow tests the real release against anvil): funded, submitted,
 * approved, and then, per `outcome`, released (a CONFIRMED RELEASE settlement and release_tx_hash,
 * in one step as settle-job.ts writes them), approved but its release still PENDING, refunded, or
 * split by a ruling (a CONFIRMED SPLIT settlement: the job is COMPLETED with its transaction).
 */
export async function settle(
  service: TestService,
  jobId: string,
  outcome: "RELEASED" | "RELEASE_PENDING" | "REFUNDED" | "SPLIT",
  options: {
    submittedAt?: Date;
    approvedAt?: Date;
    deadlineAt?: Date;
    disputed?: boolean;
    netUnits?: bigint;
    feeUnits?: bigint;
  } = {},
) {
  const submittedAt = options.submittedAt ?? new Date(Date.now() - 3 * 3600_000);
  const approvedAt = options.approvedAt ?? new Date(submittedAt.getTime() + 2 * 3600_000);
  const releaseTx = fakeTxHash();
  const paidOut = outcome === "RELEASED" || outcome === "SPLIT";
  await service.db
    .updateTable("jobs")
    .set({
      escrow_tx_hash: fakeTxHash(),
      funded_at: new Date(submittedAt.getTime() - 3600_000),
      submitted_at: submittedAt,
      approved_at: outcome === "REFUNDED" ? null : approvedAt,
      disputed_at: options.disputed ? new Date(submittedAt.getTime() + 60_000) : null,
      status: paidOut ? "COMPLETED" : outcome === "REFUNDED" ? "CANCELLED" : "REVIEW",
      release_tx_hash: paidOut ? releaseTx : null,
      refund_tx_hash: outcome === "REFUNDED" ? fakeTxHash() : null,
      completed_at: paidOut ? approvedAt : null,
      ...(options.deadlineAt ? { deadline_at: options.deadlineAt } : {}),
    })
    .where("id", "=", jobId)
    .execute();
  await service.db
    .insertInto("escrow_settlements")
    .values({
      job_id: jobId,
      kind: outcome === "REFUNDED" ? "REFUND" : outcome === "SPLIT" ? "SPLIT" : "RELEASE",
      status: outcome === "RELEASE_PENDING" ? "PENDING" : "CONFIRMED",
      amount_units: (options.netUnits ?? 38_000_000n).toString(),
      fee_units: (options.feeUnits ?? 2_000_000n).toString(),
      tx_hash: outcome === "RELEASE_PENDING" ? null : paidOut ? releaseTx : fakeTxHash(),
      confirmed_at: outcome === "RELEASE_PENDING" ? null : approvedAt,
    })
    .execute();
}

/** Moves a job's reviews back in time (the 14-day reveal without waiting 14 days). */
export async function ageReviews(service: TestService, jobId: string, days: number) {
  await sql`update job_reviews set created_at = created_at - make_interval(days => ${days}) where job_id = ${jobId}`.execute(
    service.db,
  );
}

/** A typed client call that must fail with this status and code. */
export async function expectApiError(call: Promise<unknown>, status: number, code: string) {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${status} ${code}`).toBeInstanceOf(ApiError);
  expect({ status: (error as ApiError).status, code: (error as ApiError).code }).toEqual({ status, code });
}
