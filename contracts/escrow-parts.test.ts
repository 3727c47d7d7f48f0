// The escrow contract paid in parts (milestones) against a real anvil: partial releases, a split
// of one part and a refund of the rest add up to the deposit exactly (fees included); a part
// settles once; the whole-job functions settle only what the parts left; the gas of a part
// release beside a whole-job release.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEventLogs, type Address, type Hex } from "viem";
import { abi as escrowAbi } from "./artifacts/escrow";
import { abi as usdcAbi } from "./artifacts/test-usdc";
import { errorText } from "@/lib/chain/escrow/errors";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { startTestChain, type TestChain } from "@/lib/chain/testing";

let chain: TestChain;
let escrow: Address;
let usdc: Address;
let feeBps: bigint;

const PAYER = 1;
const AGENT = 6;
const addr = (i: number) => chain.accounts[i].address;

beforeAll(async () => {
  chain = await startTestChain();
  escrow = chain.config.escrowAddress;
  usdc = chain.config.tokenAddress;
  feeBps = BigInt(await chain.publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "feeBps" }));
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

const balance = (who: Address) =>
  chain.publicClient.readContract({ address: usdc, abi: usdcAbi, functionName: "balanceOf", args: [who] });
const balances = (who: Address[]) => Promise.all(who.map(balance));
const feesAccrued = () =>
  chain.publicClient.readContract({ address: escrow, abi: escrowAbi, functionName: "feesAccrued" });

async function deposit(jobId: Hex, amount: bigint) {
  const w = chain.wallet(PAYER);
  await mined(await w.writeContract({ address: usdc, abi: usdcAbi, functionName: "approve", args: [escrow, amount] }));
  await mined(
    await w.writeContract({ address: escrow, abi: escrowAbi, functionName: "deposit", args: [jobId, amount] }),
  );
}

type Fn = "releasePart" | "refundPart" | "settlePartSplit" | "release" | "refund" | "settleSplit";
const send = (functionName: Fn, args: readonly unknown[], from = 0) =>
  chain.wallet(from).writeContract({ address: escrow, abi: escrowAbi, functionName, args } as never) as Promise<Hex>;

async function revertOf(functionName: Fn, args: readonly unknown[], from = 0): Promise<string> {
  try {
    await chain.publicClient.simulateContract({
      account: chain.wallet(from).account,
      address: escrow,
      abi: escrowAbi,
      functionName,
      args,
    } as never);
  } catch (err) {
    return errorText(err);
  }
  throw new Error("expected the call to revert");
}

const readSlot = async (jobId: Hex) => {
  const [amount, state, settledBlock] = await chain.publicClient.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: [jobId, addr(PAYER)],
  });
  return { amount, state, settledBlock };
};
const readPart = async (jobId: Hex, part: bigint) => {
  const [settledBlock, remaining] = await chain.publicClient.readContract({
    address: escrow,
    abi: escrowAbi,
    functionName: "getPart",
    args: [jobId, addr(PAYER), part],
  });
  return { settledBlock, remaining };
};

const fee = (units: bigint) => (units * feeBps) / 10_000n;
const USDC = 1_000_000n;

