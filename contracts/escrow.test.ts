// The escrow contract against a real anvil: deposits (approve and permit), a slot per payer (a
// stranger's front-running deposit), release with the fee, refund, single settlement, operator-only access, reentrancy through a malicious token,
// and recipients the token refuses (a blacklisting USDC).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  encodeFunctionData,
  parseEventLogs,
  toFunctionSelector,
  type Address,
  type Hex,
} from "viem";
import { abi as escrowAbi, bytecode as escrowBytecode } from "./artifacts/escrow";
import { abi as reentrantAbi, bytecode as reentrantBytecode } from "./artifacts/reentrant-token";
import { abi as usdcAbi } from "./artifacts/test-usdc";
import { errorText } from "@/lib/chain/escrow/errors";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { signUsdcPermit } from "@/lib/chain/permit";
import { startTestChain, type TestChain } from "@/lib/chain/testing";

let chain: TestChain;
let escrow: Address;
let usdc: Address;
let operator: Address;

const BUDGET = 200_000n; // 0.20 USDC

beforeAll(async () => {
  chain = await startTestChain();
  escrow = chain.config.escrowAddress;
  usdc = chain.config.tokenAddress;
  operator = chain.accounts[0].address;
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

const addr = (i: number) => chain.accounts[i].address;

async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

async function balance(who: Address, token: Address = usdc): Promise<bigint> {
  return chain.publicClient.readContract({ address: token, abi: usdcAbi, functionName: "balanceOf", args: [who] });
}

async function feesAccrued(): Promise<bigint> {
  return chain.publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "feesAccrued" });
}

async function balances(who: Address[], token: Address = usdc): Promise<bigint[]> {
  return Promise.all(who.map((w) => balance(w, token)));
}

/** The custom error a call reverts with, decoded through the ABI (simulation, nothing is sent). */
async function revertOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    // An error of another contract (the token's) is never named to users; here its selector shows
    // that it is the one that bubbled up.
    const foreign = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (foreign instanceof ContractFunctionRevertedError && !foreign.data && foreign.signature)
      return foreign.signature;
    return errorText(err);
  }
  throw new Error("expected the call to revert");
}

async function approveAndDeposit(payerIndex: number, jobId: Hex, amount: bigint, escrowAddress = escrow) {
  const w = chain.wallet(payerIndex);
  await mined(
    await w.writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [escrowAddress, amount] }),
  );
  return mined(
    await w.writeContract({ address: escrowAddress, abi: escrowAbi, functionName: "deposit", args: [jobId, amount] }),
  );
}

/**
 * The receipt of a transaction sent after a snapshot revert, by polling: waitForTransactionReceipt
 * waits for a block number above the last one it saw, and after a revert the next block reuses the
 * reverted block's number.
 */
