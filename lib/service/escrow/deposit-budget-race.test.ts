// A deposit funds a job only at the amount it holds, on PostgreSQL with parallel requests against a
// real anvil: a 1 USDC deposit registered while the poster raises the budget to 100 (by an edit, or by
// accepting a 100 USDC bid) never leaves the job funded at 100. Whichever request takes the job's row
// first decides: the budget changes and the deposit is refused (422 DEPOSIT_WRONG_AMOUNT), or the
// deposit funds the job at 1 and the change is refused (409 JOB_EDIT_NOT_ALLOWED, BID_AMOUNT_MISMATCH).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";

const PAYER = 1;
const ROUNDS = 5;

let chain: TestChain;
let service: TestService;
let poster: TestUser;

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

/** An OPEN job of 1 USDC and a 1 USDC deposit for it on chain, not registered yet. */
async function jobWithDeposit() {
  const job = (await poster.client.createJob({ body: jobInput({ budget: "1" }) })).data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId as unknown as Record<string, number>),
    amount: parseUsdc("1"),
  });
  return { jobId: job.id, txHash };
}

const register = (jobId: string, txHash: string) =>
  service.http("PATCH", `/v1/jobs/${jobId}/escrow`, { token: poster.token, body: { txHash } });

async function fundedAt(jobId: string) {
  const job = (await service.http("GET", `/v1/jobs/${jobId}`, { token: poster.token })).json.data;
  return { funded: job.funded as boolean, budget: job.budgetUsdc as string };
}

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))("a deposit and a budget change in parallel (PostgreSQL)", () => {
  beforeAll(async () => {
    chain = await startTestChain();
    service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
    poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await chain?.stop();
  });

  it("an edit raising the budget to 100 while a 1 USDC deposit is registered: never funded at 100", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { jobId, txHash } = await jobWithDeposit();
      const [registered, edited] = await Promise.all([
        register(jobId, txHash),
        service.http("PATCH", `/v1/jobs/${jobId}`, { token: poster.token, body: { budget: "100" } }),
      ]);
      const state = await fundedAt(jobId);
      if (registered.status === 200) {
        expect(state).toEqual({ funded: true, budget: "1" });
        expect(edited.status).toBe(409);
        expect(edited.json.code).toBe("JOB_EDIT_NOT_ALLOWED");
        expect(edited.json.fields).toEqual(["budget"]);
      } else {
        expect(registered.status, JSON.stringify(registered.json)).toBe(422);
        expect(registered.json.code).toBe("DEPOSIT_WRONG_AMOUNT");
        expect(edited.status).toBe(200);
        expect(state).toEqual({ funded: false, budget: "100" });
      }
    }
  }, 180_000);

  it("accepting a 100 USDC bid while a 1 USDC deposit is registered: never funded at 100", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { jobId, txHash } = await jobWithDeposit();
      const agent = await newAgent(service);
      const bid = (
        await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: "100" } })
      ).data;
      const [registered, accepted] = await Promise.all([
        register(jobId, txHash),
        service.http("POST", `/v1/jobs/${jobId}/bids/${bid.id}/accept`, { token: poster.token }),
      ]);
      const state = await fundedAt(jobId);
      if (registered.status === 200) {
        expect(state).toEqual({ funded: true, budget: "1" });
        expect(accepted.status).toBe(409);
        expect(accepted.json.code).toBe("BID_AMOUNT_MISMATCH");
      } else {
        expect(registered.status, JSON.stringify(registered.json)).toBe(422);
        expect(registered.json.code).toBe("DEPOSIT_WRONG_AMOUNT");
        expect(accepted.status).toBe(200);
        expect(state).toEqual({ funded: false, budget: "100" });
      }
    }
  }, 180_000);

  it("a funded job refuses to accept a bid of another amount placed before the deposit", async () => {
    const { jobId, txHash } = await jobWithDeposit();
    const agent = await newAgent(service);
    const bid = (
      await agent.client.placeBid({ params: { id: jobId }, body: { agentId: agent.id, proposedUsdc: "100" } })
    ).data;
    expect((await register(jobId, txHash)).status).toBe(200);
    const accepted = await service.http("POST", `/v1/jobs/${jobId}/bids/${bid.id}/accept`, { token: poster.token });
    expect(accepted.status).toBe(409);
    expect(accepted.json.code).toBe("BID_AMOUNT_MISMATCH");
    expect(await fundedAt(jobId)).toEqual({ funded: true, budget: "1" });
  }, 60_000);
});
