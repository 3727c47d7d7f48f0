// Deploys the escrow contract to a public network (Base or Base Sepolia) for the real USDC there,
// then checks the deployment against the configuration the service will run with.
//
//   CHAIN=base-sepolia OPERATOR_PRIVATE_KEY=0x… [RPC_URL=…] [FEE_RECIPIENT=0x…] [FEE_BPS=500] [TREASURY_ADDRESS=0x…] \
//     npx tsx scripts/chain/deploy-escrow.ts
//
// The operator key deploys and becomes the contract's operator (it signs releases and refunds), so
// it needs a little ETH for gas. It prints the ESCROW_ADDRESS to set next to CHAIN and
// OPERATOR_PRIVATE_KEY when starting the app. The local stack does not use this: `npm start`
// deploys a test USDC and the escrow to anvil by itself (scripts/chain/deploy.ts).
import { pathToFileURL } from "node:url";
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import { z } from "zod";
import { abi as escrowAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { NETWORK_INFO, localChain } from "@/lib/chain/chains";
import { loadChainConfig } from "@/lib/chain/config";
import { EvmAddressSchema, PrivateKeySchema } from "@/lib/chain/deployment";
import { checkEscrowDeployment } from "@/lib/chain/escrow/reads";

const Settings = z.object({
  CHAIN: z.enum(["base", "base-sepolia", "local"]),
  OPERATOR_PRIVATE_KEY: PrivateKeySchema,
  RPC_URL: z.url().optional(),
  /** Another token than the network's USDC (the local chain has no default). */
  TOKEN_ADDRESS: EvmAddressSchema.optional(),
  FEE_RECIPIENT: EvmAddressSchema.optional(),
  /** The pack treasury the service will be given; checked to be apart from the escrow. */
  TREASURY_ADDRESS: EvmAddressSchema.optional(),
  FEE_BPS: z.coerce.number().int().min(0).max(1000).default(500),
  CHAIN_ID: z.coerce.number().int().positive().optional(),
});

export interface EscrowDeployment {
  escrowAddress: Address;
  tokenAddress: Address;
  operator: Address;
  feeRecipient: Address;
  feeBps: number;
  txHash: Hex;
  /** Problems found by checking the deployment with the service's own configuration (empty when it fits). */
  problems: string[];
}

export async function deployEscrow(env: Record<string, string | undefined>): Promise<EscrowDeployment> {
  const parsed = Settings.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== "")),
  );
  if (!parsed.success)
    throw new Error(
      `invalid settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const s = parsed.data;
  const info = NETWORK_INFO[s.CHAIN];
  const rpcUrl = s.RPC_URL ?? info.defaultRpcUrl;
  const tokenAddress = s.TOKEN_ADDRESS ?? info.usdcAddress;
  if (!rpcUrl) throw new Error(`CHAIN=${s.CHAIN} needs RPC_URL`);
  if (!tokenAddress) throw new Error(`CHAIN=${s.CHAIN} needs TOKEN_ADDRESS`);
  const chain = s.CHAIN === "base" ? base : s.CHAIN === "base-sepolia" ? baseSepolia : localChain(s.CHAIN_ID, rpcUrl);

  const account = privateKeyToAccount(s.OPERATOR_PRIVATE_KEY);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const servedChainId = await publicClient.getChainId();
  if (servedChainId !== chain.id)
    throw new Error(`RPC ${rpcUrl} serves chain ${servedChainId}, not ${s.CHAIN} (${chain.id})`);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const feeRecipient = s.FEE_RECIPIENT ? getAddress(s.FEE_RECIPIENT) : account.address;

  const txHash = await wallet.deployContract({
    abi: escrowAbi,
    bytecode: escrowBytecode,
    args: [getAddress(tokenAddress), account.address, feeRecipient, s.FEE_BPS],
  });
  const receipt = await publicClient.waitForTransactionReceipt({
    hash: txHash,
    confirmations: s.CHAIN === "local" ? 1 : 2,
  });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`the deployment ${txHash} reverted`);
  const escrowAddress = getAddress(receipt.contractAddress);

  // The same check the service can run at start-up, with the settings it will be given.
  const config = loadChainConfig({
    CHAIN: s.CHAIN,
    RPC_URL: rpcUrl,
    ESCROW_ADDRESS: escrowAddress,
    TOKEN_ADDRESS: tokenAddress,
    OPERATOR_PRIVATE_KEY: s.OPERATOR_PRIVATE_KEY,
    FEE_BPS: String(s.FEE_BPS),
    TREASURY_ADDRESS: s.TREASURY_ADDRESS,
    ...(s.CHAIN === "local" && s.CHAIN_ID ? { CHAIN_ID: String(s.CHAIN_ID) } : {}),
    DATA_DIR: "/nonexistent",
  });
  const problems = await checkEscrowDeployment(config);
  return {
    escrowAddress,
    tokenAddress: getAddress(tokenAddress),
    operator: account.address,
    feeRecipient,
    feeBps: s.FEE_BPS,
    txHash,
    problems,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  deployEscrow(process.env)
    .then((d) => {
      console.log(`Escrow deployed at ${d.escrowAddress} (tx ${d.txHash})`);
      console.log(`  token ${d.tokenAddress}, operator ${d.operator}, fee ${d.feeBps} bps to ${d.feeRecipient}`);
      if (d.problems.length > 0) {
        console.error(`The deployment does not fit the configuration:\n  ${d.problems.join("\n  ")}`);
        process.exit(1);
      }
      console.log(
        `\nStart the app with:\n  CHAIN=${process.env.CHAIN} ESCROW_ADDRESS=${d.escrowAddress} OPERATOR_PRIVATE_KEY=… TREASURY_ADDRESS=… npm start`,
      );
    })
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    });
}