async function receiptAfterRevert(hash: Hex) {
  for (let i = 0; ; i++) {
    try {
      return await chain.publicClient.getTransactionReceipt({ hash });
    } catch (err) {
      if (i > 500) {
        const pool = await chain.publicClient.request({ method: "txpool_status" } as never).catch(() => null);
        const latest = await chain.publicClient.getTransactionCount({ address: operator, blockTag: "latest" });
        const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
        throw new Error(
          `no receipt for ${hash} (account nonce ${latest}, head ${head}, pool ${JSON.stringify(pool)}): ${String(err).slice(0, 200)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function readEscrow(jobId: Hex, payer: Address, escrowAddress = escrow) {
  const [amount, state, settledBlock] = await chain.publicClient.readContract({
    address: escrowAddress,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: [jobId, payer],
  });
  return { amount, state, settledBlock };
}

function simulate(
  functionName: "release" | "refund" | "deposit" | "settleSplit",
  args: readonly unknown[],
  from: number,
  escrowAddress = escrow,
) {
  return chain.publicClient.simulateContract({
    account: chain.wallet(from).account,
    address: escrowAddress,
    abi: escrowAbi,
    functionName,
    args,
  } as Parameters<typeof chain.publicClient.simulateContract>[0]);
}

describe("deposit", () => {
  it("pulls the amount after an approve and records payer, amount and state", async () => {
    const jobId = newEscrowJobId();
    const [payerBefore, escrowBefore] = await balances([addr(1), escrow]);
    const receipt = await approveAndDeposit(1, jobId, BUDGET);
    const [payerAfter, escrowAfter] = await balances([addr(1), escrow]);
    expect(payerBefore - payerAfter).toBe(BUDGET);
    expect(escrowAfter - escrowBefore).toBe(BUDGET);

    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "Deposited", logs: receipt.logs });
    expect(event.args).toEqual({ jobId, payer: addr(1), amount: BUDGET });
    expect(await readEscrow(jobId, addr(1))).toEqual({ amount: BUDGET, state: 1, settledBlock: 0n });
  });

  it("accepts an EIP-2612 permit instead of an approve, in one transaction", async () => {
    const jobId = newEscrowJobId();
    const permit = await signUsdcPermit({
      config: chain.config,
      privateKey: chain.accounts[2].privateKey,
      spender: escrow,
      value: BUDGET,
    });
    const nonceBefore = await chain.publicClient.readContract({
      address: usdc,
      abi: usdcAbi,
      functionName: "nonces",
      args: [addr(2)],
    });
    const [payerBefore] = await balances([addr(2)]);
    const receipt = await mined(
      await chain.wallet(2).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "depositWithPermit",
        args: [jobId, BUDGET, permit.deadline, permit.v, permit.r, permit.s],
      }),
    );
    expect(payerBefore - (await balance(addr(2)))).toBe(BUDGET);
    expect(parseEventLogs({ abi: escrowAbi, eventName: "Deposited", logs: receipt.logs })[0].args.payer).toBe(addr(2));
    expect(
      await chain.publicClient.readContract({ address: usdc, abi: usdcAbi, functionName: "nonces", args: [addr(2)] }),
    ).toBe(nonceBefore + 1n);
    // The permit's allowance is used up exactly.
    expect(
      await chain.publicClient.readContract({
        address: usdc,
        abi: usdcAbi,
        functionName: "allowance",
        args: [addr(2), escrow],
      }),
    ).toBe(0n);
  });

  it("still deposits when someone front-ran the permit", async () => {
    const jobId = newEscrowJobId();
    const permit = await signUsdcPermit({
      config: chain.config,
      privateKey: chain.accounts[3].privateKey,
      spender: escrow,
      value: BUDGET,
    });
    // A third party submits the signed permit first.
    await mined(
      await chain.wallet(5).writeContract({
        address: usdc,
        abi: usdcAbi,
        functionName: "permit",
        args: [addr(3), escrow, BUDGET, permit.deadline, permit.v, permit.r, permit.s],
      }),
    );
    await mined(
      await chain.wallet(3).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "depositWithPermit",
        args: [jobId, BUDGET, permit.deadline, permit.v, permit.r, permit.s],
      }),
    );
    expect((await readEscrow(jobId, addr(3))).state).toBe(1);
  });

  it("refuses a second deposit by the same payer for the same job id", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [escrow, BUDGET] }),
    );
    expect(await revertOf(simulate("deposit", [jobId, BUDGET], 1))).toBe("AlreadyDeposited");
    expect(await readEscrow(jobId, addr(1))).toMatchObject({ amount: BUDGET, state: 1 });
  });

  it("refuses a zero amount and the zero job id", async () => {
    expect(await revertOf(simulate("deposit", [newEscrowJobId(), 0n], 1))).toBe("ZeroAmount");
    expect(await revertOf(simulate("deposit", [`0x${"00".repeat(32)}`, BUDGET], 1))).toBe("ZeroJobId");
  });
});

describe("a stranger front-running a job's funding (job ids are public)", () => {
  const POSTER = 1;
  const STRANGER = 5;
  const AGENT = 6;

  it("a stranger's 1-unit deposit first does not stop the poster from funding, and both slots stay apart", async () => {
    const jobId = newEscrowJobId();
    const strangerBefore = await balance(addr(STRANGER));
    await approveAndDeposit(STRANGER, jobId, 1n);
    const receipt = await approveAndDeposit(POSTER, jobId, BUDGET);
    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "Deposited", logs: receipt.logs });
    expect(event.args).toEqual({ jobId, payer: addr(POSTER), amount: BUDGET });
    expect(await readEscrow(jobId, addr(POSTER))).toEqual({ amount: BUDGET, state: 1, settledBlock: 0n });
    expect(await readEscrow(jobId, addr(STRANGER))).toEqual({ amount: 1n, state: 1, settledBlock: 0n });

    // Releasing the poster's slot pays the agent the poster's budget less the fee, and leaves
    // the stranger's unit where it is.
    const [agentBefore, feeBefore, escrowBefore] = await balances([addr(AGENT), operator, escrow]);
    const released = await mined(
      await chain.wallet(0).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "release",
        args: [jobId, addr(POSTER), addr(AGENT)],
      }),
    );
    const [agentAfter, feeAfter, escrowAfter] = await balances([addr(AGENT), operator, escrow]);
    expect(agentAfter - agentBefore).toBe(190_000n);
    // The fee stays in the contract (feesAccrued) until withdrawFees().
    expect(feeAfter - feeBefore).toBe(0n);
    expect(escrowBefore - escrowAfter).toBe(190_000n);
    expect(parseEventLogs({ abi: escrowAbi, eventName: "Released", logs: released.logs })[0].args).toEqual({
      jobId,
      payer: addr(POSTER),
      to: addr(AGENT),
      amount: 190_000n,
      fee: 10_000n,
    });
    expect(await readEscrow(jobId, addr(STRANGER))).toMatchObject({ amount: 1n, state: 1 });

    // The poster's slot settles once; the stranger's stray unit goes back to the stranger only.
    expect(await revertOf(simulate("release", [jobId, addr(POSTER), addr(AGENT)], 0))).toBe("NotFunded");
    expect(await revertOf(simulate("refund", [jobId, addr(POSTER)], 0))).toBe("NotFunded");
    const refunded = await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [jobId, addr(STRANGER)] }),
    );
    expect(parseEventLogs({ abi: escrowAbi, eventName: "Refunded", logs: refunded.logs })[0].args).toEqual({
      jobId,
      to: addr(STRANGER),
      amount: 1n,
    });
    expect(await balance(addr(STRANGER))).toBe(strangerBefore);
    expect(await revertOf(simulate("refund", [jobId, addr(STRANGER)], 0))).toBe("NotFunded");
  });

  it("a stranger cannot redirect or take the poster's deposit", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(STRANGER, jobId, 1n);
    await approveAndDeposit(POSTER, jobId, BUDGET);
    // Not as a settler: release and refund are the operator's, whichever slot they name.
    expect(await revertOf(simulate("release", [jobId, addr(POSTER), addr(STRANGER)], STRANGER))).toBe("NotOperator");
    expect(await revertOf(simulate("refund", [jobId, addr(POSTER)], STRANGER))).toBe("NotOperator");
    expect(await revertOf(simulate("refund", [jobId, addr(STRANGER)], STRANGER))).toBe("NotOperator");
    // Not by depositing again: a deposit only ever fills the caller's own slot.
    expect(await revertOf(simulate("deposit", [jobId, 1n], STRANGER))).toBe("AlreadyDeposited");
    // Not through the stranger's slot: releasing or refunding it moves the stranger's unit only.
    const [posterBefore, escrowBefore] = await balances([addr(POSTER), escrow]);
    await mined(
      await chain.wallet(0).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "release",
        args: [jobId, addr(STRANGER), addr(AGENT)],
      }),
    );
    expect(escrowBefore - (await balance(escrow))).toBe(1n);
    expect(await balance(addr(POSTER))).toBe(posterBefore);
    // The poster's budget is still whole, for the poster's refund.
    expect(await readEscrow(jobId, addr(POSTER))).toMatchObject({ amount: BUDGET, state: 1 });
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [jobId, addr(POSTER)] }),
    );
    expect((await balance(addr(POSTER))) - posterBefore).toBe(BUDGET);
  });
});

describe("release and refund", () => {
  it("release pays the budget less 5% to the agent and keeps the 5% fee in the contract (feesAccrued)", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    const agent = addr(6);
    const before = await balances([agent, operator, escrow]);
    const accruedBefore = await feesAccrued();
    const receipt = await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "release", args: [jobId, addr(1), agent] }),
    );
    const after = await balances([agent, operator, escrow]);
    expect(after[0] - before[0]).toBe(190_000n); // 0.20 pays 0.19
    // The fee recipient gets nothing at release: the fee waits in the contract for withdrawFees().
    expect(after[1] - before[1]).toBe(0n);
    expect(before[2] - after[2]).toBe(190_000n);
    expect((await feesAccrued()) - accruedBefore).toBe(10_000n);

    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "Released", logs: receipt.logs });
    expect(event.args).toEqual({ jobId, payer: addr(1), to: agent, amount: 190_000n, fee: 10_000n });
    expect(await readEscrow(jobId, addr(1))).toMatchObject({ state: 2, settledBlock: receipt.blockNumber });
  });

  it("refund returns the whole deposit to the payer", async () => {
    const jobId = newEscrowJobId();
    const [payerBefore] = await balances([addr(1)]);
    await approveAndDeposit(1, jobId, BUDGET);
    const receipt = await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [jobId, addr(1)] }),
    );
    expect(await balance(addr(1))).toBe(payerBefore);
    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "Refunded", logs: receipt.logs });
    expect(event.args).toEqual({ jobId, to: addr(1), amount: BUDGET });
    expect((await readEscrow(jobId, addr(1))).state).toBe(3);
  });

  it("a settled job cannot be released or refunded again, and nothing moves", async () => {
    const released = newEscrowJobId();
    const refunded = newEscrowJobId();
    await approveAndDeposit(1, released, BUDGET);
    await approveAndDeposit(1, refunded, BUDGET);
    await mined(
      await chain.wallet(0).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "release",
        args: [released, addr(1), addr(6)],
      }),
    );
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [refunded, addr(1)] }),
    );

    for (const jobId of [released, refunded]) {
      expect(await revertOf(simulate("release", [jobId, addr(1), addr(6)], 0))).toBe("NotFunded");
      expect(await revertOf(simulate("refund", [jobId, addr(1)], 0))).toBe("NotFunded");
    }
    // Sent for real (a fixed gas limit skips estimation): the transaction reverts, balances stay.
    const before = await balances([addr(1), addr(6), escrow]);
    const hash = await chain.wallet(0).writeContract({
      address: escrow,
      abi: escrowAbi,
      functionName: "release",
      args: [released, addr(1), addr(6)],
      gas: 200_000n,
    });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("reverted");
    expect(await balances([addr(1), addr(6), escrow])).toEqual(before);
  });

  it("only the operator can release or refund", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    expect(await revertOf(simulate("release", [jobId, addr(1), addr(7)], 7))).toBe("NotOperator");
    expect(await revertOf(simulate("refund", [jobId, addr(1)], 1))).toBe("NotOperator"); // not even the payer
    expect((await readEscrow(jobId, addr(1))).state).toBe(1);
  });

  it("refuses to release what was never deposited, or to the zero address or the escrow itself", async () => {
    expect(await revertOf(simulate("release", [newEscrowJobId(), addr(1), addr(6)], 0))).toBe("NotFunded");
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    // The slot is keyed by its payer: another payer's (empty) slot of the same job has nothing.
    expect(await revertOf(simulate("release", [jobId, addr(2), addr(6)], 0))).toBe("NotFunded");
    expect(await revertOf(simulate("release", [jobId, addr(1), "0x0000000000000000000000000000000000000000"], 0))).toBe(
      "InvalidRecipient",
    );
    expect(await revertOf(simulate("release", [jobId, addr(1), escrow], 0))).toBe("InvalidRecipient");
  });
});

describe("settleSplit (a dispute ruling)", () => {
  it("pays the agent its share less the fee (on its share only) and the payer the rest, once", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    const agent = addr(6);
    const before = await balances([agent, addr(1), operator, escrow]);
    const accruedBefore = await feesAccrued();
    const share = (BUDGET * 70n) / 100n; // 0.14 of 0.20
    const receipt = await mined(
      await chain.wallet(0).writeContract({
        address: escrow,
        abi: escrowAbi,
        functionName: "settleSplit",
        args: [jobId, addr(1), agent, share],
      }),
    );
    const after = await balances([agent, addr(1), operator, escrow]);
    expect(after[0] - before[0]).toBe(133_000n); // 0.14 less 5% (0.007)
    expect(after[1] - before[1]).toBe(60_000n); // 0.06 back, no fee
    // The fee (on the agent's share only) stays in the contract until withdrawFees(), like a release's.
    expect(after[2] - before[2]).toBe(0n);
    expect((await feesAccrued()) - accruedBefore).toBe(7_000n);
    expect(before[3] - after[3]).toBe(BUDGET - 7_000n);
    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "SplitSettled", logs: receipt.logs });
    expect(event.args).toEqual({
      jobId,
      payer: addr(1),
      agent,
      agentAmount: 133_000n,
      fee: 7_000n,
      payerAmount: 60_000n,
    });
    expect(await readEscrow(jobId, addr(1))).toMatchObject({ state: 4, settledBlock: receipt.blockNumber });

    // Exactly once, and it excludes release and refund (and they exclude it).
    expect(await revertOf(simulate("settleSplit", [jobId, addr(1), agent, share], 0))).toBe("NotFunded");
    expect(await revertOf(simulate("release", [jobId, addr(1), agent], 0))).toBe("NotFunded");
    expect(await revertOf(simulate("refund", [jobId, addr(1)], 0))).toBe("NotFunded");
    const refunded = newEscrowJobId();
    await approveAndDeposit(1, refunded, BUDGET);
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [refunded, addr(1)] }),
    );
    expect(await revertOf(simulate("settleSplit", [refunded, addr(1), agent, share], 0))).toBe("NotFunded");
    // Sent for real: the second split reverts and nothing moves.
    const still = await balances([agent, addr(1), escrow]);
    const hash = await chain.wallet(0).writeContract({
      address: escrow,
      abi: escrowAbi,
      functionName: "settleSplit",
      args: [jobId, addr(1), agent, share],
      gas: 300_000n,
    });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("reverted");
    expect(await balances([agent, addr(1), escrow])).toEqual(still);
  });

  it("is the operator's only, and refuses a share above the deposit, a bad recipient or an empty slot", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    expect(await revertOf(simulate("settleSplit", [jobId, addr(1), addr(6), 1n], 6))).toBe("NotOperator");
    expect(await revertOf(simulate("settleSplit", [jobId, addr(1), addr(6), 1n], 1))).toBe("NotOperator");
    expect(await revertOf(simulate("settleSplit", [jobId, addr(1), addr(6), BUDGET + 1n], 0))).toBe("ShareTooLarge");
    expect(
      await revertOf(simulate("settleSplit", [jobId, addr(1), "0x0000000000000000000000000000000000000000", 1n], 0)),
    ).toBe("InvalidRecipient");
    expect(await revertOf(simulate("settleSplit", [jobId, addr(1), escrow, 1n], 0))).toBe("InvalidRecipient");
    expect(await revertOf(simulate("settleSplit", [jobId, addr(2), addr(6), 1n], 0))).toBe("NotFunded");
    expect((await readEscrow(jobId, addr(1))).state).toBe(1);
  });
});

describe("reentrancy through a malicious token", () => {
  let token: Address;
  let evil: Address; // an escrow over the malicious token, whose operator is the token itself

  const reentrancySelector = toFunctionSelector("ReentrancyGuardReentrantCall()");

  beforeAll(async () => {
    const w = chain.wallet(0);
    token = (await mined(await w.deployContract({ abi: reentrantAbi, bytecode: reentrantBytecode, args: [] })))
      .contractAddress as Address;
    evil = (
      await mined(
        await w.deployContract({ abi: escrowAbi, bytecode: escrowBytecode, args: [token, token, operator, 500] }),
      )
    ).contractAddress as Address;
    await mined(
      await w.writeContract({ address: token, abi: reentrantAbi, functionName: "mint", args: [addr(1), 10_000_000n] }),
    );
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: token, abi: reentrantAbi, functionName: "approve", args: [evil, 10_000_000n] }),
    );
  });

  async function lastReentry() {
    const read = <F extends "reentryAttempted" | "reentrySucceeded" | "reentryResult">(functionName: F) =>
      chain.publicClient.readContract({ address: token, abi: reentrantAbi, functionName });
    return {
      attempted: await read("reentryAttempted"),
      succeeded: await read("reentrySucceeded"),
      result: await read("reentryResult"),
    };
  }

  function arm(payload: Hex) {
    return chain
      .wallet(0)
      .writeContract({ address: token, abi: reentrantAbi, functionName: "arm", args: [evil, payload] });
  }

  it("a release re-entered from the token transfer fails and pays once", async () => {
    const jobId = newEscrowJobId();
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: evil, abi: escrowAbi, functionName: "deposit", args: [jobId, BUDGET] }),
    );
    const payload = encodeFunctionData({ abi: escrowAbi, functionName: "release", args: [jobId, addr(1), addr(8)] });
    await mined(await arm(payload));
    const before = await balances([addr(8), evil], token);
    // The token, as operator, releases; its transfer hook tries to release the same job again.
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: token, abi: reentrantAbi, functionName: "forward", args: [evil, payload] }),
    );
    const after = await balances([addr(8), evil], token);

    const reentry = await lastReentry();
    expect(reentry.attempted).toBe(true);
    expect(reentry.succeeded).toBe(false);
    expect(reentry.result.slice(0, 10)).toBe(reentrancySelector);
    expect(after[0] - before[0]).toBe(190_000n);
    // Only the agent's share left the contract, once; the fee stays accrued.
    expect(before[1] - after[1]).toBe(190_000n);
    expect(await chain.publicClient.readContract({ address: evil, abi: escrowAbi, functionName: "feesAccrued" })).toBe(
      10_000n,
    );
    expect(
      await chain.publicClient.readContract({ address: evil, abi: escrowAbi, functionName: "totalClaimable" }),
    ).toBe(0n);
  });

  it("a refund re-entered during a release fails", async () => {
    const jobId = newEscrowJobId();
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: evil, abi: escrowAbi, functionName: "deposit", args: [jobId, BUDGET] }),
    );
    await mined(await arm(encodeFunctionData({ abi: escrowAbi, functionName: "refund", args: [jobId, addr(1)] })));
    const [payerBefore] = await balances([addr(1)], token);
    await mined(
      await chain.wallet(0).writeContract({
        address: token,
        abi: reentrantAbi,
        functionName: "forward",
        args: [evil, encodeFunctionData({ abi: escrowAbi, functionName: "release", args: [jobId, addr(1), addr(8)] })],
      }),
    );
    const reentry = await lastReentry();
    expect(reentry.succeeded).toBe(false);
    expect(decodeErrorResult({ abi: escrowAbi, data: reentry.result }).errorName).toBe("ReentrancyGuardReentrantCall");
    expect(await balance(addr(1), token)).toBe(payerBefore);
    expect((await readEscrow(jobId, addr(1), evil)).state).toBe(2);
  });

  it("a tight gas limit cannot push a payout the token would accept into the claimable path", async () => {
    // Each transfer of the token now burns 6M gas: it succeeds with enough gas and runs out
    // under less. By the 63/64 rule the escrow keeps 1/64 of the gas (~90k), enough to credit
    // the payout as claimable; the escrow must see that the transfer starved and revert instead.
    const jobId = newEscrowJobId();
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: evil, abi: escrowAbi, functionName: "deposit", args: [jobId, BUDGET] }),
    );
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: token, abi: reentrantAbi, functionName: "setGasToBurn", args: [6_000_000n] }),
    );
    const payload = encodeFunctionData({ abi: escrowAbi, functionName: "refund", args: [jobId, addr(1)] });
    let succeeded = 0;
    let failed = 0;
    try {
      for (let gas = 5_000_000n; gas <= 7_000_000n; gas += 100_000n) {
        const snapshot = await chain.testClient.snapshot();
        // The nonce from the latest block: right after a revert anvil may still count the reverted
        // transaction as pending, and a nonce one too high leaves this one queued forever.
        const nonce = await chain.publicClient.getTransactionCount({ address: operator, blockTag: "latest" });
        const hash = await chain.wallet(0).writeContract({
          address: token,
          abi: reentrantAbi,
          functionName: "forward",
          args: [evil, payload],
          gas,
          nonce,
        });
        const receipt = await receiptAfterRevert(hash);
        if (receipt.status === "success") {
          succeeded++;
          expect(parseEventLogs({ abi: escrowAbi, eventName: "Credited", logs: receipt.logs }), `gas ${gas}`).toEqual(
            [],
          );
        } else {
          failed++;
        }
        await chain.testClient.revert({ id: snapshot });
        // anvil may put the reverted block's transaction back into its pool; the next one reuses
        // its nonce and would be refused as an underpriced replacement, so the pool drops it.
        await chain.testClient.dropTransaction({ hash }).catch(() => undefined);
      }
    } finally {
      await mined(
        await chain
          .wallet(0)
          .writeContract({ address: token, abi: reentrantAbi, functionName: "setGasToBurn", args: [0n] }),
      );
    }
    // The sweep spans the boundary: too little gas reverts, enough refunds the payer directly.
    expect(failed).toBeGreaterThan(0);
    expect(succeeded).toBeGreaterThan(0);
  });

  it("a deposit re-entered from transferFrom fails", async () => {
    const jobId = newEscrowJobId();
    const other = newEscrowJobId();
    await mined(await arm(encodeFunctionData({ abi: escrowAbi, functionName: "deposit", args: [other, 1n] })));
    await mined(
      await chain
        .wallet(1)
        .writeContract({ address: evil, abi: escrowAbi, functionName: "deposit", args: [jobId, BUDGET] }),
    );
    const reentry = await lastReentry();
    expect(reentry.succeeded).toBe(false);
    expect(reentry.result.slice(0, 10)).toBe(reentrancySelector);
    expect((await readEscrow(other, addr(1), evil)).state).toBe(0);
    expect((await readEscrow(other, token, evil)).state).toBe(0);
    expect((await readEscrow(jobId, addr(1), evil)).amount).toBe(BUDGET);
  });
});

describe("a recipient the token refuses (USDC blacklist)", () => {
  async function blacklist(who: Address, on: boolean) {
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: usdc, abi: usdcAbi, functionName: "setBlacklisted", args: [who, on] }),
    );
  }
  const claimable = (who: Address) =>
    chain.publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "claimable", args: [who] });

  it("the test token refuses transfers to and from a blacklisted address", async () => {
    await blacklist(addr(9), true);
    try {
      expect(
        await revertOf(
          chain.publicClient.simulateContract({
            account: chain.wallet(1).account,
            address: usdc,
            abi: usdcAbi,
            functionName: "transfer",
            args: [addr(9), 1n],
          }),
        ),
      ).toBe("AccountBlacklisted");
    } finally {
      await blacklist(addr(9), false);
    }
  });

  it("release to a blacklisted agent settles the job and holds the payout for claim to another address", async () => {
    const jobId = newEscrowJobId();
    const agent = addr(7);
    await approveAndDeposit(1, jobId, BUDGET);
    await blacklist(agent, true);
    const [agentBefore, feeBefore] = await balances([agent, operator]);
    const receipt = await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "release", args: [jobId, addr(1), agent] }),
    );

    expect((await readEscrow(jobId, addr(1))).state).toBe(2);
    expect(await balance(agent)).toBe(agentBefore);
    expect(await balance(operator)).toBe(feeBefore); // the fee accrues in the contract, as for any release
    expect(await claimable(agent)).toBe(190_000n);
    const credited = parseEventLogs({ abi: escrowAbi, eventName: "Credited", logs: receipt.logs });
    expect(credited.map((e) => e.args)).toEqual([{ jobId, account: agent, amount: 190_000n }]);

    // Claiming to another blacklisted address fails and keeps the credit...
    await blacklist(addr(9), true);
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          account: chain.wallet(7).account,
          address: escrow,
          abi: escrowAbi,
          functionName: "claim",
          args: [addr(9)],
        }),
      ),
    ).toContain(toFunctionSelector("AccountBlacklisted(address)")); // the token's error, bubbled up
    await blacklist(addr(9), false);
    // ...claiming to an accepted address moves it, once.
    const [destBefore] = await balances([addr(5)]);
    await mined(
      await chain.wallet(7).writeContract({ address: escrow, abi: escrowAbi, functionName: "claim", args: [addr(5)] }),
    );
    expect((await balance(addr(5))) - destBefore).toBe(190_000n);
    expect(await claimable(agent)).toBe(0n);
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          account: chain.wallet(7).account,
          address: escrow,
          abi: escrowAbi,
          functionName: "claim",
          args: [addr(5)],
        }),
      ),
    ).toBe("NothingToClaim");
    await blacklist(agent, false);
  });

  it("refund to a blacklisted payer is held for claim, and the payer claims it after delisting", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(4, jobId, BUDGET);
    await blacklist(addr(4), true);
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "refund", args: [jobId, addr(4)] }),
    );
    expect((await readEscrow(jobId, addr(4))).state).toBe(3);
    expect(await claimable(addr(4))).toBe(BUDGET);
    await blacklist(addr(4), false);
    const before = await balance(addr(4));
    await mined(
      await chain.wallet(4).writeContract({ address: escrow, abi: escrowAbi, functionName: "claim", args: [addr(4)] }),
    );
    expect((await balance(addr(4))) - before).toBe(BUDGET);
  });

  it("a blacklisted fee recipient does not block releases; its withdrawal reverts and the fees stay accrued", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    await blacklist(operator, true);
    try {
      const [agentBefore] = await balances([addr(6)]);
      const accrued = await feesAccrued();
      await mined(
        await chain
          .wallet(0)
          .writeContract({ address: escrow, abi: escrowAbi, functionName: "release", args: [jobId, addr(1), addr(6)] }),
      );
      expect((await balance(addr(6))) - agentBefore).toBe(190_000n);
      expect((await feesAccrued()) - accrued).toBe(10_000n);
      // The token refuses the recipient: the withdrawal reverts (its error is the token's) and nothing moves.
      await revertOf(
        chain.publicClient.simulateContract({
          account: operator,
          address: escrow,
          abi: escrowAbi,
          functionName: "withdrawFees",
        }),
      );
      expect(await feesAccrued()).toBe(accrued + 10_000n);
    } finally {
      await blacklist(operator, false);
    }
  });
});

describe("withdrawFees", () => {
  it("sends every accrued fee to the fee recipient once, with FeesWithdrawn; a second call reverts NoFeesAccrued; only the operator", async () => {
    const jobId = newEscrowJobId();
    await approveAndDeposit(1, jobId, BUDGET);
    await mined(
      await chain
        .wallet(0)
        .writeContract({ address: escrow, abi: escrowAbi, functionName: "release", args: [jobId, addr(1), addr(6)] }),
    );
    const accrued = await feesAccrued();
    expect(accrued).toBeGreaterThanOrEqual(10_000n);
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          account: addr(5),
          address: escrow,
          abi: escrowAbi,
          functionName: "withdrawFees",
        }),
      ),
    ).toBe("NotOperator");
    const [recipientBefore, escrowBefore] = await balances([operator, escrow]);
    const receipt = await mined(
      await chain.wallet(0).writeContract({ address: escrow, abi: escrowAbi, functionName: "withdrawFees" }),
    );
    const [recipientAfter, escrowAfter] = await balances([operator, escrow]);
    expect(recipientAfter - recipientBefore).toBe(accrued);
    expect(escrowBefore - escrowAfter).toBe(accrued);
    expect(await feesAccrued()).toBe(0n);
    const [event] = parseEventLogs({ abi: escrowAbi, eventName: "FeesWithdrawn", logs: receipt.logs });
    expect(event.args).toEqual({ to: operator, amount: accrued });
    expect(
      await revertOf(
        chain.publicClient.simulateContract({
          account: operator,
          address: escrow,
          abi: escrowAbi,
          functionName: "withdrawFees",
        }),
      ),
    ).toBe("NoFeesAccrued");
  });
});
