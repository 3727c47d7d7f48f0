import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escrowV2Abi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { releaseEscrow } from "@/lib/chain/escrow/settle";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { deployEscrow } from "./deploy-escrow";

// The public-network deploy script, run against anvil (CHAIN=local with the test USDC standing in
// for Circle's): the contract it deploys passes the service's own deployment check and moves money.
let chain: TestChain;
beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(() => chain?.stop());

describe("scripts/chain/deploy-escrow.ts", () => {
  it("deploys an escrow for the token with the operator key, which the service's configuration accepts and can release from", async () => {
    const operator = chain.accounts[3]!;
    const feeRecipient = chain.accounts[4]!.address;
    const owner = chain.accounts[6]!.address;
    const deployed = await deployEscrow({
      ESCROW_V2_OWNER: owner,
      CHAIN: "local",
      RPC_URL: chain.rpcUrl,
      CHAIN_ID: String(chain.config.chainId),
      TOKEN_ADDRESS: chain.config.tokenAddress,
      OPERATOR_PRIVATE_KEY: operator.privateKey,
      FEE_RECIPIENT: feeRecipient,
      FEE_BPS: "250",
      TREASURY_ADDRESS: chain.deployment.treasury,
    });
    expect(deployed.problems).toEqual([]);
    expect(deployed).toMatchObject({ operator: operator.address, feeRecipient, feeBps: 250, owner });
    expect(deployed.escrowAddress).not.toBe(chain.config.escrowAddress);
    // EscrowV2 beside it: the same token, operator, fee recipient and fee (the check above), owned by ESCROW_V2_OWNER.
    expect(deployed.escrowV2Address).not.toBe(deployed.escrowAddress);
    expect(
      await chain.publicClient.readContract({
        address: deployed.escrowV2Address,
        abi: escrowV2Abi,
        functionName: "owner",
      }),
    ).toBe(owner);

    const config = {
      ...chain.config,
      escrowAddress: deployed.escrowAddress,
      operatorPrivateKey: operator.privateKey,
      feeBps: 250,
    };
    const jobId = `0x${"ab".repeat(32)}` as const;
    // The deployed contract has the per-payer slots the service settles: a stranger's unit first
    // does not stop the poster's deposit, and the poster's slot is what is released.
    const stranger = chain.accounts[5]!;
    const poster = chain.accounts[1]!;
    await depositToEscrow({ config, privateKey: stranger.privateKey, escrowJobId: jobId, amount: 1n });
    await depositToEscrow({ config, privateKey: poster.privateKey, escrowJobId: jobId, amount: parseUsdc("10") });
    const agent = chain.accounts[7]!.address;
    const before = await erc20BalanceOf({ config, address: agent });
    await releaseEscrow({ config, escrowJobId: jobId, payer: poster.address, to: agent });
    expect((await erc20BalanceOf({ config, address: agent })) - before).toBe(parseUsdc("9.75"));
    expect(await getEscrow({ config, escrowJobId: jobId, payer: stranger.address })).toMatchObject({
      amount: 1n,
      state: "FUNDED",
    });
  });

  it("with ESCROW_ADDRESS keeps that escrow and deploys EscrowV2 beside it, with its fee recipient", async () => {
    const before = await chain.publicClient.getTransactionCount({ address: chain.accounts[0]!.address });
    const deployed = await deployEscrow({
      CHAIN: "local",
      RPC_URL: chain.rpcUrl,
      CHAIN_ID: String(chain.config.chainId),
      TOKEN_ADDRESS: chain.config.tokenAddress,
      OPERATOR_PRIVATE_KEY: chain.accounts[0]!.privateKey,
      ESCROW_ADDRESS: chain.config.escrowAddress,
      ESCROW_V2_OWNER: chain.accounts[6]!.address,
      TREASURY_ADDRESS: chain.deployment.treasury,
    });
    expect(deployed.problems).toEqual([]);
    expect(deployed).toMatchObject({
      escrowAddress: chain.config.escrowAddress,
      txHash: null,
      feeRecipient: chain.deployment.feeRecipient,
    });
    // One transaction: EscrowV2's deployment.
    expect(await chain.publicClient.getTransactionCount({ address: chain.accounts[0]!.address })).toBe(before + 1);
  });

  it("refuses an EscrowV2 without an owner, or owned by the operator", async () => {
    const operator = chain.accounts[3]!;
    const settings = {
      CHAIN: "local",
      RPC_URL: chain.rpcUrl,
      CHAIN_ID: String(chain.config.chainId),
      TOKEN_ADDRESS: chain.config.tokenAddress,
      OPERATOR_PRIVATE_KEY: operator.privateKey,
    };
    const before = await chain.publicClient.getTransactionCount({ address: operator.address });
    await expect(deployEscrow(settings)).rejects.toThrow(/ESCROW_V2_OWNER/);
    await expect(deployEscrow({ ...settings, ESCROW_V2_OWNER: operator.address.toLowerCase() })).rejects.toThrow(
      /ESCROW_V2_OWNER must be a key apart from the operator/,
    );
    expect(await chain.publicClient.getTransactionCount({ address: operator.address })).toBe(before);
  });

  it("refuses bad settings and an RPC that serves another chain, before sending anything", async () => {
    await expect(deployEscrow({ CHAIN: "base", OPERATOR_PRIVATE_KEY: "0x1234" })).rejects.toThrow(
      /OPERATOR_PRIVATE_KEY/,
    );
    await expect(
      deployEscrow({ CHAIN: "mainnet", OPERATOR_PRIVATE_KEY: chain.accounts[3]!.privateKey }),
    ).rejects.toThrow(/CHAIN/);
    await expect(
      deployEscrow({
        CHAIN: "local",
        RPC_URL: chain.rpcUrl,
        OPERATOR_PRIVATE_KEY: chain.accounts[3]!.privateKey,
        ESCROW_V2_OWNER: chain.accounts[6]!.address,
        TREASURY_ADDRESS: "0x12",
      }),
    ).rejects.toThrow(/TREASURY_ADDRESS/);
    await expect(
      deployEscrow({
        CHAIN: "base-sepolia",
        RPC_URL: chain.rpcUrl,
        OPERATOR_PRIVATE_KEY: chain.accounts[3]!.privateKey,
        ESCROW_V2_OWNER: chain.accounts[6]!.address,
      }),
    ).rejects.toThrow(/serves chain 31337, not base-sepolia/);
  });
});
