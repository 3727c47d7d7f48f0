import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    const deployed = await deployEscrow({
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
    expect(deployed).toMatchObject({ operator: operator.address, feeRecipient, feeBps: 250 });
    expect(deployed.escrowAddress).not.toBe(chain.config.escrowAddress);

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
        TREASURY_ADDRESS: "0x12",
      }),
    ).rejects.toThrow(/TREASURY_ADDRESS/);
    await expect(
      deployEscrow({
        CHAIN: "base-sepolia",
        RPC_URL: chain.rpcUrl,
        OPERATOR_PRIVATE_KEY: chain.accounts[3]!.privateKey,
      }),
    ).rejects.toThrow(/serves chain 31337, not base-sepolia/);
  });
});
