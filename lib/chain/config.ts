import type { Address, Hex } from "viem";
import { z } from "zod";
import { ERC8004_REGISTRIES, NETWORK_INFO, NETWORKS, type Network } from "./chains";
import { EvmAddressSchema, PrivateKeySchema, deploymentPath, readDeployment } from "./deployment";
import { newDepositsEscrow } from "./escrow/contracts";

/**
 * Where and how the marketplace pays: one chain, one token (USDC), the escrow contract that new
 * deposits go to, and EscrowV2 beside it once deployed (docs/escrow-v2.md).
 */
export interface ChainConfig {
  network: Network;
  chainId: number;
  rpcUrl: string;
  tokenAddress: Address;
  tokenSymbol: "USDC";
  tokenDecimals: 6;
  escrowAddress: Address;
  /**
   * EscrowV2 (ESCROW_V2_ADDRESS; the local deployment's), deployed beside the first escrow with the
   * same token, operator, fee recipient and fee (checkEscrowDeployment). Unset: not deployed yet.
   * Named by GET /v1/chain; new deposits go to it unless NEW_DEPOSITS_ESCROW=1 (docs/escrow-v2.md).
   */
  escrowV2Address?: Address;
  /**
   * Which escrow new deposits go to (NEW_DEPOSITS_ESCROW=1|2): GET /v1/chain names it as
   * escrowAddress with escrowVersion, and the fund page deposits there. The default is 2 whenever
   * EscrowV2 is configured (the local deployment always has it; on Base once ESCROW_V2_ADDRESS is
   * set), because only there the operator key cannot pay anyone but the agent the payer assigned;
   * 1 otherwise. NEW_DEPOSITS_ESCROW=1 pins the first escrow; 2 needs escrowV2Address. Every
   * configured contract still takes registrations of deposits made into it (verify-deposit.ts), and
   * a funded job settles in the contract holding its slot whatever this says.
   */
  newDepositsEscrowVersion?: 1 | 2;
  /** Escrow fee in basis points (500 = 5%); must equal the deployed contract's feeBps. */
  feeBps: number;
  /** Blocks a deposit needs (its own included) before it counts. */
  confirmations: number;
  /**
   * The block tag that marks a block final on this chain, on top of `confirmations`: a deposit
   * counts only once its block is at or below the node's `safe` (or `finalized`) block. Unset:
   * confirmations alone (the local anvil chain). CHAIN_FINALITY=confirmations|safe|finalized; Base
   * and Base Sepolia default to `safe` (their L2 block is derived from data posted to Ethereum).
   */
  finality?: "safe" | "finalized";
  explorerUrl: string | null;
  /** Signs release and refund; the contract's operator. */
  operatorPrivateKey: Hex;
  /** Pays forum rewards and referrals in USDC; unset: rewards cannot be paid. */
  rewardsPrivateKey?: Hex;
  /**
   * Receives certification pack fees (TREASURY_ADDRESS; the local stack's dedicated treasury
   * account). A plain address of its own, never the escrow or a user's account, so no other
   * movement of USDC can pass for a pack payment. null: paid packs cannot be bought.
   */
  treasuryAddress: Address | null;
  /**
   * The ERC-8004 Identity and Reputation registries (IDENTITY_REGISTRY_ADDRESS,
   * REPUTATION_REGISTRY_ADDRESS; the local deployment's; on Base and Base Sepolia the published
   * singletons). null: agents cannot register on chain nor be rated there.
   */
  identityRegistryAddress: Address | null;
  reputationRegistryAddress: Address | null;
}

export class ChainConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainConfigError";
  }
}

const optionalInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a non-negative integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional();

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

