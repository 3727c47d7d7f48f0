// A deposit is never lost by a closed tab, on the HTTP surface against a real anvil: the poster
// deposits into the job's slot on chain and never registers it (PATCH /v1/jobs/:id/escrow is never
// called); the service's own rounds (the deposit watcher, then the attach worker) fund the job from
// the poster's signed-in wallet or from an address the poster funded before, and never from a
// stranger's wallet.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { chainFailureReason, walletFailureSentence } from "@/lib/chain/escrow/errors";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { watchDeposits } from "../escrow/deposit-watch";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { hexOfWire } from "../testing/parts-support";
import { attachPosterDeposits, depositAttachWorker } from "./attach-deposits";
import { workers } from "../workers";

let chain: TestChain;
let service: TestService;
const POSTER = 3;
const OTHER_WALLET = 4;
const STRANGER = 5;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

async function postJob(poster: TestUser, budget = "12"): Promise<{ id: string; escrowJobId: Hex }> {
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { id: job.id, escrowJobId: hexOfWire(job.escrowJobId) };
}

const depositFrom = async (account: number, escrowJobId: Hex, amount = "12") =>
  (
    await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[account]!.privateKey,
      escrowJobId,
      amount: parseUsdc(amount),
    })
  ).txHash;

/** The service's own rounds for this test's job (the database may be shared with other suites), a few times over. */
async function serviceRounds(job: { id: string; escrowJobId: Hex }, rounds = 4) {
  for (let i = 0; i < rounds; i += 1) {
    await chain.testClient.mine({ blocks: 1 });
    await watchDeposits(service.ctx, { onlyJobIds: [job.id], onlyEscrowJobIds: [job.escrowJobId] });
    await attachPosterDeposits(service.ctx, { onlyJobIds: [job.id] });
  }
}

const readJob = async (poster: TestUser, id: string) =>
  (await service.http("GET", `/v1/jobs/${id}`, { token: poster.token })).json.data;

describe("a confirmed deposit whose registration never came", () => {
  it("from the poster's signed-in wallet: the service funds the job itself, and a late registration is harmless", async () => {
    expect(workers).toContain(depositAttachWorker);
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = await postJob(poster);
    const txHash = await depositFrom(POSTER, job.escrowJobId);
    expect((await readJob(poster, job.id)).funded).toBe(false);

    await serviceRounds(job);
    const funded = await readJob(poster, job.id);
    // The deposit watcher's funding records the contract as registration does: the first escrow.
    expect(funded).toMatchObject({
      funded: true,
      escrowTxHash: txHash.toLowerCase(),
      escrowAddress: chain.config.escrowAddress,
    });
    expect(funded.escrowPayer.toLowerCase()).toBe(chain.accounts[POSTER]!.address.toLowerCase());
    const deposits = await service.http("GET", "/v1/admin/escrow/deposits", { token: poster.token });
    expect(deposits.status).toBe(403);
    const row = await service.db
      .selectFrom("escrow_deposits")
      .select(["status", "job_id"])
      .where("tx_hash", "=", txHash.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "REGISTERED", job_id: job.id });

    // The page that comes back later registers the same deposit: answered with the funded job.
    const late = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: poster.token, body: { txHash } });
    expect(late.status, JSON.stringify(late.json)).toBe(200);
    expect(late.json.data.funded).toBe(true);
  }, 120_000);

  it("from an address the poster funded a job from before: attached too", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const first = await postJob(poster, "7");
    const firstTx = await depositFrom(OTHER_WALLET, first.escrowJobId, "7");
    const registered = await service.http("PATCH", `/v1/jobs/${first.id}/escrow`, {
      token: poster.token,
      body: { txHash: firstTx },
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(200);

    const second = await postJob(poster, "9");
    const txHash = await depositFrom(OTHER_WALLET, second.escrowJobId, "9");
    await serviceRounds(second);
    expect(await readJob(poster, second.id)).toMatchObject({ funded: true, escrowTxHash: txHash.toLowerCase() });
  }, 120_000);

  it("a second deposit from the same wallet is refused by the contract, told as a sentence, never as a custom error's hex", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = await postJob(poster, "3");
    await depositFrom(POSTER, job.escrowJobId, "3");
    const error = await chain.publicClient
      .simulateContract({
        account: chain.accounts[POSTER]!.address,
        address: chain.config.escrowAddress,
        abi: escrowAbi,
        functionName: "deposit",
        args: [job.escrowJobId, parseUsdc("3")],
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).not.toBeNull();
    for (const text of [walletFailureSentence(error), chainFailureReason(error)]) {
      expect(text).toMatch(/already deposited for this job/);
      expect(text).not.toMatch(/0x[0-9a-f]{8}/i);
    }
  }, 120_000);

  it("from a stranger's wallet: never attached; it waits for a registration like any deposit", async () => {
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const job = await postJob(poster);
    await depositFrom(STRANGER, job.escrowJobId);
    await serviceRounds(job);
    expect((await readJob(poster, job.id)).funded).toBe(false);
  }, 120_000);
});
