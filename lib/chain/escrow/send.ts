import { isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import { escrowAbi, escrowV2Abi, usdcAbi } from "../abi";
import { getPublicClient, getWalletClient, isNonceError, withSenderLock } from "../clients";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { signUsdcPermit } from "../permit";
import { EscrowError, chainFailureReason, errorText } from "./errors";
import { feesAccruedOf } from "./reads";
import { escrowContractOf } from "./contracts";

// Sending money from a key the service (or a test, or seed data) holds: plain USDC transfers
// (rewards) and deposits into a job's escrow (agents paying for jobs, reward slots, seed data).

export const RECEIPT_TIMEOUT_MS = 180_000;

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
  const receipt = await client.waitForTransactionReceipt({
    hash,
    confirmations: config.confirmations,
    timeout: RECEIPT_TIMEOUT_MS,
  });
  if (receipt.status !== "success") throw new EscrowError("TX_FAILED", "USDC transfer reverted", hash);
  return { txHash: hash, blockNumber: receipt.blockNumber };
}

/**
 * Deposits `amount` into the escrow of `escrowJobId` from `privateKey`'s wallet: approve then
 * deposit, or one transaction with an EIP-2612 permit. With `expiresAt` (unix seconds) the deposit
 * goes to EscrowV2 (ChainConfig.escrowV2Address) with that slot expiry; otherwise to the first
 * escrow. Returns the deposit's transaction hash, the one a poster registers with
 * PATCH /v1/jobs/:id/escrow.
 */
export async function depositToEscrow(params: {
  config: ChainConfig;
  privateKey: Hex;
  escrowJobId: string;
  amount: bigint;
  usePermit?: boolean;
  expiresAt?: bigint;
}): Promise<{ txHash: Hex; blockNumber: bigint }> {
  const { config, amount, expiresAt } = params;
  const jobId = normalizeEscrowJobId(params.escrowJobId);
  const escrow = escrowContractOf(config, expiresAt === undefined ? 1 : 2).address;
  const client = getPublicClient(config);
  const wallet = getWalletClient(config, params.privateKey);
  const sender = wallet.account.address;

  let send: () => Promise<Hex>;
  if (params.usePermit) {
    const permit = await signUsdcPermit({
      config,
      privateKey: params.privateKey,
      spender: escrow,
      value: amount,
    });
    send = async () => {
      if (expiresAt === undefined) {
        const { request } = await client.simulateContract({
          account: wallet.account,
          address: escrow,
          abi: escrowAbi,
          functionName: "depositWithPermit",
          args: [jobId, amount, permit.deadline, permit.v, permit.r, permit.s],
        });
        return wallet.writeContract(request);
      }
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: escrow,
        abi: escrowV2Abi,
        functionName: "depositWithPermit",
        args: [jobId, amount, expiresAt, permit.deadline, permit.v, permit.r, permit.s],
      });
      return wallet.writeContract(request);
    };
  } else {
    const allowance = await client.readContract({
      address: config.tokenAddress,
      abi: usdcAbi,
      functionName: "allowance",
      args: [sender, escrow],
    });
    if (allowance < amount) {
      const approveHash = await sendWithRetry(config, sender, () =>
        wallet.writeContract({
          address: config.tokenAddress,
          abi: usdcAbi,
          functionName: "approve",
          args: [escrow, amount],
        }),
      );
      const approved = await client.waitForTransactionReceipt({ hash: approveHash, timeout: RECEIPT_TIMEOUT_MS });
      if (approved.status !== "success") throw new EscrowError("TX_FAILED", "approve reverted", approveHash);
    }
    send = async () => {
      if (expiresAt === undefined) {
        const { request } = await client.simulateContract({
          account: wallet.account,
          address: escrow,
          abi: escrowAbi,
          functionName: "deposit",
          args: [jobId, amount],
        });
        return wallet.writeContract(request);
      }
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: escrow,
        abi: escrowV2Abi,
        functionName: "deposit",
        args: [jobId, amount, expiresAt],
      });
      return wallet.writeContract(request);
    };
  }
  const hash = await sendWithRetry(config, sender, send);
  const receipt = await client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== "success") throw new EscrowError("TX_FAILED", "deposit reverted", hash);
  return { txHash: hash, blockNumber: receipt.blockNumber };
}

/** Sends through the sender's lock, retrying a nonce clash (another sender of the same key) up to three times. */
export async function sendWithRetry(config: ChainConfig, sender: Address, send: () => Promise<Hex>): Promise<Hex> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withSenderLock(config, sender, send);
    } catch (err) {
      if (attempt >= 3 || !isNonceError(err)) throw err;
    }
  }
}

/**
 * Sends every fee the escrow has accrued to its immutable fee recipient (the treasury), with the
 * operator key. The contract moves the fees once: with nothing accrued (a second click, or a
 * withdrawal racing this one) it reverts NoFeesAccrued and this returns null; nothing is sent.
 */
export async function withdrawEscrowFees(
  config: ChainConfig,
): Promise<{ txHash: Hex; amount: bigint; to: Address } | null> {
  const client = getPublicClient(config);
  const wallet = getWalletClient(config, config.operatorPrivateKey);
  let hash: Hex;
  try {
    hash = await sendWithRetry(config, wallet.account.address, async () => {
      const { request } = await client.simulateContract({
        account: wallet.account,
        address: config.escrowAddress,
        abi: escrowAbi,
        functionName: "withdrawFees",
      });
      return wallet.writeContract(request);
    });
  } catch (err) {
    if (errorText(err) === "NoFeesAccrued") return null;
    // A withdrawal racing this one may surface as another error of the send (its gas estimate
    // reverting, a nonce taken): with nothing accrued any more, this one had nothing to send.
    if ((await feesAccruedOf(config).catch(() => null)) === 0n) return null;
    throw new EscrowError("TX_FAILED", `the fee withdrawal failed: ${chainFailureReason(err)}`);
  }
  const receipt = await client.waitForTransactionReceipt({
    hash,
    confirmations: config.confirmations,
    timeout: RECEIPT_TIMEOUT_MS,
  });
  // Reverted on chain: another withdrawal took the fees between our simulation and this block.
  if (receipt.status !== "success") return null;
  const [event] = parseEventLogs({
    abi: escrowAbi,
    eventName: "FeesWithdrawn",
    logs: receipt.logs.filter((l) => isAddressEqual(l.address, config.escrowAddress)),
  });
  if (!event) throw new EscrowError("TX_FAILED", "the fee withdrawal emitted no FeesWithdrawn event", hash);
  return { txHash: hash, amount: event.args.amount, to: event.args.to };
}