const EnvSchema = z.object({
  CHAIN: z.preprocess(blankToUndefined, z.enum(NETWORKS).default("local")),
  CHAIN_ID: z.preprocess(blankToUndefined, optionalInt(1, 2 ** 53 - 1)),
  RPC_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^(https?|wss?)$/ }).optional()),
  ANVIL_PORT: z.preprocess(blankToUndefined, optionalInt(1, 65535)),
  ESCROW_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  ESCROW_V2_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  NEW_DEPOSITS_ESCROW: z.preprocess(blankToUndefined, z.enum(["1", "2"]).optional()),
  TOKEN_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  OPERATOR_PRIVATE_KEY: z.preprocess(blankToUndefined, PrivateKeySchema.optional()),
  REWARDS_PRIVATE_KEY: z.preprocess(blankToUndefined, PrivateKeySchema.optional()),
  TREASURY_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  IDENTITY_REGISTRY_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  REPUTATION_REGISTRY_ADDRESS: z.preprocess(blankToUndefined, EvmAddressSchema.optional()),
  CHAIN_CONFIRMATIONS: z.preprocess(blankToUndefined, optionalInt(1, 1000)),
  CHAIN_FINALITY: z.preprocess(blankToUndefined, z.enum(["confirmations", "safe", "finalized"]).optional()),
  FEE_BPS: z.preprocess(blankToUndefined, optionalInt(0, 1000)),
  EXPLORER_URL: z.preprocess(blankToUndefined, z.url().optional()),
  DATA_DIR: z.preprocess(blankToUndefined, z.string().default(".data")),
});

const DEFAULT_FEE_BPS = 500;

/**
 * Reads the chain settings from the environment.
 *
 * CHAIN: local (default) | base | base-sepolia. RPC_URL (local default
 * http://127.0.0.1:${ANVIL_PORT||8545}), ESCROW_ADDRESS, ESCROW_V2_ADDRESS (optional: EscrowV2
 * beside the escrow), NEW_DEPOSITS_ESCROW (1 | 2: the escrow new deposits go to; default 2 when
 * EscrowV2 is configured, else 1; 2 needs EscrowV2), TOKEN_ADDRESS (Base: Circle's USDC),
 * OPERATOR_PRIVATE_KEY, REWARDS_PRIVATE_KEY, TREASURY_ADDRESS (pack fees), CHAIN_CONFIRMATIONS (1 local, 3 Base), FEE_BPS (500),
 * CHAIN_ID (local only, default 31337), EXPLORER_URL. For the local chain, whatever the
 * environment leaves out comes from `${DATA_DIR||.data}/chain.json`, which the deploy script
 * writes (including its RPC URL when neither RPC_URL nor ANVIL_PORT is set, so an app started
 * without them finds the chain the dev stack started).
 */
