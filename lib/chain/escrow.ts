import {
  BaseError,
  ContractFunctionRevertedError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  isAddressEqual,
  isHex,
  parseEventLogs,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ESCROW_STATES, escrowAbi, usdcAbi, type EscrowState } from "./abi";
import { getPublicClient, getWalletClient, isNonceError, withSenderLock } from "./clients";
import type { ChainConfig } from "./config";
import { normalizeEscrowJobId } from "./escrow-id";
import { signUsdcPermit } from "./permit";

// The service's side of the escrow contract: checking a poster's funding transaction, and
// releasing or refunding a job's deposit exactly once, however often it is asked to.

const RECEIPT_TIMEOUT_MS = 180_000;

// ---------------------------------------------------------------------------------------------
// Deposit verification

export type DepositCheckCode =
  | "TX_NOT_FOUND"
  | "TX_REVERTED"
  | "WRONG_CHAIN"
  | "WRONG_CONTRACT"
  | "NO_DEPOSIT_EVENT"
  | "WRONG_JOB"
  | "WRONG_AMOUNT"
  | "NOT_CONFIRMED"
  /** The deposit happened but the escrow has since been released or refunded. */
  | "ESCROW_NOT_FUNDED";

export type DepositCheck =
  | { ok: true; payer: Address; amount: bigint; blockNumber: bigint; confirmations: number }
  | { ok: false; code: DepositCheckCode; reason: string; confirmations?: number };

/**
 * Checks on the configured chain that `txHash` funded the escrow of `escrowJobId` with exactly
 * `expectedAmount` (6-decimal units) and has the configured confirmations. The caller still has
 * to make sure no other job registered the same hash (a unique constraint in the database).
 * RPC failures throw (they say nothing about the transaction); every finding is a result.
 */
export async function verifyDeposit(params: {
  config: ChainConfig;
  txHash: string;
  escrowJobId: string;
  expectedAmount: bigint;
}): Promise<DepositCheck> {
  const { config, expectedAmount } = params;
  const jobId = normalizeEscrowJobId(params.escrowJobId);
  if (!isHex(params.txHash, { strict: true }) || params.txHash.length !== 66) {
    return { ok: false, code: "TX_NOT_FOUND", reason: "not a transaction hash (0x followed by 64 hex digits)" };
  }
  const txHash = params.txHash.toLowerCase() as Hex;
  const client = getPublicClient(config);

  // The node must serve the chain we take payment on: a deposit on another chain (where the
  // same deployer may have put an escrow at the very same address) is worth nothing here.
  const rpcChainId = await client.getChainId();
  if (rpcChainId !== config.chainId) {
    return { ok: false, code: "WRONG_CHAIN", reason: `the RPC serves chain ${rpcChainId}, payments are taken on chain ${config.chainId}` };
  }

  let receipt: TransactionReceipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    // Known to the node but not mined yet: not a forgery, just early.
    const pending = await client.getTransaction({ hash: txHash }).catch((e: unknown) => {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    });
    if (pending) return { ok: false, code: "NOT_CONFIRMED", reason: "the transaction is pending, not yet in a block", confirmations: 0 };
    return { ok: false, code: "TX_NOT_FOUND", reason: `no transaction ${txHash} on chain ${config.chainId}` };
  }

  if (receipt.status !== "success") {
    return { ok: false, code: "TX_REVERTED", reason: "the transaction reverted; it moved no funds" };
  }

  const tx = await client.getTransaction({ hash: txHash });
  if (tx.chainId !== undefined && tx.chainId !== config.chainId) {
    return { ok: false, code: "WRONG_CHAIN", reason: `the transaction was signed for chain ${tx.chainId}, not ${config.chainId}` };
  }

  // Logs, not the transaction's `to`: a deposit may come through a smart wallet or a batch.
  const deposits = parseEventLogs({ abi: escrowAbi, eventName: "Deposited", logs: receipt.logs });
  const ours = deposits.filter((log) => isAddressEqual(log.address, config.escrowAddress));
  if (ours.length === 0) {
    return deposits.length > 0
      ? { ok: false, code: "WRONG_CONTRACT", reason: `the deposit went to ${deposits[0].address}, not the escrow ${config.escrowAddress}` }
      : { ok: false, code: "NO_DEPOSIT_EVENT", reason: "the transaction emitted no Deposited event of the escrow contract" };
  }

  const deposit = ours.find((log) => log.args.jobId.toLowerCase() === jobId);
  if (!deposit) {
    return { ok: false, code: "WRONG_JOB", reason: `the deposit is for escrow job id ${ours[0].args.jobId}, not ${jobId}` };
  }
  if (deposit.args.amount !== expectedAmount) {
    return {
      ok: false,
      code: "WRONG_AMOUNT",
      reason: `the deposit is ${deposit.args.amount} units, the job's budget is ${expectedAmount} units`,
    };
  }

  // No cached head: a stale one would under-count confirmations right after new blocks.
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < config.confirmations) {
    return {
      ok: false,
      code: "NOT_CONFIRMED",
      reason: `${confirmations} of ${config.confirmations} confirmations; try again shortly`,
      confirmations,
    };
  }

  const escrow = await getEscrow({ config, escrowJobId: jobId });
  if (escrow.state !== "FUNDED") {
    return { ok: false, code: "ESCROW_NOT_FUNDED", reason: `the job's escrow is ${escrow.state.toLowerCase()}, it holds no funds` };
  }

  return { ok: true, payer: deposit.args.payer, amount: deposit.args.amount, blockNumber: receipt.blockNumber, confirmations };
}

