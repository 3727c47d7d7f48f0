// The gas each escrow step costs, EscrowV2 beside the first escrow, on a fresh local anvil (the same
// contracts `npm start` deploys). Run: `npm run contracts:gas`. Prints one table; docs/escrow-v2.md
// ("Gas") keeps its last output.
//
// Measured in the steady state a live deployment is in: the payer, the agent and the fee recipient
// already hold USDC and each contract has accrued fees before, so no step pays the one-time cost of
// a storage slot going from zero to non-zero that a real deployment paid long ago. A deposit is
// shown without the token approve before it (the same 46k-ish for both; EIP-2612 permits and
// EIP-3009 authorizations fold it into one call).
import { pathToFileURL } from "node:url";
import { type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abi as v1Abi } from "@/contracts/artifacts/escrow";
import { abi as v2Abi } from "@/contracts/artifacts/escrow-v2";
import { abi as usdcAbi } from "@/contracts/artifacts/test-usdc";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { fundingAuthorizationTypedData } from "@/lib/chain/escrow/fund-by-authorization";
import { startTestChain, type TestChain } from "@/lib/chain/testing";

const OPERATOR = 0;
const PAYER = 1;
const RELAYER = 3;
const AGENT = 6;
const BUDGET = 5_000_000n; // 5 USDC
const DAY = 86_400n;
const FAR = 2n ** 40n;

export interface GasRow {
  step: string;
  v1: bigint | null;
  v2: bigint | null;
  note: string;
}

