import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import type { Selectable } from "kysely";
import type { EscrowDepositsTable, JobRow } from "../db/schema";

// Which deposit may fund which job, and what becomes of a deposit nobody registered: pure rules
// over the rows, asked by registration (jobs/register-escrow.ts), the deposit watcher
// (deposit-watch.ts, with the job row locked) and the viewer's `can.fund` (jobs/job-viewer.ts).

/** A deposit that could fund its job waits this long for its registration before it goes back to its payer. */
export const DEPOSIT_REGISTRATION_WINDOW_MS = 60 * 60_000;

/**
 * Why a deposit of `amountUnits` cannot fund the job, or null when it is exactly its budget. Asked
 * of the job row locked by the transaction that registers the deposit (registerEscrow, the watcher's
 * judge), never of a row read before: an edit or an accepted bid may change an unfunded job's budget
 * until that lock, and once a deposit is registered the budget never changes (edit-job.ts,
 * decide-bid.ts), so a job is funded only at the amount its deposit holds.
 */
export function depositAmountRefusal(amountUnits: bigint, job: { budget_usdc: string }): string | null {
  const budget = parseUsdc(String(job.budget_usdc));
  if (amountUnits === budget) return null;
  return `the deposit is ${formatUsdc(amountUnits)} USDC, the job's budget is ${formatUsdc(budget)} USDC`;
}

/** A job that a deposit may fund: OPEN, or past OPEN but unfunded by a reorganisation and not finished. */
export function isFundable(job: {
  status: string;
  escrow_tx_hash: string | null;
  deposit_lost_at: Date | null;
}): boolean {
  if (job.escrow_tx_hash !== null) return false;
  if (job.status === "OPEN") return true;
  // Assigned before it was funded: the poster funds it at the accepted price, and the agent can then deliver.
  if (job.status === "IN_PROGRESS") return true;
  return job.deposit_lost_at !== null && ["REVIEW", "DISPUTED"].includes(job.status);
}

export type DepositJob = Pick<
  JobRow,
  "id" | "status" | "budget_usdc" | "escrow_tx_hash" | "escrow_payer" | "deposit_lost_at" | "escrow_version"
>;

export type DepositVerdict =
  | { verdict: "REFUND"; reason: string; jobId: string | null }
  | { verdict: "WAIT"; jobId: string | null }
  | { verdict: "REGISTERED"; jobId: string | null };

/**
 * What becomes of an observed deposit, given the job with its escrow id (undefined: none) read
 * under the job's lock: REGISTERED when it is that job's registered deposit; REFUND at once when it
 * can never fund the job (no job, funded by another deposit, not fundable, not the budget), or once
 * nobody registered it within DEPOSIT_REGISTRATION_WINDOW_MS (its refund_due_at); WAIT otherwise.
 */
export function depositVerdict(
  job: DepositJob | undefined,
  deposit: Pick<Selectable<EscrowDepositsTable>, "payer" | "amount_units" | "refund_due_at" | "escrow_version">,
  now: Date,
): DepositVerdict {
  if (!job) return { verdict: "REFUND", reason: "no job has this escrow job id", jobId: null };
  // The same payer may hold a slot in each contract (version 1 and EscrowV2): the registered one is
  // the slot in the contract the job records (null before migration 0125's first round: the first).
  if (
    job.escrow_payer?.toLowerCase() === deposit.payer &&
    job.escrow_tx_hash !== null &&
    (job.escrow_version ?? 1) === deposit.escrow_version
  )
    return { verdict: "REGISTERED", jobId: job.id };
  if (job.escrow_tx_hash !== null)
    return { verdict: "REFUND", reason: "the job is already funded by another deposit", jobId: job.id };
  if (!isFundable(job))
    return {
      verdict: "REFUND",
      reason: `the job is ${job.status}; only an OPEN job, an assigned one not yet funded, or one whose deposit a reorganisation removed can be funded`,
      jobId: job.id,
    };
  const wrongAmount = depositAmountRefusal(BigInt(deposit.amount_units), job);
  if (wrongAmount) return { verdict: "REFUND", reason: wrongAmount, jobId: job.id };
  if (deposit.refund_due_at.getTime() <= now.getTime()) {
    return {
      verdict: "REFUND",
      reason: `nobody registered it within ${DEPOSIT_REGISTRATION_WINDOW_MS / 60_000} minutes`,
      jobId: job.id,
    };
  }
  return { verdict: "WAIT", jobId: job.id };
}