// ---------------------------------------------------------------------------------------------
// Reading the contract

export interface EscrowRecord {
  payer: Address;
  amount: bigint;
  state: EscrowState;
  /** Block of the release or refund; 0n while not settled. */
  settledBlock: bigint;
}

export async function getEscrow(params: { config: ChainConfig; escrowJobId: string }): Promise<EscrowRecord> {
  const { config } = params;
  const [payer, amount, state, settledBlock] = await getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: [normalizeEscrowJobId(params.escrowJobId)],
  });
  return { payer, amount, state: ESCROW_STATES[state] ?? "NONE", settledBlock: BigInt(settledBlock) };
}

/** Payouts the token refused (e.g. a blacklisted address), waiting for `account` to claim. */
export async function claimableOf(params: { config: ChainConfig; account: Address }): Promise<bigint> {
  return getPublicClient(params.config).readContract({
    address: params.config.escrowAddress,
    abi: escrowAbi,
    functionName: "claimable",
    args: [params.account],
  });
}

export async function erc20BalanceOf(params: { config: ChainConfig; address: Address; token?: Address }): Promise<bigint> {
  return getPublicClient(params.config).readContract({
    address: params.token ?? params.config.tokenAddress,
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [params.address],
  });
}

/**
 * Problems with a configuration against what is deployed (empty when it fits): the RPC's chain,
 * code at the escrow address, its token, fee and operator. Meant for start-up and health checks.
 */
