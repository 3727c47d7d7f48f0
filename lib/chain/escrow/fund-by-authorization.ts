import {
  BaseError,
  ContractFunctionRevertedError,
  encodeAbiParameters,
  encodeFunctionData,
  keccak256,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowV2Abi, usdcAbi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import { sendDurableCall, type StoredSend } from "../durable-transfer";
import { normalizeEscrowJobId } from "../escrow-id";
import { escrowContractOf } from "./contracts";
import { EscrowError, chainFailureReason, isContractRevert } from "./errors";

// Funding a job without ETH (docs/escrow-v2.md, step 5): the payer signs USDC's own
// EIP-3009 `ReceiveWithAuthorization` to EscrowV2 (gasless, in the wallet), and the service sends
// `depositWithAuthorization` with it, paying the gas. The authorization's nonce must be
// `depositNonce(jobId, expiresAt)`: the payer's one signature then also fixes the job and the
// expiry, so whoever holds it can neither put the money under another job nor lock it longer.

/** The EIP-712 data a payer signs (eth_signTypedData_v4, viem's signTypedData). value in units, as a decimal string. */
export interface FundingAuthorizationTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: { ReceiveWithAuthorization: Array<{ name: string; type: string }> };
  primaryType: "ReceiveWithAuthorization";
  message: { from: Address; to: Address; value: string; validAfter: number; validBefore: number; nonce: Hex };
}

export interface FundingTerms {
  escrowJobId: string;
  payer: Address;
  amount: bigint;
  /** Unix seconds: the slot's expiry. */
  expiresAt: bigint;
  /** Unix seconds: the last second the authorization is good for. */
  validBefore: bigint;
}

/** EscrowV2's depositNonce(jobId, expiresAt), computed here as the contract does: keccak256(abi.encode(jobId, expiresAt)). */
export function depositNonce(escrowJobId: string, expiresAt: bigint): Hex {
  return keccak256(
    encodeAbiParameters([{ type: "bytes32" }, { type: "uint64" }], [normalizeEscrowJobId(escrowJobId), expiresAt]),
  );
}

/** The authorization to sign for `terms`, in the token's own domain (its name and version read from it). */
export async function fundingAuthorizationTypedData(
  config: ChainConfig,
  terms: FundingTerms,
): Promise<FundingAuthorizationTypedData> {
  const client = getPublicClient(config);
  const token = { address: config.tokenAddress, abi: usdcAbi } as const;
  const [name, version] = await Promise.all([
    client.readContract({ ...token, functionName: "name" }),
    client.readContract({ ...token, functionName: "version" }),
  ]);
  return {
    domain: { name, version, chainId: config.chainId, verifyingContract: config.tokenAddress },
    types: {
      ReceiveWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: terms.payer,
      to: escrowContractOf(config, 2).address,
      value: terms.amount.toString(),
      validAfter: 0,
      validBefore: Number(terms.validBefore),
      nonce: depositNonce(terms.escrowJobId, terms.expiresAt),
    },
  };
}

/**
 * Sends `depositWithAuthorization` for `terms` with the payer's `signature`, once (kept through
 * `durable` before it is broadcast). Simulated first: a signature that is not the payer's for these
 * terms, an expired one, a used nonce or a payer short of USDC is an EscrowError REVERTED (with the
 * contract's or the token's reason) before anything is signed. Returns the hash to wait for.
 */
export async function relayFundingAuthorization(params: {
  config: ChainConfig;
  privateKey: Hex;
  terms: FundingTerms;
  signature: Hex;
  durable: StoredSend;
}): Promise<Hex> {
  const { config, terms } = params;
  const escrow = escrowContractOf(config, 2).address;
  const jobId = normalizeEscrowJobId(terms.escrowJobId);
  const args = [
    jobId,
    terms.payer,
    terms.amount,
    terms.expiresAt,
    0n,
    terms.validBefore,
    depositNonce(jobId, terms.expiresAt),
    params.signature,
  ] as const;
  const simulate = async () => {
    try {
      await getPublicClient(config).simulateContract({
        account: privateKeyToAccount(params.privateKey).address,
        address: escrow,
        abi: escrowV2Abi,
        functionName: "depositWithAuthorization",
        args,
      });
    } catch (error) {
      if (isContractRevert(error)) throw new EscrowError("REVERTED", refusalOf(error));
      throw error;
    }
  };
  return sendDurableCall({
    chain: config,
    privateKey: params.privateKey,
    contract: escrow,
    data: encodeFunctionData({ abi: escrowV2Abi, functionName: "depositWithAuthorization", args }),
    beforeSigning: simulate,
    ...params.durable,
  });
}

/** The refusal in words: the token's own require string (FiatTokenV2's "invalid signature"), or the escrow's error. */
function refusalOf(error: unknown): string {
  const revert = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName === "Error")
    return `the token refused: ${String(revert.data.args?.[0])}`;
  return chainFailureReason(error);
}
