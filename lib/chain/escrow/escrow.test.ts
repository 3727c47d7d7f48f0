// The service's chain code against real anvil nodes: deposit verification (each refusal with
// its code), a slot per payer (a stranger's front-running deposit), idempotent release and
// refund, and USDC payouts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, parseEventLogs, stringToBytes, type Address, type Hex } from "viem";
import { abi as escrowArtifactAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { escrowAbi, usdcAbi } from "../abi";
import type { ChainConfig } from "../config";
import { escrowJobIdFromWire, escrowJobIdToWire, newEscrowJobId } from "../escrow-id";
import { startTestChain, type TestChain } from "../testing";
import { parseUsdc } from "../units";
import { EscrowError } from "./errors";
import { checkEscrowDeployment, claimableOf, erc20BalanceOf, getEscrow } from "./reads";
import { depositToEscrow, transferUsdc } from "./send";
import { refundEscrow, releaseEscrow } from "./settle";
import { verifyDeposit } from "./verify-deposit";

let chain: TestChain;
let config: ChainConfig;

const BUDGET = parseUsdc("12.5");

beforeAll(async () => {
  chain = await startTestChain();
  config = chain.config;
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

const payerKey = (i = 1) => chain.accounts[i].privateKey;
const addr = (i: number) => chain.accounts[i].address;

async function funded(amount = BUDGET, payer = 1): Promise<{ jobId: Hex; txHash: Hex }> {
  const jobId = newEscrowJobId();
  const { txHash } = await depositToEscrow({ config, privateKey: payerKey(payer), escrowJobId: jobId, amount });
  return { jobId, txHash };
}

describe("verifyDeposit", () => {
  it("accepts a real deposit and reports payer, amount, block and confirmations", async () => {
    const { jobId, txHash } = await funded();
    const check = await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET });
    expect(check).toMatchObject({ ok: true, payer: addr(1), amount: BUDGET, confirmations: 1 });
  });

  it("accepts a permit deposit and the wire form of the job id", async () => {
    const jobId = newEscrowJobId();
    const { txHash } = await depositToEscrow({
      config,
      privateKey: payerKey(2),
      escrowJobId: jobId,
      amount: BUDGET,
      usePermit: true,
    });
    const wire = escrowJobIdToWire(jobId);
    const check = await verifyDeposit({
      config,
      txHash,
      escrowJobId: escrowJobIdFromWire(wire),
      expectedAmount: BUDGET,
    });
    expect(check).toMatchObject({ ok: true, payer: addr(2) });
  });

  it("TX_NOT_FOUND for a forged (random) hash or a malformed one", async () => {
    const forged = keccak256(stringToBytes(`forged-${Math.random()}`));
    expect(
      await verifyDeposit({ config, txHash: forged, escrowJobId: newEscrowJobId(), expectedAmount: BUDGET }),
    ).toMatchObject({
      ok: false,
      code: "TX_NOT_FOUND",
    });
    expect(
      await verifyDeposit({ config, txHash: "0x1234", escrowJobId: newEscrowJobId(), expectedAmount: BUDGET }),
    ).toMatchObject({
      ok: false,
      code: "TX_NOT_FOUND",
    });
  });

  it("TX_REVERTED for a deposit that reverted (no allowance)", async () => {
    const jobId = newEscrowJobId();
    // A fixed gas limit skips estimation, so the failing call is mined as a reverted transaction.
    const txHash = await chain.wallet(3).writeContract({
      address: config.escrowAddress,
      abi: escrowAbi,
      functionName: "deposit",
      args: [jobId, parseUsdc("999")],
      gas: 200_000n,
    });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash: txHash })).status).toBe("reverted");
    expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: parseUsdc("999") })).toMatchObject(
      {
        ok: false,
        code: "TX_REVERTED",
      },
    );
  });

  it("WRONG_CHAIN for a deposit made on another chain, even to the same escrow address", async () => {
    const other = await startTestChain({ chainId: 31338 });
    try {
      // The same deployer and nonces put the escrow at the same address on both chains: only
      // the chain check tells these deposits apart.
      expect(other.config.escrowAddress).toBe(config.escrowAddress);
      const jobId = newEscrowJobId();
      const { txHash } = await depositToEscrow({
        config: other.config,
        privateKey: payerKey(),
        escrowJobId: jobId,
        amount: BUDGET,
      });
      expect(
        await verifyDeposit({ config: other.config, txHash, escrowJobId: jobId, expectedAmount: BUDGET }),
      ).toMatchObject({ ok: true });

      // Our configuration, pointed (by mistake or malice) at the other chain's RPC:
      const misrouted: ChainConfig = { ...config, rpcUrl: other.rpcUrl };
      expect(
        await verifyDeposit({ config: misrouted, txHash, escrowJobId: jobId, expectedAmount: BUDGET }),
      ).toMatchObject({
        ok: false,
        code: "WRONG_CHAIN",
      });
      // On our own chain the hash does not exist.
      expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
        ok: false,
        code: "TX_NOT_FOUND",
      });
    } finally {
      await other.stop();
    }
  });

  it("WRONG_CONTRACT for a deposit into another escrow contract", async () => {
    const w = chain.wallet(0);
    const deployHash = await w.deployContract({
      abi: escrowArtifactAbi,
      bytecode: escrowBytecode,
      args: [config.tokenAddress, addr(0), addr(0), 500],
    });
    const impostor = (await chain.publicClient.waitForTransactionReceipt({ hash: deployHash }))
      .contractAddress as Address;
    const jobId = newEscrowJobId();
    const { txHash } = await depositToEscrow({
      config: { ...config, escrowAddress: impostor },
      privateKey: payerKey(),
      escrowJobId: jobId,
      amount: BUDGET,
    });
    expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
      ok: false,
      code: "WRONG_CONTRACT",
    });
  });

  it("NO_DEPOSIT_EVENT for a transaction that is no deposit (a plain USDC transfer to the escrow)", async () => {
    const { txHash } = await transferUsdc({ config, to: config.escrowAddress, amount: BUDGET, privateKey: payerKey() });
    expect(
      await verifyDeposit({ config, txHash, escrowJobId: newEscrowJobId(), expectedAmount: BUDGET }),
    ).toMatchObject({
      ok: false,
      code: "NO_DEPOSIT_EVENT",
    });
  });

  it("WRONG_JOB for a deposit made for another job", async () => {
    const { txHash } = await funded();
    expect(
      await verifyDeposit({ config, txHash, escrowJobId: newEscrowJobId(), expectedAmount: BUDGET }),
    ).toMatchObject({
      ok: false,
      code: "WRONG_JOB",
    });
  });

  it("WRONG_AMOUNT for a deposit of another amount", async () => {
    const { jobId, txHash } = await funded(parseUsdc("12.49"));
    expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
      ok: false,
      code: "WRONG_AMOUNT",
    });
  });

  it("NOT_CONFIRMED until the configured confirmations are reached", async () => {
    const strict: ChainConfig = { ...config, confirmations: 3 };
    const { jobId, txHash } = await funded();
    expect(await verifyDeposit({ config: strict, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
      ok: false,
      code: "NOT_CONFIRMED",
      confirmations: 1,
    });
    await chain.testClient.mine({ blocks: 2 });
    expect(await verifyDeposit({ config: strict, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
      ok: true,
      confirmations: 3,
    });
  });

  it("NOT_CONFIRMED with 0 confirmations for a transaction still pending", async () => {
    const jobId = newEscrowJobId();
    await chain.testClient.setAutomine(false);
    try {
      // The wallet client sends directly (no receipt wait); approve and deposit both wait in the pool.
      const w = chain.wallet(4);
      await w.writeContract({
        address: config.tokenAddress,
        abi: usdcAbi,
        functionName: "approve",
        args: [config.escrowAddress, BUDGET],
        gas: 100_000n,
      });
      const txHash = await w.writeContract({
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "deposit",
        args: [jobId, BUDGET],
        gas: 200_000n,
      });
      expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
        ok: false,
        code: "NOT_CONFIRMED",
        confirmations: 0,
      });
      await chain.testClient.mine({ blocks: 1 });
      expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
        ok: true,
      });
    } finally {
      await chain.testClient.setAutomine(true);
    }
  });

  it("ESCROW_NOT_FUNDED for a deposit that was refunded since", async () => {
    const { jobId, txHash } = await funded();
    await refundEscrow({ config, escrowJobId: jobId, payer: addr(1) });
    expect(await verifyDeposit({ config, txHash, escrowJobId: jobId, expectedAmount: BUDGET })).toMatchObject({
      ok: false,
      code: "ESCROW_NOT_FUNDED",
    });
  });
});

