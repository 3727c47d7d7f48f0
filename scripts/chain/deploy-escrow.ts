// Deploys the escrow contract and EscrowV2 beside it to a public network (Base or Base Sepolia) for
// the real USDC there, then checks both against the configuration the service will run with.
//
//   CHAIN=base-sepolia OPERATOR_PRIVATE_KEY=0x… ESCROW_V2_OWNER=0x… [ESCROW_ADDRESS=0x…] [RPC_URL=…] \
//     [FEE_RECIPIENT=0x…] [FEE_BPS=500] [TREASURY_ADDRESS=0x…] npx tsx scripts/chain/deploy-escrow.ts
//
// The operator key deploys both and becomes their operator (it signs releases and refunds), so it
// needs a little ETH for gas. ESCROW_V2_OWNER (required) is EscrowV2's owner, who may pause it and
// replace or revoke the operator (docs/escrow-v2.md): a cold key or a multisig, never the operator
// (refused). With ESCROW_ADDRESS the first escrow already deployed is kept (it holds the jobs it
// funded) and only EscrowV2 is deployed, with that escrow's fee recipient unless FEE_RECIPIENT
// says otherwise. It prints ESCROW_ADDRESS and ESCROW_V2_ADDRESS to set next to CHAIN and
// OPERATOR_PRIVATE_KEY when starting the app. The local stack does not use this: `npm start`
// deploys a test USDC and both escrows to anvil by itself (scripts/chain/deploy.ts).
import { pathToFileURL } from "node:url";
import { createPublicClient, createWalletClient, getAddress, http, isAddressEqual, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import { z } from "zod";
import { abi as escrowAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { abi as escrowV2Abi, bytecode as escrowV2Bytecode } from "@/contracts/artifacts/escrow-v2";
import { NETWORK_INFO, localChain } from "@/lib/chain/chains";
import { loadChainConfig } from "@/lib/chain/config";
import { EvmAddressSchema, PrivateKeySchema } from "@/lib/chain/deployment";
import { checkEscrowDeployment } from "@/lib/chain/escrow/reads";

const Settings = z.object({
  CHAIN: z.enum(["base", "base-sepolia", "local"]),
  OPERATOR_PRIVATE_KEY: PrivateKeySchema,
  /** EscrowV2's owner (pause, operator replacement): a key apart from the operator. Required. */
  ESCROW_V2_OWNER: EvmAddressSchema,
  /** The first escrow when it is already deployed: kept, and only EscrowV2 is deployed beside it. */
  ESCROW_ADDRESS: EvmAddressSchema.optional(),
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
  escrowV2Address: Address;
  tokenAddress: Address;
  operator: Address;
  /** EscrowV2's owner. */
  owner: Address;
  feeRecipient: Address;
  feeBps: number;
  /** The first escrow's deployment; null when ESCROW_ADDRESS named one already deployed. */
  txHash: Hex | null;
  escrowV2TxHash: Hex;
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
  // The owner exists to stop a leaked operator key: the operator holding it would defeat that.
  if (isAddressEqual(s.ESCROW_V2_OWNER, account.address))
    throw new Error("ESCROW_V2_OWNER must be a key apart from the operator (OPERATOR_PRIVATE_KEY's address)");
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const feeRecipient = s.FEE_RECIPIENT
    ? getAddress(s.FEE_RECIPIENT)
    : s.ESCROW_ADDRESS
      ? await publicClient.readContract({ address: s.ESCROW_ADDRESS, abi: escrowAbi, functionName: "feeRecipient" })
      : account.address;

  const deployed = async (hash: Hex, what: string): Promise<Address> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, confirmations: s.CHAIN === "local" ? 1 : 2 });
    if (receipt.status !== "success" || !receipt.contractAddress)
      throw new Error(`the deployment of ${what} ${hash} reverted`);
    return getAddress(receipt.contractAddress);
  };
  let txHash: Hex | null = null;
  let escrowAddress: Address;
  if (s.ESCROW_ADDRESS) {
    escrowAddress = s.ESCROW_ADDRESS;
  } else {
    txHash = await wallet.deployContract({
      abi: escrowAbi,
      bytecode: escrowBytecode,
      args: [getAddress(tokenAddress), account.address, feeRecipient, s.FEE_BPS],
    });
    escrowAddress = await deployed(txHash, "the escrow");
  }
  const escrowV2TxHash = await wallet.deployContract({
    abi: escrowV2Abi,
    bytecode: escrowV2Bytecode,
    args: [getAddress(tokenAddress), account.address, feeRecipient, s.FEE_BPS, s.ESCROW_V2_OWNER],
  });
  const escrowV2Address = await deployed(escrowV2TxHash, "EscrowV2");

  // The same check the service can run at start-up, with the settings it will be given.
  const config = loadChainConfig({
    CHAIN: s.CHAIN,
    RPC_URL: rpcUrl,
    ESCROW_ADDRESS: escrowAddress,
    ESCROW_V2_ADDRESS: escrowV2Address,
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
    escrowV2Address,
    tokenAddress: getAddress(tokenAddress),
    operator: account.address,
    owner: s.ESCROW_V2_OWNER,
    feeRecipient,
    feeBps: s.FEE_BPS,
    txHash,
    escrowV2TxHash,
    problems,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  deployEscrow(process.env)
    .then((d) => {
      console.log(
        d.txHash ? `Escrow deployed at ${d.escrowAddress} (tx ${d.txHash})` : `Escrow kept at ${d.escrowAddress}`,
      );
      console.log(`EscrowV2 deployed at ${d.escrowV2Address} (tx ${d.escrowV2TxHash}), owner ${d.owner}`);
      console.log(`  token ${d.tokenAddress}, operator ${d.operator}, fee ${d.feeBps} bps to ${d.feeRecipient}`);
      if (d.problems.length > 0) {
        console.error(`The deployment does not fit the configuration:\n  ${d.problems.join("\n  ")}`);
        process.exit(1);
      }
      console.log(
        `\nStart the app with:\n  CHAIN=${process.env.CHAIN} ESCROW_ADDRESS=${d.escrowAddress} ESCROW_V2_ADDRESS=${d.escrowV2Address} OPERATOR_PRIVATE_KEY=… TREASURY_ADDRESS=… npm start`,
      );
    })
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    });
}
