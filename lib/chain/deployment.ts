import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getAddress, isAddress, type Address, type Hex } from "viem";
import { z } from "zod";

// The record the local deploy script leaves in `${DATA_DIR}/chain.json`, read back by
// loadChainConfig when the environment names no addresses. It holds anvil's well-known test
// keys only (never a real key): the local stack needs them to release escrow and pay rewards.

export const EvmAddressSchema = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), "must be a 0x-prefixed 20-byte address")
  .transform((v) => getAddress(v));

export const PrivateKeySchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
  .transform((v) => v.toLowerCase() as Hex);

export const LocalAccountSchema = z.object({ address: EvmAddressSchema, privateKey: PrivateKeySchema });
export type LocalAccount = { address: Address; privateKey: Hex };

export const LocalDeploymentSchema = z.object({
  network: z.literal("local"),
  chainId: z.number().int().positive(),
  rpcUrl: z.url(),
  tokenAddress: EvmAddressSchema,
  escrowAddress: EvmAddressSchema,
  feeBps: z.number().int().min(0).max(10_000),
  operator: LocalAccountSchema,
  feeRecipient: EvmAddressSchema,
  /** A wallet apart from the users' accounts that pays forum rewards on the local chain. */
  rewards: LocalAccountSchema,
  /**
   * Where pack fees go: an address apart from the users', the operator's and the escrow (older
   * files lack it, and the deploy script then redeploys).
   */
  treasury: EvmAddressSchema.optional(),
  /** The ERC-8004 registries (older files lack them, and the deploy script then redeploys). */
  identityRegistry: EvmAddressSchema.optional(),
  reputationRegistry: EvmAddressSchema.optional(),
  /**
   * EscrowV2 (contracts/EscrowV2.sol), deployed beside the first escrow with the same token,
   * operator, fee recipient and fee, and an owner apart from the operator (escrowV2Owner: a key of
   * anvil's mnemonic outside the ten user accounts). Older files lack them: the next start deploys
   * it and keeps the first escrow with the jobs it holds.
   */
  escrowV2Address: EvmAddressSchema.optional(),
  escrowV2Owner: LocalAccountSchema.optional(),
  /** keccak256 of EscrowV2's creation bytecode deployed, so a changed contract is redeployed (alone). */
  escrowV2BytecodeHash: z.string().optional(),
  /** keccak256 of the escrow creation bytecode deployed, so a changed contract is redeployed. */
  escrowBytecodeHash: z.string().optional(),
  /** keccak256 of the test USDC's creation bytecode (older files lack it: redeployed, e.g. for EIP-3009). */
  tokenBytecodeHash: z.string().optional(),
  deployBlock: z.number().int().nonnegative(),
  deployedAt: z.string(),
  /** anvil's ten default accounts (from its public test mnemonic), each minted demo USDC. */
  accounts: z.array(LocalAccountSchema),
});

export type LocalDeployment = z.output<typeof LocalDeploymentSchema>;

export function deploymentPath(dataDir: string): string {
  return path.join(dataDir, "chain.json");
}

export function readDeployment(dataDir: string): LocalDeployment | null {
  const file = deploymentPath(dataDir);
  if (!existsSync(file)) return null;
  const parsed = LocalDeploymentSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new Error(
      `${file} is not a valid local deployment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

export function writeDeployment(dataDir: string, deployment: LocalDeployment): string {
  mkdirSync(dataDir, { recursive: true });
  const file = deploymentPath(dataDir);
  // Write then rename, so a reader (the app starting in parallel) never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(deployment, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}
