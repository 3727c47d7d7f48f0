import { isAddressEqual, type Address } from "viem";
import type { ChainConfig } from "../config";

// The escrow contracts a deployment holds slots in: the first escrow (contracts/Escrow.sol, version
// 1, ChainConfig.escrowAddress) and, once deployed, EscrowV2 (contracts/EscrowV2.sol, version 2,
// ChainConfig.escrowV2Address; docs/escrow-v2.md). A job records the one holding its slot
// (jobs.escrow_address, jobs.escrow_version) and is settled there until done.

export type EscrowVersion = 1 | 2;

export interface EscrowContract {
  version: EscrowVersion;
  address: Address;
}

/** Every escrow contract of the configuration, the first escrow first. */
export function escrowContracts(config: ChainConfig): EscrowContract[] {
  const first: EscrowContract = { version: 1, address: config.escrowAddress };
  return config.escrowV2Address ? [first, { version: 2, address: config.escrowV2Address }] : [first];
}

/** The configured contract of `version`; throws when EscrowV2 is asked for and not configured. */
export function escrowContractOf(config: ChainConfig, version: EscrowVersion = 1): EscrowContract {
  const contract = escrowContracts(config).find((c) => c.version === version);
  if (!contract) throw new Error(`escrow version ${version} is not configured (ESCROW_V2_ADDRESS)`);
  return contract;
}

/** The configured contract at `address`, or undefined when it is none of them. */
export function escrowContractAt(config: ChainConfig, address: Address): EscrowContract | undefined {
  return escrowContracts(config).find((c) => isAddressEqual(c.address, address));
}

/**
 * The escrow new deposits go to (ChainConfig.newDepositsEscrowVersion, NEW_DEPOSITS_ESCROW): the
 * first escrow unless EscrowV2 is chosen (and configured).
 */
export function newDepositsEscrow(config: ChainConfig): EscrowContract {
  return config.newDepositsEscrowVersion === 2 && config.escrowV2Address
    ? { version: 2, address: config.escrowV2Address }
    : { version: 1, address: config.escrowAddress };
}

const DAY_SECONDS = 24 * 60 * 60;
/** EscrowV2's bounds on a deposit's expiry, from the deposit's block (MIN_EXPIRY_DELAY, MAX_EXPIRY_DELAY). */
export const ESCROW_V2_EXPIRY_BOUNDS_SECONDS = { min: DAY_SECONDS, max: 400 * DAY_SECONDS } as const;
/** Room for the deposit to be mined after the expiry is chosen, inside each bound. */
export const MINING_SLACK_SECONDS = 60 * 60;

/**
 * The `expiresAt` (unix seconds) to deposit into EscrowV2 with now: the job's escrowExpiryNeededAt,
 * moved into the contract's bounds with an hour to spare for the deposit to be mined (at least
 * now + 1 day + 1 hour, at most now + 400 days - 1 hour). The fund page and the SDK use it.
 */
export function depositExpiresAt(neededAt: Date, now: Date = new Date()): bigint {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const earliest = nowSeconds + ESCROW_V2_EXPIRY_BOUNDS_SECONDS.min + MINING_SLACK_SECONDS;
  const latest = nowSeconds + ESCROW_V2_EXPIRY_BOUNDS_SECONDS.max - MINING_SLACK_SECONDS;
  const needed = Math.ceil(neededAt.getTime() / 1000);
  return BigInt(Math.min(Math.max(needed, earliest), latest));
}