describe("a stranger's deposit under the same (public) job id", () => {
  it("does not stop the poster's deposit, which verifies with the poster as payer; the stranger's does not pass as the budget", async () => {
    const jobId = newEscrowJobId();
    const stranger = await depositToEscrow({ config, privateKey: payerKey(5), escrowJobId: jobId, amount: 1n });
    const poster = await depositToEscrow({ config, privateKey: payerKey(1), escrowJobId: jobId, amount: BUDGET });
    expect(
      await verifyDeposit({ config, txHash: poster.txHash, escrowJobId: jobId, expectedAmount: BUDGET }),
    ).toMatchObject({ ok: true, payer: addr(1), amount: BUDGET });
    expect(
      await verifyDeposit({ config, txHash: stranger.txHash, escrowJobId: jobId, expectedAmount: BUDGET }),
    ).toMatchObject({ ok: false, code: "WRONG_AMOUNT" });
  });

  it("release and refund settle the named slot only, each exactly once", async () => {
    const jobId = newEscrowJobId();
    await depositToEscrow({ config, privateKey: payerKey(5), escrowJobId: jobId, amount: 1n });
    await depositToEscrow({ config, privateKey: payerKey(1), escrowJobId: jobId, amount: BUDGET });
    const agent = addr(6);
    const released = await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent });
    expect(released).toMatchObject({
      to: agent,
      amount: parseUsdc("11.875"),
      fee: parseUsdc("0.625"),
      alreadySettled: false,
    });
    expect(await getEscrow({ config, escrowJobId: jobId, payer: addr(5) })).toMatchObject({
      amount: 1n,
      state: "FUNDED",
    });

    const stray = await refundEscrow({ config, escrowJobId: jobId, payer: addr(5) });
    expect(stray).toMatchObject({ to: addr(5), amount: 1n, fee: 0n, alreadySettled: false });
    // Asked again, each slot answers its own settlement, never the other's.
    expect(await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent })).toEqual({
      ...released,
      alreadySettled: true,
    });
    expect(await refundEscrow({ config, escrowJobId: jobId, payer: addr(5) })).toEqual({
      ...stray,
      alreadySettled: true,
    });
    await expect(refundEscrow({ config, escrowJobId: jobId, payer: addr(1) })).rejects.toMatchObject({
      code: "ALREADY_RELEASED",
    });
    await expect(refundEscrow({ config, escrowJobId: jobId, payer: addr(2) })).rejects.toMatchObject({
      code: "NOT_FUNDED",
    });
  });
});