export function loadChainConfig(
  env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
): ChainConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ChainConfigError(`invalid chain settings: ${problems}`);
  }
  const e = parsed.data;
  const info = NETWORK_INFO[e.CHAIN];

  if (e.CHAIN === "local") {
    const needsFile = !e.ESCROW_ADDRESS || !e.TOKEN_ADDRESS;
    const deployment = readDeployment(e.DATA_DIR);
    if (needsFile && !deployment) {
      throw new ChainConfigError(
        `no local deployment: set ESCROW_ADDRESS and TOKEN_ADDRESS, or start the local chain and run ` +
          `\`npx tsx scripts/chain/deploy.ts\` (it writes ${deploymentPath(e.DATA_DIR)})`,
      );
    }
    const chainId = e.CHAIN_ID ?? deployment?.chainId ?? info.chainId;
    if (deployment && needsFile && deployment.chainId !== chainId) {
      throw new ChainConfigError(
        `CHAIN_ID ${chainId} differs from the deployment's chain id ${deployment.chainId} in ${deploymentPath(e.DATA_DIR)}`,
      );
    }
    const rpcUrl =
      e.RPC_URL ??
      (e.ANVIL_PORT !== undefined
        ? `http://127.0.0.1:${e.ANVIL_PORT}`
        : (deployment?.rpcUrl ?? "http://127.0.0.1:8545"));
    const operatorPrivateKey = e.OPERATOR_PRIVATE_KEY ?? deployment?.operator.privateKey;
    if (!operatorPrivateKey)
      throw new ChainConfigError("OPERATOR_PRIVATE_KEY is required (no local deployment file names one)");
    return {
      network: "local",
      chainId,
      rpcUrl,
      tokenAddress: (e.TOKEN_ADDRESS ?? deployment?.tokenAddress) as Address,
      tokenSymbol: "USDC",
      tokenDecimals: 6,
      escrowAddress: (e.ESCROW_ADDRESS ?? deployment?.escrowAddress) as Address,
      ...escrowV2Of(
        e.ESCROW_V2_ADDRESS ?? deployment?.escrowV2Address,
        (e.ESCROW_ADDRESS ?? deployment?.escrowAddress) as Address,
        e.NEW_DEPOSITS_ESCROW,
      ),
      feeBps: e.FEE_BPS ?? deployment?.feeBps ?? DEFAULT_FEE_BPS,
      confirmations: e.CHAIN_CONFIRMATIONS ?? info.defaultConfirmations,
      ...finalityOf(e.CHAIN_FINALITY, info.defaultFinality),
      explorerUrl: e.EXPLORER_URL ?? null,
      operatorPrivateKey,
      rewardsPrivateKey: e.REWARDS_PRIVATE_KEY ?? deployment?.rewards.privateKey,
      treasuryAddress: checkedTreasury(e.TREASURY_ADDRESS ?? deployment?.treasury, [
        (e.ESCROW_ADDRESS ?? deployment?.escrowAddress) as Address,
        e.ESCROW_V2_ADDRESS ?? deployment?.escrowV2Address,
      ]),
      ...registriesOf(
        e.IDENTITY_REGISTRY_ADDRESS ?? deployment?.identityRegistry,
        e.REPUTATION_REGISTRY_ADDRESS ?? deployment?.reputationRegistry,
      ),
    };
  }

  // Public networks: nothing is guessed except what is public knowledge (chain id, USDC, explorer).
  if (e.CHAIN_ID !== undefined && e.CHAIN_ID !== info.chainId) {
    throw new ChainConfigError(`CHAIN_ID ${e.CHAIN_ID} does not match CHAIN=${e.CHAIN} (${info.chainId})`);
  }
  const missing = [!e.ESCROW_ADDRESS && "ESCROW_ADDRESS", !e.OPERATOR_PRIVATE_KEY && "OPERATOR_PRIVATE_KEY"].filter(
    Boolean,
  );
  if (missing.length > 0) throw new ChainConfigError(`CHAIN=${e.CHAIN} needs ${missing.join(" and ")}`);
  return {
    network: e.CHAIN,
    chainId: info.chainId,
    rpcUrl: e.RPC_URL ?? (info.defaultRpcUrl as string),
    tokenAddress: e.TOKEN_ADDRESS ?? (info.usdcAddress as Address),
    tokenSymbol: "USDC",
    tokenDecimals: 6,
    escrowAddress: e.ESCROW_ADDRESS as Address,
    ...escrowV2Of(e.ESCROW_V2_ADDRESS, e.ESCROW_ADDRESS as Address, e.NEW_DEPOSITS_ESCROW),
    feeBps: e.FEE_BPS ?? DEFAULT_FEE_BPS,
    confirmations: e.CHAIN_CONFIRMATIONS ?? info.defaultConfirmations,
    ...finalityOf(e.CHAIN_FINALITY, info.defaultFinality),
    explorerUrl: e.EXPLORER_URL ?? info.explorerUrl,
    operatorPrivateKey: e.OPERATOR_PRIVATE_KEY as Hex,
    rewardsPrivateKey: e.REWARDS_PRIVATE_KEY,
    treasuryAddress: checkedTreasury(e.TREASURY_ADDRESS, [e.ESCROW_ADDRESS as Address, e.ESCROW_V2_ADDRESS]),
    ...registriesOf(
      e.IDENTITY_REGISTRY_ADDRESS ?? ERC8004_REGISTRIES[e.CHAIN].identity,
      e.REPUTATION_REGISTRY_ADDRESS ?? ERC8004_REGISTRIES[e.CHAIN].reputation,
    ),
  };
}

