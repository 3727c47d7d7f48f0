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