describe("releaseEscrow and refundEscrow", () => {
  it("release twice returns the same transaction and moves money once", async () => {
    const { jobId } = await funded();
    const agent = addr(6);
    const before = await erc20BalanceOf({ config, address: agent });
    const first = await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent });
    const second = await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent });
    const after = await erc20BalanceOf({ config, address: agent });

    expect(first).toMatchObject({
      to: agent,
      amount: parseUsdc("11.875"),
      fee: parseUsdc("0.625"),
      heldForClaim: 0n,
      alreadySettled: false,
    });
    expect(second).toEqual({ ...first, alreadySettled: true });
    expect(after - before).toBe(parseUsdc("11.875"));
    expect(await getEscrow({ config, escrowJobId: jobId, payer: addr(1) })).toMatchObject({
      state: "RELEASED",
      settledBlock: first.blockNumber,
    });

    const receipt = await chain.publicClient.getTransactionReceipt({ hash: first.txHash });
    expect(parseEventLogs({ abi: escrowAbi, eventName: "Released", logs: receipt.logs })).toHaveLength(1);
  });

  it("concurrent releases of one job send one transaction", async () => {
    const { jobId } = await funded();
    const agent = addr(7);
    const before = await erc20BalanceOf({ config, address: agent });
    const results = await Promise.all(
      [1, 2, 3].map(() => releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent })),
    );
    expect(new Set(results.map((r) => r.txHash)).size).toBe(1);
    expect(results.filter((r) => !r.alreadySettled)).toHaveLength(1);
    expect((await erc20BalanceOf({ config, address: agent })) - before).toBe(parseUsdc("11.875"));
  });

  it("refund twice returns the same transaction and refunds once", async () => {
    const before = await erc20BalanceOf({ config, address: addr(5) });
    const { jobId } = await funded(BUDGET, 5);
    const first = await refundEscrow({ config, escrowJobId: jobId, payer: addr(5) });
    const second = await refundEscrow({ config, escrowJobId: jobId, payer: addr(5) });
    expect(first).toMatchObject({ to: addr(5), amount: BUDGET, fee: 0n, alreadySettled: false });
    expect(second.txHash).toBe(first.txHash);
    expect(second.alreadySettled).toBe(true);
    expect(await erc20BalanceOf({ config, address: addr(5) })).toBe(before);
  });

  it("refuses to settle the other way, or a job that was never funded", async () => {
    const { jobId: released } = await funded();
    await releaseEscrow({ config, escrowJobId: released, payer: addr(1), to: addr(6) });
    await expect(refundEscrow({ config, escrowJobId: released, payer: addr(1) })).rejects.toMatchObject({
      code: "ALREADY_RELEASED",
    });

    const { jobId: refunded } = await funded();
    await refundEscrow({ config, escrowJobId: refunded, payer: addr(1) });
    await expect(releaseEscrow({ config, escrowJobId: refunded, payer: addr(1), to: addr(6) })).rejects.toMatchObject({
      code: "ALREADY_REFUNDED",
    });

    const never = releaseEscrow({ config, escrowJobId: newEscrowJobId(), payer: addr(1), to: addr(6) });
    await expect(never).rejects.toBeInstanceOf(EscrowError);
    await expect(never).rejects.toMatchObject({ code: "NOT_FUNDED" });
  });

  it("reports a payout held for claim when the agent's address is blacklisted", async () => {
    const { jobId } = await funded();
    const agent = addr(8);
    const blacklist = async (on: boolean) =>
      chain.publicClient.waitForTransactionReceipt({
        hash: await chain.wallet(0).writeContract({
          address: config.tokenAddress,
          abi: usdcAbi,
          functionName: "setBlacklisted",
          args: [agent, on],
        }),
      });
    await blacklist(true);
    try {
      const result = await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent });
      expect(result.heldForClaim).toBe(parseUsdc("11.875"));
      expect(await claimableOf({ config, account: agent })).toBe(parseUsdc("11.875"));
      // Asking again returns the same settlement, with the same finding.
      expect(await releaseEscrow({ config, escrowJobId: jobId, payer: addr(1), to: agent })).toMatchObject({
        txHash: result.txHash,
        heldForClaim: result.heldForClaim,
      });
    } finally {
      await blacklist(false);
    }
  });
});

