// Takes a poster's money back from EscrowV2 after its slot's expiry, with no marketplace service at
// all: only an RPC endpoint of the chain and a key that pays the gas (the payer's own, or anyone's:
// `claimRefund` always pays the payer, never the caller). The job page's "reclaim on chain" box
// prints this command with the job's values filled in.
//
//   RPC_URL=https://mainnet.base.org PRIVATE_KEY=0x… npm run escrow:reclaim -- \
//     --escrow 0x<EscrowV2> --job 0x<the job's escrow id, 32 bytes> --payer 0x<the wallet that funded>
//
// It reads the slot first and says why it stops: not funded by that wallet, already settled, or not
// yet expired (with the date). Nothing here talks to the service; the contract enforces the rest.
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  formatUnits,
  http,
  isAddress,
  isHex,
  parseEventLogs,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowV2Abi } from "@/lib/chain/abi";

/** EscrowV2's slot states (getEscrow's first output), in words. */
const STATE_WORDS = ["never funded", "funded", "released", "refunded", "split", "settled part by part", "reclaimed"];
const FUNDED = 1;

export interface ReclaimInput {
  rpcUrl: string;
  privateKey: Hex;
  escrow: Address;
  jobId: Hex;
  payer: Address;
}

export type ReclaimResult =
  { done: true; txHash: Hex; returnedUnits: bigint; to: Address } | { done: false; reason: string };

export async function reclaim(input: ReclaimInput): Promise<ReclaimResult> {
  const transport = http(input.rpcUrl);
  const reader = createPublicClient({ transport });
  const chain = defineChain({
    id: await reader.getChainId(),
    name: "chain",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [input.rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport });
  const [state, amount, , expiresAt, , partsSettled] = await publicClient.readContract({
    address: input.escrow,
    abi: escrowV2Abi,
    functionName: "getEscrow",
    args: [input.jobId, input.payer],
  });
  if (state !== FUNDED) {
    return { done: false, reason: `nothing to reclaim: this wallet's slot of the job is ${STATE_WORDS[state]}` };
  }
  const now = (await publicClient.getBlock({ blockTag: "latest" })).timestamp;
  if (now < expiresAt) {
    const from = new Date(Number(expiresAt) * 1000).toISOString();
    return { done: false, reason: `not yet: the slot can be reclaimed from ${from} (the chain's clock)` };
  }
  const account = privateKeyToAccount(input.privateKey);
  const wallet = createWalletClient({ chain, transport, account });
  // Simulated first: a revert (another caller was faster) is a sentence here, not a spent fee.
  const { request } = await publicClient.simulateContract({
    account,
    address: input.escrow,
    abi: escrowV2Abi,
    functionName: "claimRefund",
    args: [input.jobId, input.payer],
  });
  const txHash = await wallet.writeContract(request);
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== "success") return { done: false, reason: `the transaction ${txHash} reverted` };
  const [claimed] = parseEventLogs({ abi: escrowV2Abi, eventName: "RefundClaimed", logs: receipt.logs });
  return { done: true, txHash, returnedUnits: claimed?.args.amount ?? amount - partsSettled, to: input.payer };
}

async function main() {
  const { values } = parseArgs({
    options: { escrow: { type: "string" }, job: { type: "string" }, payer: { type: "string" } },
  });
  const rpcUrl = process.env.RPC_URL;
  const privateKey = process.env.PRIVATE_KEY;
  const problems = [
    !rpcUrl && "RPC_URL (the chain's RPC endpoint) is missing",
    !(privateKey && isHex(privateKey) && privateKey.length === 66) &&
      "PRIVATE_KEY (a key with a little ETH for gas) is missing or not 32 bytes of hex",
    !(values.escrow && isAddress(values.escrow)) && "--escrow must be the EscrowV2 address the job names",
    !(values.job && isHex(values.job) && values.job.length === 66) &&
      "--job must be the job's escrow id (0x and 64 hex digits)",
    !(values.payer && isAddress(values.payer)) && "--payer must be the wallet that funded the job",
  ].filter(Boolean);
  if (problems.length > 0) {
    console.error(problems.join("\n"));
    process.exit(2);
  }
  const result = await reclaim({
    rpcUrl: rpcUrl!,
    privateKey: privateKey as Hex,
    escrow: values.escrow as Address,
    jobId: values.job as Hex,
    payer: values.payer as Address,
  });
  if (!result.done) {
    console.error(result.reason);
    process.exit(1);
  }
  console.log(`returned ${formatUnits(result.returnedUnits, 6)} USDC to ${result.to} in ${result.txHash}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