export async function checkEscrowDeployment(config: ChainConfig): Promise<string[]> {
  const client = getPublicClient(config);
  const problems: string[] = [];
  const chainId = await client.getChainId();
  if (chainId !== config.chainId) return [`RPC ${config.rpcUrl} serves chain ${chainId}, expected ${config.chainId}`];
  const code = await client.getCode({ address: config.escrowAddress });
  if (!code || code === "0x") return [`no contract at the escrow address ${config.escrowAddress}`];
  const read = <F extends "token" | "feeBps" | "operator">(functionName: F) =>
    client.readContract({ address: config.escrowAddress, abi: escrowAbi, functionName });
  const [token, feeBps, operator] = await Promise.all([read("token"), read("feeBps"), read("operator")]);
  if (!isAddressEqual(token, config.tokenAddress)) problems.push(`escrow token is ${token}, configured ${config.tokenAddress}`);
  if (feeBps !== config.feeBps) problems.push(`escrow feeBps is ${feeBps}, configured ${config.feeBps}`);
  const operatorAddress = privateKeyToAccount(config.operatorPrivateKey).address;
  if (!isAddressEqual(operator, operatorAddress)) problems.push(`escrow operator is ${operator}, the configured key is ${operatorAddress}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Release and refund

export type EscrowErrorCode = "NOT_FUNDED" | "ALREADY_RELEASED" | "ALREADY_REFUNDED" | "TX_FAILED";

export class EscrowError extends Error {
  constructor(
    readonly code: EscrowErrorCode,
    message: string,
    readonly txHash?: Hex,
  ) {
    super(message);
    this.name = "EscrowError";
  }
}

export interface SettlementResult {
  txHash: Hex;
  blockNumber: bigint;
  /** Who the settlement paid: the agent on release, the payer on refund. */
  to: Address;
  /** What `to` got: the deposit less the fee on release, the whole deposit on refund. */
  amount: bigint;
  /** The fee (0n on refund). */
  fee: bigint;
  /**
   * The part of `amount` the token refused to send to `to` (a blacklisted address), kept in the
   * contract as `claimable[to]` until its owner claims it to another address. Usually 0n.
   */
  heldForClaim: bigint;
  /** True when the job was already settled and the existing transaction is returned. */
  alreadySettled: boolean;
}

/**
 * Releases a funded job's escrow to `to` (less the fee). Idempotent against the chain: when the
 * job is already released (by an earlier call, a crash-interrupted one, or another instance),
 * it returns that release's transaction instead of sending one, so money moves once.
 */
export async function releaseEscrow(params: { config: ChainConfig; escrowJobId: string; to: Address }): Promise<SettlementResult> {
  return settle(params.config, normalizeEscrowJobId(params.escrowJobId), "RELEASED", params.to);
}

/** Returns a funded job's whole deposit to its payer; idempotent like releaseEscrow. */
export async function refundEscrow(params: { config: ChainConfig; escrowJobId: string }): Promise<SettlementResult> {
  return settle(params.config, normalizeEscrowJobId(params.escrowJobId), "REFUNDED");
}

async function settle(config: ChainConfig, jobId: Hex, goal: "RELEASED" | "REFUNDED", to?: Address): Promise<SettlementResult> {
  const before = await getEscrow({ config, escrowJobId: jobId });
  const done = await existingSettlement(config, jobId, goal, before);
  if (done) return done;

  const client = getPublicClient(config);
  const wallet = getWalletClient(config, config.operatorPrivateKey);
  let hash: Hex;
  try {
    hash = await sendWithRetry(config, wallet.account.address, async () => {
      // Simulating first turns a doomed call (lost race, wrong key) into an error, not a
      // reverted transaction that costs gas.
      if (goal === "RELEASED") {
        const { request } = await client.simulateContract({
          account: wallet.account,
          address: config.escrowAddress,
          abi: escrowAbi,
          functionName: "release",
          args: [jobId, to as Address],
        });
        return wallet.writeContract(request);
      }
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "refund",
        args: [jobId],
      });
      return wallet.writeContract(request);
    });
  } catch (err) {
    // Lost a race (another instance settled it between our read and our send): return theirs.
    const raced = await existingSettlement(config, jobId, goal, await getEscrow({ config, escrowJobId: jobId }));
    if (raced) return raced;
    throw new EscrowError("TX_FAILED", `${goal === "RELEASED" ? "release" : "refund"} failed: ${errorText(err)}`);
  }

  const receipt = await client.waitForTransactionReceipt({ hash, confirmations: config.confirmations, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== "success") {
    const raced = await existingSettlement(config, jobId, goal, await getEscrow({ config, escrowJobId: jobId }));
    if (raced) return raced;
    throw new EscrowError("TX_FAILED", `${goal === "RELEASED" ? "release" : "refund"} transaction reverted`, hash);
  }
  const result = settlementFromReceipt(config, jobId, goal, receipt);
  if (!result) throw new EscrowError("TX_FAILED", "the transaction succeeded but emitted no settlement event", hash);
  return { ...result, alreadySettled: false };
}

/** The earlier settlement when the job is already in `goal`; throws when it went the other way. */
async function existingSettlement(
  config: ChainConfig,
  jobId: Hex,
  goal: "RELEASED" | "REFUNDED",
  escrow: EscrowRecord,
): Promise<SettlementResult | null> {
  if (escrow.state === "NONE") throw new EscrowError("NOT_FUNDED", `no deposit for escrow job id ${jobId}`);
  if (escrow.state === "FUNDED") return null;
  if (escrow.state !== goal) {
    throw new EscrowError(escrow.state === "RELEASED" ? "ALREADY_RELEASED" : "ALREADY_REFUNDED", `the escrow is already ${escrow.state.toLowerCase()}`);
  }
  // The contract records the settlement block, so a one-block log query finds the event
  // (public RPCs cap log ranges; a scan from deployment would not scale).
  const client = getPublicClient(config);
  const logs = await client.getContractEvents({
    address: config.escrowAddress,
    abi: escrowAbi,
    eventName: goal === "RELEASED" ? "Released" : "Refunded",
    args: { jobId },
    fromBlock: escrow.settledBlock,
    toBlock: escrow.settledBlock,
  });
  const log = logs[0];
  if (!log?.transactionHash) {
    throw new EscrowError("TX_FAILED", `escrow is ${escrow.state.toLowerCase()} but no event was found in block ${escrow.settledBlock}`);
  }
  const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
  const result = settlementFromReceipt(config, jobId, goal, receipt);
  if (!result) throw new EscrowError("TX_FAILED", `no settlement event in ${log.transactionHash}`);
  return { ...result, alreadySettled: true };
}

function settlementFromReceipt(
  config: ChainConfig,
  jobId: Hex,
  goal: "RELEASED" | "REFUNDED",
  receipt: TransactionReceipt,
): Omit<SettlementResult, "alreadySettled"> | null {
  const logs = receipt.logs.filter((l) => isAddressEqual(l.address, config.escrowAddress));
  const events = parseEventLogs({ abi: escrowAbi, logs, args: { jobId } });
  let to: Address | undefined;
  let amount = 0n;
  let fee = 0n;
  for (const e of events) {
    if (goal === "RELEASED" && e.eventName === "Released") ({ to, amount, fee } = e.args);
    if (goal === "REFUNDED" && e.eventName === "Refunded") ({ to, amount } = e.args);
  }
  if (!to) return null;
  const recipient = to;
  const heldForClaim = events.reduce(
    (sum, e) => (e.eventName === "Credited" && isAddressEqual(e.args.account, recipient) ? sum + e.args.amount : sum),
    0n,
  );
  return { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, to: recipient, amount, fee, heldForClaim };
}

// ---------------------------------------------------------------------------------------------
// Plain transfers (rewards) and deposits (tests, seed data, agents paying for jobs)

/**
 * Sends `amount` USDC units from `privateKey`'s wallet to `to` and waits for the receipt.
 * Not idempotent by itself: exactly-once payouts are the caller's (a reserved reward row that
 * stores the hash before it waits).
 */
export async function transferUsdc(params: {
  config: ChainConfig;
  to: Address;
  amount: bigint;
  privateKey: Hex;
  /** Called with the hash as soon as the node accepted it, before waiting for the receipt. */
  onSent?: (txHash: Hex) => void | Promise<void>;
}): Promise<{ txHash: Hex; blockNumber: bigint }> {
  const { config } = params;
  if (params.amount <= 0n) throw new EscrowError("TX_FAILED", "transfer amount must be positive");
  const client = getPublicClient(config);
  const wallet = getWalletClient(config, params.privateKey);
  const hash = await sendWithRetry(config, wallet.account.address, async () => {
    const { request } = await client.simulateContract({
      account: wallet.account,
      address: config.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [params.to, params.amount],
    });
    return wallet.writeContract(request);
  });
  await params.onSent?.(hash);
  const receipt = await client.waitForTransactionReceipt({ hash, confirmations: config.confirmations, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== "success") throw new EscrowError("TX_FAILED", "USDC transfer reverted", hash);
  return { txHash: hash, blockNumber: receipt.blockNumber };
}

/**
 * Deposits `amount` into the escrow of `escrowJobId` from `privateKey`'s wallet: approve then
 * deposit, or one transaction with an EIP-2612 permit. Returns the deposit's transaction hash,
 * the one a poster registers with PATCH /v1/jobs/:id/escrow.
 */
export async function depositToEscrow(params: {
  config: ChainConfig;
  privateKey: Hex;
  escrowJobId: string;
  amount: bigint;
  usePermit?: boolean;
}): Promise<{ txHash: Hex; blockNumber: bigint }> {
  const { config, amount } = params;
  const jobId = normalizeEscrowJobId(params.escrowJobId);
  const client = getPublicClient(config);
  const wallet = getWalletClient(config, params.privateKey);
  const sender = wallet.account.address;

  let send: () => Promise<Hex>;
  if (params.usePermit) {
    const permit = await signUsdcPermit({ config, privateKey: params.privateKey, spender: config.escrowAddress, value: amount });
    send = async () => {
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "depositWithPermit",
        args: [jobId, amount, permit.deadline, permit.v, permit.r, permit.s],
      });
      return wallet.writeContract(request);
    };
  } else {
    const allowance = await client.readContract({
      address: config.tokenAddress,
      abi: usdcAbi,
      functionName: "allowance",
      args: [sender, config.escrowAddress],
    });
    if (allowance < amount) {
      const approveHash = await sendWithRetry(config, sender, () =>
        wallet.writeContract({ address: config.tokenAddress, abi: usdcAbi, functionName: "approve", args: [config.escrowAddress, amount] }),
      );
      const approved = await client.waitForTransactionReceipt({ hash: approveHash, timeout: RECEIPT_TIMEOUT_MS });
      if (approved.status !== "success") throw new EscrowError("TX_FAILED", "approve reverted", approveHash);
    }
    send = async () => {
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "deposit",
        args: [jobId, amount],
      });
      return wallet.writeContract(request);
    };
  }
  const hash = await sendWithRetry(config, sender, send);
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== "success") throw new EscrowError("TX_FAILED", "deposit reverted", hash);
  return { txHash: hash, blockNumber: receipt.blockNumber };
}

async function sendWithRetry(config: ChainConfig, sender: Address, send: () => Promise<Hex>): Promise<Hex> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withSenderLock(config, sender, send);
    } catch (err) {
      if (attempt >= 3 || !isNonceError(err)) throw err;
    }
  }
}

/** The contract's revert reason when there is one (e.g. NotFunded), else viem's short message. */
export function errorText(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) return revert.data?.errorName ?? revert.shortMessage;
    return err.shortMessage;
  }
  return err instanceof Error ? err.message : String(err);
}
