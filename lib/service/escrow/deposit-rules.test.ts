import { describe, expect, it } from "vitest";
import { parseUsdc } from "@/lib/chain/units";
import {
  DEPOSIT_REGISTRATION_WINDOW_MS,
  depositAmountRefusal,
  depositVerdict,
  isFundable,
  type DepositJob,
} from "./deposit-rules";

// Which deposit funds which job (docs/testing.md, "The pyramid"): pure, no database and no chain.
// The watcher that reads the chain and locks the rows is tested on anvil in deposit-watch.test.ts.

const NOW = new Date("2026-06-01T12:00:00.000Z");
const PAYER = "0x00000000000000000000000000000000000000aa";
const LOST = new Date("2026-06-01T11:00:00.000Z");

describe("isFundable", () => {
  it.each<[string, string, string | null, Date | null, boolean]>([
    ["OPEN, unfunded", "OPEN", null, null, true],
    ["assigned before it was funded", "IN_PROGRESS", null, null, true],
    ["OPEN, already funded", "OPEN", "0xtx", null, false],
    ["assigned and funded", "IN_PROGRESS", "0xtx", null, false],
    ["in REVIEW, funded", "REVIEW", "0xtx", null, false],
    ["in REVIEW, its deposit removed by a reorganisation", "REVIEW", null, LOST, true],
    ["DISPUTED, its deposit removed by a reorganisation", "DISPUTED", null, LOST, true],
    ["in REVIEW, unfunded but never lost", "REVIEW", null, null, false],
    ["COMPLETED, its deposit lost", "COMPLETED", null, LOST, false],
    ["CANCELLED", "CANCELLED", null, null, false],
    ["CANCELLED, its deposit lost", "CANCELLED", null, LOST, false],
  ])("%s: %s", (_what, status, escrowTx, lostAt, expected) => {
    expect(isFundable({ status, escrow_tx_hash: escrowTx, deposit_lost_at: lostAt })).toBe(expected);
  });
});

describe("depositAmountRefusal: a deposit funds exactly the budget", () => {
  it.each<[string, bigint, string, string | null]>([
    ["exactly the budget", parseUsdc("12"), "12", null],
    ["exactly 1 USDC", 1_000_000n, "1", null],
    ["the budget as the database writes it", parseUsdc("12.5"), "12.500000", null],
    ["a unit short", parseUsdc("12") - 1n, "12", "the deposit is 11.999999 USDC, the job's budget is 12 USDC"],
    ["a unit over", parseUsdc("12") + 1n, "12", "the deposit is 12.000001 USDC, the job's budget is 12 USDC"],
    ["nothing", 0n, "12", "the deposit is 0 USDC, the job's budget is 12 USDC"],
  ])("%s", (_what, amount, budget, expected) => {
    expect(depositAmountRefusal(amount, { budget_usdc: budget })).toBe(expected);
  });
});

describe("depositVerdict: what becomes of a deposit nobody may have registered", () => {
  const job = (over: Partial<DepositJob> = {}): DepositJob => ({
    id: "job-1",
    status: "OPEN",
    budget_usdc: "12",
    escrow_tx_hash: null,
    escrow_payer: null,
    deposit_lost_at: null,
    escrow_version: null,
    ...over,
  });
  const deposit = (
    over: { amount_units?: string; refund_due_at?: Date; payer?: string; escrow_version?: number } = {},
  ) => ({
    escrow_version: 1,
    payer: PAYER,
    amount_units: parseUsdc("12").toString(),
    refund_due_at: new Date(NOW.getTime() + DEPOSIT_REGISTRATION_WINDOW_MS),
    ...over,
  });

  it.each<[string, DepositJob | undefined, ReturnType<typeof deposit>, ReturnType<typeof depositVerdict>]>([
    [
      "no job has its escrow id",
      undefined,
      deposit(),
      { verdict: "REFUND", reason: "no job has this escrow job id", jobId: null },
    ],
    [
      "it is the job's registered deposit (the payer's address in any case)",
      job({ escrow_tx_hash: "0xtx", escrow_payer: PAYER.toUpperCase().replace("0X", "0x") }),
      deposit(),
      { verdict: "REGISTERED", jobId: "job-1" },
    ],
    [
      "it is the job's registered deposit in EscrowV2",
      job({ escrow_tx_hash: "0xtx", escrow_payer: PAYER, escrow_version: 2 }),
      deposit({ escrow_version: 2 }),
      { verdict: "REGISTERED", jobId: "job-1" },
    ],
    [
      "the job's payer deposited again into the other contract (the job is funded in EscrowV2)",
      job({ escrow_tx_hash: "0xtx", escrow_payer: PAYER, escrow_version: 2 }),
      deposit(),
      { verdict: "REFUND", reason: "the job is already funded by another deposit", jobId: "job-1" },
    ],
    [
      "the job's payer's stray EscrowV2 deposit beside its registered first-escrow one",
      job({ escrow_tx_hash: "0xtx", escrow_payer: PAYER, escrow_version: 1 }),
      deposit({ escrow_version: 2 }),
      { verdict: "REFUND", reason: "the job is already funded by another deposit", jobId: "job-1" },
    ],
    [
      "the job is funded by another payer's deposit",
      job({ escrow_tx_hash: "0xtx", escrow_payer: "0x00000000000000000000000000000000000000bb" }),
      deposit(),
      { verdict: "REFUND", reason: "the job is already funded by another deposit", jobId: "job-1" },
    ],
    [
      "the job is finished",
      job({ status: "COMPLETED" }),
      deposit(),
      {
        verdict: "REFUND",
        reason:
          "the job is COMPLETED; only an OPEN job, an assigned one not yet funded, or one whose deposit a reorganisation removed can be funded",
        jobId: "job-1",
      },
    ],
    [
      "the amount is not the budget",
      job(),
      deposit({ amount_units: parseUsdc("11").toString() }),
      { verdict: "REFUND", reason: "the deposit is 11 USDC, the job's budget is 12 USDC", jobId: "job-1" },
    ],
    ["it could fund the job and its window is open", job(), deposit(), { verdict: "WAIT", jobId: "job-1" }],
    [
      "its window closed a millisecond ago",
      job(),
      deposit({ refund_due_at: new Date(NOW.getTime() - 1) }),
      { verdict: "REFUND", reason: "nobody registered it within 60 minutes", jobId: "job-1" },
    ],
    [
      "its window closes at this very instant",
      job(),
      deposit({ refund_due_at: NOW }),
      { verdict: "REFUND", reason: "nobody registered it within 60 minutes", jobId: "job-1" },
    ],
    [
      "its window closes a millisecond from now",
      job(),
      deposit({ refund_due_at: new Date(NOW.getTime() + 1) }),
      { verdict: "WAIT", jobId: "job-1" },
    ],
    [
      "the job's deposit was removed by a reorganisation while in REVIEW",
      job({ status: "REVIEW", deposit_lost_at: LOST }),
      deposit(),
      { verdict: "WAIT", jobId: "job-1" },
    ],
  ])("%s", (_what, found, observed, expected) => {
    expect(depositVerdict(found, observed, NOW)).toEqual(expected);
  });
});
