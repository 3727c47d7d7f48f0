import { parseEventLogs, type Address, type Log } from "viem";
import { escrowAbi, escrowV2Abi } from "../abi";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { checkConfirmations, getSuccessfulTransaction } from "../receipts";
import { escrowContractAt, escrowContracts, type EscrowContract } from "./contracts";
import { getEscrow } from "./reads";

// Checking a poster's funding transaction before the service counts a job as funded.

export type DepositCheckCode =
  | "TX_NOT_FOUND"
  | "TX_REVERTED"
  | "WRONG_CHAIN"
  | "WRONG_CONTRACT"
  | "NO_DEPOSIT_EVENT"
  | "WRONG_JOB"
  | "WRONG_AMOUNT"
  | "NOT_CONFIRMED"
  /** The deposit happened but its slot has since been released or refunded. */
  | "ESCROW_NOT_FUNDED";

export type DepositCheck =
  | {
      ok: true;
      payer: Address;
      amount: bigint;
      blockNumber: bigint;
      confirmations: number;
      /** The configured contract the deposit went to (the Deposited event's emitter). */
      escrow: EscrowContract;
      /** EscrowV2's slot expiry (unix seconds): from then on anyone may return the money to the payer. Null in version 1. */
      expiresAt: bigint | null;
    }
  | { ok: false; code: DepositCheckCode; reason: string; confirmations?: number };

/**
 * Checks on the configured chain that `txHash` funded the escrow of `escrowJobId` with exactly
 * `expectedAmount`, in either configured escrow contract (version 1's or EscrowV2's: the Deposited
 * event's emitter decides which; version 2's event also carries the slot's expiry), (6-decimal units) and has the configured confirmations. The escrow keeps one
 * slot per (job id, payer), so the result names the payer of the verified Deposited event: that
 * slot, and only that one, is the job's money (a stranger's deposit under the same public job id
 * sits in the stranger's own slot and neither blocks nor changes it). The caller stores the payer
 * and still has to make sure no other job registered the same hash (a unique constraint).
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
  const mined = await getSuccessfulTransaction(config, params.txHash);
  if (!mined.ok) return mined;
  const { receipt } = mined;

  // Logs, not the transaction's `to`: a deposit may come through a smart wallet or a batch. Each
  // version's Deposited has its own signature (version 2 adds expiresAt), so each is parsed with its ABI.
  const deposits = [...depositsOf(receipt.logs, 1), ...depositsOf(receipt.logs, 2)];
  const ours = deposits.flatMap((log) => {
    const escrow = escrowContractAt(config, log.address);
    return escrow && escrow.version === log.version ? [{ ...log, escrow }] : [];
  });
  if (ours.length === 0) {
    const escrows = escrowContracts(config)
      .map((c) => c.address)
      .join(" or ");
    return deposits.length > 0
      ? {
          ok: false,
          code: "WRONG_CONTRACT",
          reason: `the deposit went to ${deposits[0].address}, not the escrow ${escrows}`,
        }
      : {
          ok: false,
          code: "NO_DEPOSIT_EVENT",
          reason: "the transaction emitted no Deposited event of the escrow contract",
        };
  }

  const forJob = ours.filter((log) => log.args.jobId.toLowerCase() === jobId);
  if (forJob.length === 0) {
    return {
      ok: false,
      code: "WRONG_JOB",
      reason: `the deposit is for escrow job id ${ours[0].args.jobId}, not ${jobId}`,
    };
  }
  const deposit = forJob.find((log) => log.args.amount === expectedAmount);
  if (!deposit) {
    return {
      ok: false,
      code: "WRONG_AMOUNT",
      reason: `the deposit is ${forJob[0].args.amount} units, the job's budget is ${expectedAmount} units`,
    };
  }

  const confirmed = await checkConfirmations(config, receipt);
  if (!confirmed.ok) return confirmed;

  const escrow = await getEscrow({
    config,
    escrowJobId: jobId,
    payer: deposit.args.payer,
    version: deposit.escrow.version,
  });
  if (escrow.state !== "FUNDED") {
    return {
      ok: false,
      code: "ESCROW_NOT_FUNDED",
      reason: `this deposit's escrow is ${escrow.state.toLowerCase()}, it holds no funds`,
    };
  }

  return {
    ok: true,
    payer: deposit.args.payer,
    amount: deposit.args.amount,
    blockNumber: receipt.blockNumber,
    confirmations: confirmed.confirmations,
    escrow: deposit.escrow,
    expiresAt: deposit.args.expiresAt,
  };
}

/** The Deposited events of `version`'s signature among `logs`, whoever emitted them, in one shape. */
function depositsOf(logs: Log[], version: 1 | 2) {
  if (version === 1)
    return parseEventLogs({ abi: escrowAbi, eventName: "Deposited", logs }).map((log) => ({
      address: log.address,
      version,
      args: { ...log.args, expiresAt: null as bigint | null },
    }));
  return parseEventLogs({ abi: escrowV2Abi, eventName: "Deposited", logs }).map((log) => ({
    address: log.address,
    version,
    args: { ...log.args, expiresAt: BigInt(log.args.expiresAt) as bigint | null },
  }));
}