/** CHAIN_FINALITY, or the network's default; "confirmations" (or nothing) leaves the tag unset. */
function finalityOf(
  setting: "confirmations" | "safe" | "finalized" | undefined,
  fallback: "safe" | "finalized" | null,
): { finality?: "safe" | "finalized" } {
  const chosen = setting ?? fallback ?? "confirmations";
  return chosen === "confirmations" ? {} : { finality: chosen };
}

/** Both ERC-8004 registries or neither: feedback needs the identity registry it was written against. */
function registriesOf(
  identity: Address | undefined,
  reputation: Address | undefined,
): { identityRegistryAddress: Address | null; reputationRegistryAddress: Address | null } {
  if (!identity !== !reputation) {
    throw new ChainConfigError("IDENTITY_REGISTRY_ADDRESS and REPUTATION_REGISTRY_ADDRESS go together");
  }
  return { identityRegistryAddress: identity ?? null, reputationRegistryAddress: reputation ?? null };
}

/**
 * EscrowV2 when configured (a contract of its own, never the first escrow's address), and the escrow
 * new deposits go to: EscrowV2 whenever it is configured, unless NEW_DEPOSITS_ESCROW=1 pins the first.
 */
function escrowV2Of(
  escrowV2: Address | undefined,
  escrow: Address,
  newDeposits: "1" | "2" | undefined,
): { escrowV2Address?: Address; newDepositsEscrowVersion: 1 | 2 } {
  if (!escrowV2) {
    if (newDeposits === "2")
      throw new ChainConfigError("NEW_DEPOSITS_ESCROW=2 needs EscrowV2 (ESCROW_V2_ADDRESS, or the local deployment's)");
    return { newDepositsEscrowVersion: 1 };
  }
  if (escrow && escrowV2.toLowerCase() === escrow.toLowerCase())
    throw new ChainConfigError("ESCROW_V2_ADDRESS must not be the first escrow's address (ESCROW_ADDRESS)");
  return { escrowV2Address: escrowV2, newDepositsEscrowVersion: newDeposits === "1" ? 1 : 2 };
}

/** An escrow moves USDC on every settlement: as the treasury its fee transfers would pass for pack payments. */
function checkedTreasury(treasury: Address | undefined, escrows: (Address | undefined)[]): Address | null {
  if (!treasury) return null;
  if (escrows.some((escrow) => escrow && treasury.toLowerCase() === escrow.toLowerCase()))
    throw new ChainConfigError("TREASURY_ADDRESS must not be the escrow contract");
  return treasury;
}

/** What GET /v1/chain may show: no keys; the RPC URL only for the local chain. */
export function publicChainInfo(config: ChainConfig): {
  chainId: number;
  tokenSymbol: "USDC";
  tokenAddress: Address;
  tokenDecimals: 6;
  escrowAddress: Address;
  escrowVersion: 1 | 2;
  escrowV2Address?: Address;
  feeBps: number;
  confirmations: number;
  explorerUrl: string | null;
  rpcUrl?: string;
} {
  const newDeposits = newDepositsEscrow(config);
  return {
    chainId: config.chainId,
    tokenSymbol: config.tokenSymbol,
    tokenAddress: config.tokenAddress,
    tokenDecimals: config.tokenDecimals,
    // The contract new deposits go to, as the interface names it (GET /v1/chain escrowAddress).
    escrowAddress: newDeposits.address,
    escrowVersion: newDeposits.version,
    ...(config.escrowV2Address ? { escrowV2Address: config.escrowV2Address } : {}),
    feeBps: config.feeBps,
    confirmations: config.confirmations,
    explorerUrl: config.explorerUrl,
    ...(config.network === "local" ? { rpcUrl: config.rpcUrl } : {}),
  };
}
