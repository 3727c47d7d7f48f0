import { encodeFunctionData, type Hex } from "viem";
import { escrowAbi } from "../abi";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { signUsdcPermit } from "../permit";

/**
 * The call data of one deposit into the first escrow (contracts/Escrow.sol) from `privateKey`'s
 * wallet: depositWithPermit with an EIP-2612 permit for exactly `amount`, signed off-chain here.
 * One transaction, where approve-then-deposit (depositToEscrow) is two with no record between
 * them: the durable sender (durable-transfer.ts) can keep it signed before it is broadcast and ask
 * the chain about exactly that one. A permit submitted first by someone else (front-run from the
 * mempool) is tolerated by the contract: the allowance it set is still in place.
 */
export async function depositWithPermitCall(
  config: ChainConfig,
  privateKey: Hex,
  deposit: { escrowJobId: string; amount: bigint },
): Promise<Hex> {
  const { amount } = deposit;
  const permit = await signUsdcPermit({ config, privateKey, spender: config.escrowAddress, value: amount });
  return encodeFunctionData({
    abi: escrowAbi,
    functionName: "depositWithPermit",
    args: [normalizeEscrowJobId(deposit.escrowJobId), amount, permit.deadline, permit.v, permit.r, permit.s],
  });
}