describe("payouts and deployment checks", () => {
  it("transferUsdc pays from the rewards wallet and returns a mined transaction", async () => {
    const rewardsKey = config.rewardsPrivateKey as Hex;
    expect(rewardsKey).toBeDefined();
    const before = await erc20BalanceOf({ config, address: addr(9) });
    const sent: Hex[] = [];
    const { txHash, blockNumber } = await transferUsdc({
      config,
      to: addr(9),
      amount: parseUsdc("0.19"),
      privateKey: rewardsKey,
      onSent: (h) => void sent.push(h),
    });
    expect(sent).toEqual([txHash]);
    expect((await erc20BalanceOf({ config, address: addr(9) })) - before).toBe(190_000n);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: txHash });
    expect(receipt).toMatchObject({ status: "success", blockNumber });
  });

  it("checkEscrowDeployment finds nothing wrong with the deployed stack, and names a wrong fee", async () => {
    expect(await checkEscrowDeployment(config)).toEqual([]);
    // Both escrows: EscrowV2 beside the first is held to the same configuration.
    expect(await checkEscrowDeployment({ ...config, feeBps: 100 })).toEqual([
      "escrow feeBps is 500, configured 100",
      "escrow v2 feeBps is 500, configured 100",
    ]);
    const { escrowV2Address: _v2, ...withoutV2 } = config;
    expect(await checkEscrowDeployment({ ...withoutV2, feeBps: 100 })).toEqual([
      "escrow feeBps is 500, configured 100",
    ]);
  });
});
