import type { EIP1193Provider, Hex } from "viem";
import type { AssignmentTypedData } from "@/lib/api/schemas/bids";
import type { ApprovalTypedData } from "@/lib/api/schemas/jobs";

/** A signature, or the sentence that says why there is none. */
export type PayerSignature = { signature: Hex } | { error: string };

/**
 * The payer's EIP-712 consent on an EscrowV2 slot (an `Assign` at acceptance, an `Approve` kept for
 * the agent), signed by the browser wallet (eth_signTypedData_v4, gasless). The wallet is reached
 * through the page's injected EIP-1193 provider with viem, loaded on use, so a job page does not
 * carry the wallet kit for a step most posters meet once. Only the payer's account may sign: the
 * contract would refuse any other. `noWallet` is the page's own sentence for a browser without one.
 */
export async function signAsPayer(
  typed: AssignmentTypedData | ApprovalTypedData,
  noWallet: string,
): Promise<PayerSignature> {
  const ethereum = (window as { ethereum?: EIP1193Provider }).ethereum;
  if (!ethereum) return { error: noWallet };
  const { payer } = typed.message;
  try {
    const { createWalletClient, custom, isAddressEqual } = await import("viem");
    const wallet = createWalletClient({ transport: custom(ethereum) });
    const [account] = await wallet.requestAddresses();
    if (!account || !isAddressEqual(account, payer as Hex))
      return {
        error: `Your wallet is on ${account ?? "no account"}: switch it to ${payer}, the wallet that funded the job.`,
      };
    // The union of the two typed-data shapes is too wide for viem's inference; each is well formed.
    const signature = await wallet.signTypedData({
      account,
      domain: { ...typed.domain, verifyingContract: typed.domain.verifyingContract as Hex },
      types: typed.types,
      primaryType: typed.primaryType,
      message: { ...typed.message, deadline: BigInt(typed.message.deadline) },
    } as Parameters<typeof wallet.signTypedData>[0]);
    return { signature };
  } catch (e) {
    // Loaded with viem, on the rare failure: the sentence maker carries viem's error classes.
    const { walletFailureSentence } = await import("@/lib/chain/escrow/errors");
    return { error: walletFailureSentence(e) };
  }
}
