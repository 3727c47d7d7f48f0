import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { fanOutNotifications } from "../notifications/fan-out";
import { GENEROUS_BUDGETS, jobInput, newUser, startTestService, type TestService } from "../testing/harness";
import { warnOfEscrowExpiry } from "./expiry-warnings";

// Warnings before an EscrowV2 slot's expiry (docs/escrow-v2.md, step 5), on a real anvil: a job
// funded in EscrowV2 whose money has not left is announced 72 hours before its expiry and again at
// 24, once each; a job of the first escrow (no expiry) never is.

let chain: TestChain;
let service: TestService;
const POSTER = 4;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;

/** A job of a fresh poster, funded and registered in EscrowV2 (expiring in `expiresInDays`) or in the first escrow. */
async function fundedJob(expiresInDays: number | null) {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "12" }) })).data;
  const chainNow = (await chain.publicClient.getBlock()).timestamp;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[POSTER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc("12"),
    expiresAt: expiresInDays === null ? undefined : chainNow + BigInt(expiresInDays * 86_400),
  });
  const registered = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, {
    token: poster.token,
    body: { txHash },
  });
  expect(registered.status).toBe(200);
  return { poster, job: registered.json.data as { id: string; escrowExpiresAt: string | null } };
}

/** The service's clock moved to `msBefore` before the job's expiry. */
const before = (expiresAt: string, msBefore: number): ServiceContext => ({
  ...service.ctx,
  now: () => new Date(Date.parse(expiresAt) - msBefore),
});

async function inboxOf(poster: Awaited<ReturnType<typeof newUser>>) {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
  return (await poster.client.listNotifications({ query: {} })).data;
}

describe("warnings before an EscrowV2 slot expires", () => {
  it("tells the poster 72 hours ahead, then 24, once each; the first escrow's jobs never", async () => {
    const { poster, job } = await fundedJob(6);
    const { job: firstEscrowJob } = await fundedJob(null);
    expect(job.escrowExpiresAt).not.toBeNull();
    expect(firstEscrowJob.escrowExpiresAt).toBeNull();
    const expiresAt = job.escrowExpiresAt!;
    const mine = (sent: Array<{ jobId: string; leadHours: number }>) =>
      sent.filter((w) => w.jobId === job.id || w.jobId === firstEscrowJob.id);

    // Four days ahead: nothing yet.
    expect(mine(await warnOfEscrowExpiry(before(expiresAt, 4 * DAY)))).toEqual([]);
    // Within 72 hours: the first warning, once.
    expect(mine(await warnOfEscrowExpiry(before(expiresAt, 70 * HOUR)))).toEqual([
      { jobId: job.id, expiresAt: new Date(expiresAt), leadHours: 72 },
    ]);
    expect(mine(await warnOfEscrowExpiry(before(expiresAt, 60 * HOUR)))).toEqual([]);
    // Within 24 hours: the second, once.
    expect(mine(await warnOfEscrowExpiry(before(expiresAt, 20 * HOUR)))).toEqual([
      { jobId: job.id, expiresAt: new Date(expiresAt), leadHours: 24 },
    ]);
    expect(mine(await warnOfEscrowExpiry(before(expiresAt, 2 * HOUR)))).toEqual([]);

    const warnings = (await inboxOf(poster)).filter((n) => n.type === "escrow.expiring" && n.jobId === job.id);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ kind: "refund", link: `/jobs/${job.id}` });
    expect(warnings[0]!.text).toContain(`expires on ${expiresAt.slice(0, 16).replace("T", " ")} UTC`);
  });

  it("a slot found first within 24 hours gets the 24-hour warning alone", async () => {
    const { job } = await fundedJob(3);
    const sent = await warnOfEscrowExpiry(before(job.escrowExpiresAt!, 10 * HOUR));
    expect(sent.filter((w) => w.jobId === job.id).map((w) => w.leadHours)).toEqual([24]);
  });
});
