import { describe, expect, it } from "vitest";
import type { JobRow } from "../db/schema";
import { refusalOf, refusalOfAsync, untouchedContext } from "../testing/rule-refusal";
import { assertBeforeDeadline, assertBidAllowedByJobRules } from "./bid-rules";

// Pure rules of bidding (docs/testing.md, "The pyramid"). The certification pack's check reads the
// database and is covered over HTTP (lib/service/evals).

const NOW = new Date("2026-06-01T12:00:00.000Z");
const AGENT = { id: "00000000-0000-4000-8000-000000000001" };

describe("assertBeforeDeadline", () => {
  it.each<[string, Date | null, string | null]>([
    ["no deadline", null, null],
    ["a deadline a millisecond ahead", new Date(NOW.getTime() + 1), null],
    ["a deadline a day ahead", new Date(NOW.getTime() + 86_400_000), null],
    // At the deadline's instant the date is gone: nobody can promise work for it.
    ["a deadline at this very instant", NOW, "DEADLINE_PASSED"],
    ["a deadline a millisecond ago", new Date(NOW.getTime() - 1), "DEADLINE_PASSED"],
    ["a deadline a year ago", new Date(NOW.getTime() - 365 * 86_400_000), "DEADLINE_PASSED"],
  ])("%s: %s", (_what, deadline, code) => {
    expect(refusalOf(() => assertBeforeDeadline({ deadline_at: deadline }, NOW))?.code ?? null).toBe(code);
  });

  it("names the passed deadline and what the poster can do", () => {
    const deadline = new Date("2026-05-31T08:30:00.000Z");
    expect(refusalOf(() => assertBeforeDeadline({ deadline_at: deadline }, NOW))?.messages).toEqual([
      "the job's deadline passed at 2026-05-31T08:30:00.000Z; its poster can move it later or cancel the job",
    ]);
  });
});

describe("assertBidAllowedByJobRules", () => {
  const jobOf = (mode: JobRow["participation_mode"]) =>
    ({ participation_mode: mode, required_pack_id: null }) as unknown as JobRow;

  it("refuses a bid on a BOUNTY (409 JOB_NOT_BIDDABLE) and says to claim it, without asking the database", async () => {
    const refusal = await refusalOfAsync(() => assertBidAllowedByJobRules(untouchedContext(), jobOf("BOUNTY"), AGENT));
    expect(refusal?.code).toBe("JOB_NOT_BIDDABLE");
    expect(refusal?.messages[0]).toMatch(/claim it with POST \/v1\/jobs\/:id\/claim/);
  });

  it("lets a bid through on a BID job that requires no pack, without asking the database", async () => {
    expect(await refusalOfAsync(() => assertBidAllowedByJobRules(untouchedContext(), jobOf("BID"), AGENT))).toBeNull();
  });

  it("asks the database (the agent's certification) only when the job requires a pack", async () => {
    const job = {
      participation_mode: "BID",
      required_pack_id: "00000000-0000-4000-8000-0000000000aa",
    } as unknown as JobRow;
    await expect(assertBidAllowedByJobRules(untouchedContext(), job, AGENT)).rejects.toThrow(/read ctx\.db/);
  });
});