export async function measureEscrowGas(chain: TestChain): Promise<GasRow[]> {
  const v1 = chain.config.escrowAddress;
  const v2 = chain.config.escrowV2Address;
  if (!v2) throw new Error("this chain has no EscrowV2 deployed");
  const usdc = chain.config.tokenAddress;
  const addr = (i: number) => chain.accounts[i].address;

  async function gasOf(hash: Hex): Promise<bigint> {
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt.gasUsed;
  }
  const call = (from: number, address: Address, abi: unknown, functionName: string, args: readonly unknown[]) =>
    chain
      .wallet(from)
      .writeContract({ address, abi, functionName, args } as never)
      .then((hash) => gasOf(hash as Hex));
  const approve = (to: Address) => call(PAYER, usdc, usdcAbi, "approve", [to, BUDGET]);
  const chainNow = async () => (await chain.publicClient.getBlock({ blockTag: "latest" })).timestamp;

  const domain = { name: "AgentWorkEscrow", version: "2", chainId: chain.config.chainId, verifyingContract: v2 };
  const payerKey = privateKeyToAccount(chain.accounts[PAYER].privateKey);
  const signed = (primaryType: "Assign" | "Approve", jobId: Hex) =>
    payerKey.signTypedData({
      domain,
      types: {
        [primaryType]: [
          { name: "jobId", type: "bytes32" },
          { name: "payer", type: "address" },
          { name: "agent", type: "address" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType,
      message: { jobId, payer: addr(PAYER), agent: addr(AGENT), deadline: FAR },
    } as never);

  const v1Deposit = async () => {
    const jobId = newEscrowJobId();
    await approve(v1);
    return { jobId, gas: await call(PAYER, v1, v1Abi, "deposit", [jobId, BUDGET]) };
  };
  const v2Deposit = async () => {
    const jobId = newEscrowJobId();
    await approve(v2);
    const gas = await call(PAYER, v2, v2Abi, "deposit", [jobId, BUDGET, (await chainNow()) + 30n * DAY]);
    return { jobId, gas };
  };
  const v2Assigned = async () => {
    const { jobId } = await v2Deposit();
    await call(PAYER, v2, v2Abi, "assign", [jobId, addr(PAYER), addr(AGENT), FAR, "0x"]);
    return jobId;
  };

  // The steady state: one release on each contract accrues a fee, so later releases don't pay for
  // the fee slot's first write.
  await call(OPERATOR, v1, v1Abi, "release", [(await v1Deposit()).jobId, addr(PAYER), addr(AGENT)]);
  await call(OPERATOR, v2, v2Abi, "release", [await v2Assigned(), addr(PAYER)]);

  const rows: GasRow[] = [];
  const row = (step: string, a: bigint | null, b: bigint | null, note = "") => rows.push({ step, v1: a, v2: b, note });

  const d1 = await v1Deposit();
  const d2 = await v2Deposit();
  row("deposit (after an approve)", d1.gas, d2.gas, "v2 also stores the expiry");

  {
    const jobId = newEscrowJobId();
    const expiresAt = (await chainNow()) + 30n * DAY;
    const validBefore = (await chainNow()) + 3600n;
    // The authorization the service asks a poster to sign (POST /v1/jobs/:id/escrow/authorization).
    const terms = { escrowJobId: jobId, payer: addr(PAYER), amount: BUDGET, expiresAt, validBefore };
    const typed = await fundingAuthorizationTypedData(chain.config, terms);
    const nonce = typed.message.nonce;
    const signature = await payerKey.signTypedData({
      ...typed,
      message: { ...typed.message, value: BUDGET, validAfter: 0n, validBefore },
    } as never);
    const gas = await call(RELAYER, v2, v2Abi, "depositWithAuthorization", [
      jobId,
      addr(PAYER),
      BUDGET,
      expiresAt,
      0n,
      validBefore,
      nonce,
      signature,
    ]);
    row("deposit by EIP-3009 authorization (relayed; no approve)", null, gas, "the payer needs no ETH");
  }

  row(
    "assign the agent (payer's own call)",
    null,
    await call(PAYER, v2, v2Abi, "assign", [d2.jobId, addr(PAYER), addr(AGENT), FAR, "0x"]),
    "v1 takes the agent's address at release instead",
  );
  {
    const { jobId } = await v2Deposit();
    const gas = await call(RELAYER, v2, v2Abi, "assign", [
      jobId,
      addr(PAYER),
      addr(AGENT),
      FAR,
      await signed("Assign", jobId),
    ]);
    row("assign the agent (payer's EIP-712 signature, relayed)", null, gas, "what acceptance sends");
  }

  row(
    "release to the agent (operator)",
    await call(OPERATOR, v1, v1Abi, "release", [d1.jobId, addr(PAYER), addr(AGENT)]),
    await call(OPERATOR, v2, v2Abi, "release", [d2.jobId, addr(PAYER)]),
    "v1: to an address the operator names; v2: to the assigned agent only",
  );
  {
    const jobId = await v2Assigned();
    const gas = await call(RELAYER, v2, v2Abi, "releaseWithApproval", [
      jobId,
      addr(PAYER),
      FAR,
      await signed("Approve", jobId),
    ]);
    row("release with the payer's Approve (relayed by anyone)", null, gas, "pays the agent without the service");
  }
  {
    const a = await v1Deposit();
    const b = await v2Deposit();
    row(
      "refund to the payer (operator)",
      await call(OPERATOR, v1, v1Abi, "refund", [a.jobId, addr(PAYER)]),
      await call(OPERATOR, v2, v2Abi, "refund", [b.jobId, addr(PAYER)]),
    );
  }
  {
    const a = await v1Deposit();
    const b = await v2Assigned();
    row(
      "release of one part (operator)",
      await call(OPERATOR, v1, v1Abi, "releasePart", [a.jobId, addr(PAYER), 0n, BUDGET / 2n, addr(AGENT)]),
      await call(OPERATOR, v2, v2Abi, "releasePart", [b, addr(PAYER), 0n, BUDGET / 2n]),
    );
  }
  {
    const { jobId } = await v2Deposit();
    await chain.testClient.increaseTime({ seconds: Number(31n * DAY) });
    await chain.testClient.mine({ blocks: 1 });
    row(
      "claimRefund after the expiry (anyone)",
      null,
      await call(RELAYER, v2, v2Abi, "claimRefund", [jobId, addr(PAYER)]),
      "v1 has no way back without the operator",
    );
  }
  return rows;
}

export function gasTable(rows: GasRow[]): string {
  const cell = (gas: bigint | null) => (gas === null ? "none" : gas.toLocaleString("en-US"));
  const lines = [
    "| step | first escrow (v1) | EscrowV2 | |",
    "| --- | ---: | ---: | --- |",
    ...rows.map((r) => `| ${r.step} | ${cell(r.v1)} | ${cell(r.v2)} | ${r.note} |`),
  ];
  return lines.join("\n");
}

async function main() {
  const chain = await startTestChain();
  try {
    console.log(gasTable(await measureEscrowGas(chain)));
  } finally {
    await chain.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
