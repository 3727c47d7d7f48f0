// The reclaim script the job page and docs/escrow-v2.md name: a poster takes a slot's money back
// after its expiry with nothing but an RPC endpoint and a key for gas. No service runs in this
// file, and the operator key is revoked by the owner before the reclaim, as if the service were gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abi as usdcAbi } from "@/contracts/artifacts/test-usdc";
import { escrowV2Abi } from "@/lib/chain/abi";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { reclaim } from "./reclaim";

let chain: TestChain;
let escrow: Address;
const PAYER = 1;
const STRANGER = 3;
const AGENT = 6;
const AMOUNT = 3_000_000n;
const DAY = 86_400n;

beforeAll(async () => {
  chain = await startTestChain();
  escrow = chain.config.escrowV2Address!;
}, 60_000);
afterAll(() => chain?.stop());

const addr = (i: number) => chain.accounts[i].address;
const balance = (who: Address) =>
  chain.publicClient.readContract({
    address: chain.config.tokenAddress,
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [who],
  });
async function mined(hash: Hex) {
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
}
const chainNow = async () => (await chain.publicClient.getBlock({ blockTag: "latest" })).timestamp;

/** A slot of PAYER's with an agent assigned and a part of it already paid, expiring in 2 days. */
async function fundedSlot(): Promise<Hex> {
  const jobId = newEscrowJobId();
  const payer = chain.wallet(PAYER);
  await mined(
    await payer.writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "approve",
      args: [escrow, AMOUNT],
    }),
  );
  const expiresAt = (await chainNow()) + 2n * DAY;
  await mined(
    await payer.writeContract({
      address: escrow,
      abi: escrowV2Abi,
      functionName: "deposit",
      args: [jobId, AMOUNT, expiresAt],
    }),
  );
  await mined(
    await payer.writeContract({
      address: escrow,
      abi: escrowV2Abi,
      functionName: "assign",
      args: [jobId, addr(PAYER), addr(AGENT), 2n ** 40n, "0x"],
    }),
  );
  await mined(
    await chain.wallet(0).writeContract({
      address: escrow,
      abi: escrowV2Abi,
      functionName: "releasePart",
      args: [jobId, addr(PAYER), 0n, 1_000_000n],
    }),
  );
  return jobId;
}

const input = (jobId: Hex) => ({
  rpcUrl: chain.rpcUrl,
  privateKey: chain.accounts[STRANGER].privateKey,
  escrow,
  jobId,
  payer: addr(PAYER),
});

describe("npm run escrow:reclaim", () => {
  it("says when a slot may be reclaimed, then returns what the parts left to the payer with the operator revoked", async () => {
    const jobId = await fundedSlot();
    const early = await reclaim(input(jobId));
    expect(early).toMatchObject({
      done: false,
      reason: expect.stringMatching(/^not yet: the slot can be reclaimed from 20\d\d-/),
    });

    // The service is gone: its owner revoked the operator, and nothing but the chain is left.
    const owner = createWalletClient({
      chain: chain.publicClient.chain,
      transport: http(chain.rpcUrl),
      account: privateKeyToAccount(chain.deployment.escrowV2Owner!.privateKey as Hex),
    });
    await mined(
      await owner.writeContract({
        address: escrow,
        abi: escrowV2Abi,
        functionName: "setOperator",
        args: ["0x0000000000000000000000000000000000000000"],
      }),
    );
    await chain.testClient.increaseTime({ seconds: Number(2n * DAY) });
    await chain.testClient.mine({ blocks: 1 });

    const before = await balance(addr(PAYER));
    const done = await reclaim(input(jobId));
    expect(done).toMatchObject({ done: true, returnedUnits: 2_000_000n, to: addr(PAYER) });
    expect((await balance(addr(PAYER))) - before).toBe(2_000_000n);

    // A second run moves nothing and says why.
    expect(await reclaim(input(jobId))).toEqual({
      done: false,
      reason: "nothing to reclaim: this wallet's slot of the job is reclaimed",
    });
  });

  it("refuses a wallet that never funded the job", async () => {
    expect(await reclaim({ ...input(newEscrowJobId()) })).toEqual({
      done: false,
      reason: "nothing to reclaim: this wallet's slot of the job is never funded",
    });
  });
});