describe("a deposit settled in parts", () => {
  it("two part releases, a split part and a refund of the rest add up to the deposit exactly, fees included", async () => {
    const jobId = newEscrowJobId();
    const parts = [7n * USDC, 10n * USDC, 5n * USDC]; // 22 of a 30 USDC deposit; 8 USDC stay for the refund
    const DEPOSIT = 30n * USDC;
    await deposit(jobId, DEPOSIT);
    const who = [addr(PAYER), addr(AGENT), escrow];
    const [payer0, agent0, escrow0] = await balances(who);
    const fees0 = await feesAccrued();

    const r0 = await mined(await send("releasePart", [jobId, addr(PAYER), 0n, parts[0], addr(AGENT)]));
    const [released] = parseEventLogs({ abi: escrowAbi, eventName: "PartReleased", logs: r0.logs });
    expect(released.args).toEqual({
      jobId,
      payer: addr(PAYER),
      part: 0n,
      to: addr(AGENT),
      amount: parts[0] - fee(parts[0]),
      fee: fee(parts[0]),
    });
    expect(await readPart(jobId, 0n)).toEqual({ settledBlock: r0.blockNumber, remaining: DEPOSIT - parts[0] });

    // Part 1 disputed and split: 40 % of it to the agent (fee on that share only), the rest back.
    const share = (parts[1] * 40n) / 100n;
    const r1 = await mined(await send("settlePartSplit", [jobId, addr(PAYER), 1n, parts[1], addr(AGENT), share]));
    const [split] = parseEventLogs({ abi: escrowAbi, eventName: "PartSplitSettled", logs: r1.logs });
    expect(split.args).toMatchObject({
      part: 1n,
      agentAmount: share - fee(share),
      fee: fee(share),
      payerAmount: parts[1] - share,
    });

    await mined(await send("releasePart", [jobId, addr(PAYER), 2n, parts[2], addr(AGENT)]));
    expect((await readSlot(jobId)).state).toBe(1); // still funded: 8 USDC remain

    // Cancellation: the whole-job refund returns what the parts left, and closes the slot.
    const r3 = await mined(await send("refund", [jobId, addr(PAYER)]));
    const [refunded] = parseEventLogs({ abi: escrowAbi, eventName: "Refunded", logs: r3.logs });
    expect(refunded.args.amount).toBe(DEPOSIT - parts[0] - parts[1] - parts[2]);
    expect((await readSlot(jobId)).state).toBe(3);

    const [payer1, agent1, escrow1] = await balances(who);
    const fees = (await feesAccrued()) - fees0;
    const agentGot = agent1 - agent0;
    const payerGot = payer1 - payer0;
    expect(fees).toBe(fee(parts[0]) + fee(share) + fee(parts[2]));
    expect(agentGot).toBe(parts[0] + share + parts[2] - fees);
    expect(payerGot).toBe(parts[1] - share + (DEPOSIT - parts[0] - parts[1] - parts[2]));
    // Every unit of the deposit is accounted for: paid to the agent, back to the payer, or a fee
    // the contract holds for the treasury.
    expect(agentGot + payerGot + fees).toBe(DEPOSIT);
    expect(escrow0 - escrow1).toBe(DEPOSIT - fees);
  });

  it("parts that take the whole deposit close the slot (PartsSettled); nothing is left to release or refund", async () => {
    const jobId = newEscrowJobId();
    await deposit(jobId, 30n * USDC);
    for (const part of [0n, 1n, 2n])
      await mined(await send("releasePart", [jobId, addr(PAYER), part, 10n * USDC, addr(AGENT)]));
    expect((await readSlot(jobId)).state).toBe(5);
    expect(await readPart(jobId, 2n)).toMatchObject({ remaining: 0n });
    expect(await revertOf("refund", [jobId, addr(PAYER)])).toBe("NotFunded");
    expect(await revertOf("release", [jobId, addr(PAYER), addr(AGENT)])).toBe("NotFunded");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 3n, 1n, addr(AGENT)])).toBe("NotFunded");
  });

  it("a second release of a part reverts, sent for real too, and nothing moves", async () => {
    const jobId = newEscrowJobId();
    await deposit(jobId, 30n * USDC);
    await mined(await send("releasePart", [jobId, addr(PAYER), 0n, 10n * USDC, addr(AGENT)]));
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 10n * USDC, addr(AGENT)])).toBe("PartAlreadySettled");
    expect(await revertOf("refundPart", [jobId, addr(PAYER), 0n, 10n * USDC])).toBe("PartAlreadySettled");
    expect(await revertOf("settlePartSplit", [jobId, addr(PAYER), 0n, 10n * USDC, addr(AGENT), 1n])).toBe(
      "PartAlreadySettled",
    );

    const before = await balances([addr(PAYER), addr(AGENT), escrow]);
    const hash = await chain.wallet(0).writeContract({
      address: escrow,
      abi: escrowAbi,
      functionName: "releasePart",
      args: [jobId, addr(PAYER), 0n, 10n * USDC, addr(AGENT)],
      gas: 200_000n,
    });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("reverted");
    expect(await balances([addr(PAYER), addr(AGENT), escrow])).toEqual(before);

    // A refunded part is settled too.
    await mined(await send("refundPart", [jobId, addr(PAYER), 1n, 10n * USDC]));
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 1n, 10n * USDC, addr(AGENT)])).toBe("PartAlreadySettled");
  });

  it("parts never take more than the deposit holds, are the operator's only, and need a funded slot", async () => {
    const jobId = newEscrowJobId();
    await deposit(jobId, 30n * USDC);
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 0n, 31n * USDC, addr(AGENT)])).toBe("PartTooLarge");
    await mined(await send("releasePart", [jobId, addr(PAYER), 0n, 20n * USDC, addr(AGENT)]));
    expect(await revertOf("refundPart", [jobId, addr(PAYER), 1n, 10n * USDC + 1n])).toBe("PartTooLarge");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 1n, 0n, addr(AGENT)])).toBe("ZeroAmount");
    expect(await revertOf("settlePartSplit", [jobId, addr(PAYER), 1n, 5n * USDC, addr(AGENT), 5n * USDC + 1n])).toBe(
      "ShareTooLarge",
    );
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 1n, USDC, addr(AGENT)], PAYER)).toBe("NotOperator");
    expect(await revertOf("refundPart", [jobId, addr(PAYER), 1n, USDC], AGENT)).toBe("NotOperator");
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 1n, USDC, escrow])).toBe("InvalidRecipient");
    expect(await revertOf("releasePart", [newEscrowJobId(), addr(PAYER), 0n, USDC, addr(AGENT)])).toBe("NotFunded");
    // A whole-job release after parts pays only what remains, with the fee on that.
    const agent0 = await balance(addr(AGENT));
    const r = await mined(await send("release", [jobId, addr(PAYER), addr(AGENT)]));
    const [ev] = parseEventLogs({ abi: escrowAbi, eventName: "Released", logs: r.logs });
    expect(ev.args.amount + ev.args.fee).toBe(10n * USDC);
    expect((await balance(addr(AGENT))) - agent0).toBe(10n * USDC - fee(10n * USDC));
    expect(await revertOf("releasePart", [jobId, addr(PAYER), 1n, USDC, addr(AGENT)])).toBe("NotFunded");
  });

  it("gas: a part release beside a whole-job release", async () => {
    const whole = newEscrowJobId();
    const inParts = newEscrowJobId();
    await deposit(whole, 30n * USDC);
    await deposit(inParts, 30n * USDC);
    const wholeGas = (await mined(await send("release", [whole, addr(PAYER), addr(AGENT)]))).gasUsed;
    const first = (await mined(await send("releasePart", [inParts, addr(PAYER), 0n, 10n * USDC, addr(AGENT)]))).gasUsed;
    const middle = (await mined(await send("releasePart", [inParts, addr(PAYER), 1n, 10n * USDC, addr(AGENT)])))
      .gasUsed;
    const last = (await mined(await send("releasePart", [inParts, addr(PAYER), 2n, 10n * USDC, addr(AGENT)]))).gasUsed;
    process.stdout.write(
      `gas: whole-job release ${wholeGas}; part releases ${first}, ${middle}, ${last} (last closes the slot)\n`,
    );
    // A part costs one more storage slot (its settled block) than a whole release; bounded so a
    // change that makes parts much dearer is noticed.
    expect(first).toBeLessThan(wholeGas + 40_000n);
    expect(middle).toBeLessThan(wholeGas + 40_000n);
  });
});
