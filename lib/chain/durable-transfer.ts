import {
  TransactionReceiptNotFoundError,
  encodeFunctionData,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { usdcAbi } from "./abi";
import type { ChainConfig } from "./config";
import { getPublicClient, getWalletClient, isNonceError, withSenderLock } from "./clients";
import { chainFailureReason } from "./escrow/errors";
import { finalBlockNumber } from "./receipts";

/**
 * The chain gave no definitive answer about a stored transfer (an RPC error or timeout on the
 * receipt or the nonce): it may be mined, pending or dropped. The caller keeps the row as it is
 * and asks again later; it must never sign another transfer on this answer.
 */
export class TransferStateUnknown extends Error {
  constructor(
    readonly hash: Hex,
    cause: unknown,
  ) {
    super(`the state of ${hash} is unknown (the RPC did not answer definitively): ${messageOf(cause)}`);
    this.name = "TransferStateUnknown";
  }
}

/**
 * What the chain says, definitively, about a signed transaction of `sender`:
 * - MINED: it has a receipt (success or revert);
 * - WAITING: no receipt, and the sender's nonce has not moved past it: it can still be mined, so
 *   it is re-sent as it is (same bytes, same nonce) and never replaced by a new nonce;
 * - DEAD: no receipt, and the sender's nonce at a confirmed block is past it (another transaction
 *   took that nonce), read twice: it can never be mined.
 * Any RPC failure throws TransferStateUnknown: a missing answer is not "not mined".
 */
export type StoredTransferState =
  { state: "MINED"; receipt: TransactionReceipt } | { state: "WAITING" } | { state: "DEAD" };

export async function storedTransferState(chain: ChainConfig, raw: Hex, hash: Hex): Promise<StoredTransferState> {
  const client = getPublicClient(chain);
  const tx = parseTransaction(raw);
  const nonce = tx.nonce ?? 0;
  const sender = await senderOf(raw);
  const receipt = async () => {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw new TransferStateUnknown(hash, error);
    }
  };
  try {
    // The nonce first, at a block deep enough to count as confirmed, then the receipt: had this
    // transaction taken the nonce, its receipt exists by the time it is asked for.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const depth = BigInt(Math.max(1, chain.confirmations) - 1);
    const confirmedBlock = head > depth ? head - depth : 0n;
    const used = await client.getTransactionCount({ address: sender, blockNumber: confirmedBlock });
    const first = await receipt();
    if (first) return { state: "MINED", receipt: first };
    if (used <= nonce) return { state: "WAITING" };
    // Asked once more, so one lagging node behind a load balancer cannot declare it dead.
    const second = await receipt();
    if (second) return { state: "MINED", receipt: second };
    return { state: "DEAD" };
  } catch (error) {
    if (error instanceof TransferStateUnknown) throw error;
    throw new TransferStateUnknown(hash, error);
  }
}

function senderOf(raw: Hex): Promise<Hex> {
  return recoverTransactionAddress({
    serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"],
  });
}

/**
 * The transaction is mined, but its block is not yet under the chain's finality tag (Base: `safe`,
 * config.finality): a reorganisation could still remove it, so it does not count yet. Deposits are
 * taken at the same finality (receipts.ts, checkConfirmations). Callers keep the transfer pending
 * and ask again later (it is a TransferStateUnknown: never a reason to sign another).
 */
export class TransferNotFinal extends TransferStateUnknown {
  constructor(
    hash: Hex,
    readonly blockNumber: bigint,
    readonly finality: string,
  ) {
    super(hash, new Error(`mined in block ${blockNumber}, not yet ${finality}`));
    this.name = "TransferNotFinal";
    this.message = `the transaction ${hash} is mined in block ${blockNumber}; it counts once that block is ${finality}`;
  }
}

/**
 * Thrown by a `record` that found another sender's transaction already kept for the same transfer
 * (two claimants, say an instance whose clock runs ahead took an unexpired lease): nothing is
 * broadcast; the next try asks the chain about the kept transaction.
 */
export class SignedElsewhere extends Error {
  constructor() {
    super("another sender signed a transaction for this transfer first; it is asked about next time");
    this.name = "SignedElsewhere";
  }
}

/** Throws SignedElsewhere when a conditional `record` (kept only while none is) changed no row. */
export function assertKept(result: { numUpdatedRows: bigint }): void {
  if (result.numUpdatedRows === 0n) throw new SignedElsewhere();
}

/** What an earlier try of a durable send stored, and how to keep or clear it (the caller's row). */
export interface StoredSend {
  /** The signed bytes and hash an earlier try recorded, if any. */
  stored: { raw: Hex | null; hash: Hex | null };
  /** The transaction of this hash can never be mined: clear it (only if it is still the one kept). */
  forget: (hash: Hex) => Promise<void>;
  /**
   * Keep the signed bytes and hash, before they are broadcast. It must refuse (throw) when another
   * sender recorded a transaction first: then nothing is broadcast.
   */
  record: (raw: Hex, hash: Hex) => Promise<void>;
}

/**
 * A USDC transfer that moves at most once across crashes, retries and lost RPC replies
 * (sendDurableCall with the token's transfer). Pack payouts and managed-wallet withdrawals send
 * this way; x402 settlements too, with `data` (a transferWithAuthorization call to the token) in
 * place of a transfer.
 */
export async function sendDurableUsdcTransfer(
  params: {
    chain: ChainConfig;
    privateKey: Hex;
    to: Hex;
    amount: bigint;
    /** Call data for the token contract instead of transfer(to, amount). */
    data?: Hex;
    /** Runs in the sender's lock just before a new transaction is signed (see sendDurableCall). */
    beforeSigning?: () => Promise<void>;
  } & StoredSend,
): Promise<Hex> {
  return sendDurableCall({
    ...params,
    contract: params.chain.tokenAddress,
    data:
      params.data ?? encodeFunctionData({ abi: usdcAbi, functionName: "transfer", args: [params.to, params.amount] }),
  });
}

/**
 * A contract call that happens at most once across crashes, retries, lost RPC replies and errors a
 * node (or its gateway) answers after it took the transaction. Its identity (the signed bytes,
 * hence its nonce, and its hash) is stored (`record`) before it is broadcast. A later try asks the
 * chain what became of it (storedTransferState): mined, it is returned; waiting, the same signed
 * bytes are re-sent (same nonce: mined once at most); only when it is definitively dead (its nonce
 * went to another transaction, no receipt) is it cleared (`forget`) and a new one signed. An error
 * of the broadcast itself decides nothing: the node is asked whether it holds the transaction, and
 * if it cannot say, TransferStateUnknown keeps the stored transaction for the next try. Returns the
 * hash to wait for (waitForDurableTransfer).
 */
export async function sendDurableCall(
  params: {
    chain: ChainConfig;
    privateKey: Hex;
    contract: Hex;
    data: Hex;
    /**
     * Runs inside the sender's lock just before a new transaction is signed (never before a stored
     * one is asked about): a simulation that throws stops the signing, so of parallel callers only
     * the first signs a call the contract accepts once.
     */
    beforeSigning?: () => Promise<void>;
  } & StoredSend,
): Promise<Hex> {
  const { chain } = params;
  const client = getPublicClient(chain);
  const wallet = getWalletClient(chain, params.privateKey);
  const sender = wallet.account.address;
  const { raw, hash } = params.stored;
  if (raw && hash) {
    const found = await storedTransferState(chain, raw, hash);
    if (found.state === "MINED") return hash;
    if (found.state === "WAITING") {
      // Already known, or a nonce error because it was mined meanwhile: either way the hash is what to wait for.
      await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => undefined);
      return hash;
    }
    // DEAD: its nonce went to another transaction; it can never be mined. Sign anew.
    await params.forget(hash);
  }
  return withSenderLock(chain, sender, async () => {
    await params.beforeSigning?.();
    for (let attempt = 1; ; attempt++) {
      const request = await wallet.prepareTransactionRequest({ to: params.contract, data: params.data });
      const signed = (await wallet.signTransaction(request)) as Hex;
      const signedHash = keccak256(signed);
      await params.record(signed, signedHash);
      try {
        await client.sendRawTransaction({ serializedTransaction: signed });
        return signedHash;
      } catch (error) {
        // A node or gateway may answer an error (-32000, -32603, a cut connection) after the node
        // took the transaction: only the chain says whether it is in flight. Known to the node:
        // wait for it.
        const known = await client.getTransaction({ hash: signedHash }).then(
          () => true,
          () => false,
        );
        if (known) return signedHash;
        // Its nonce was taken by another sender of the same key (another instance, another kind
        // of transfer): it can never be mined, so it is cleared and signed again at the next nonce.
        if (isNonceError(error) && attempt < 3) {
          await params.forget(signedHash);
          continue;
        }
        // Unknown: the stored transaction stays for the next try, which asks the chain again.
        throw new TransferStateUnknown(signedHash, error);
      }
    }
  });
}

/**
 * Waits for the receipt of `hash` itself (never of another transaction at its nonce: a different
 * transfer of the same wallet may take a dead transaction's nonce, and its success says nothing of
 * this one). No answer in time, or an RPC failure, throws TransferStateUnknown.
 */
export async function waitForDurableTransfer(
  chain: ChainConfig,
  hash: Hex,
  timeoutMs = 180_000,
  /** false: the receipt with its confirmations is enough (an x402 payment: see evals/x402.ts). */
  options: { untilFinal?: boolean } = {},
): Promise<TransactionReceipt> {
  let receipt: TransactionReceipt;
  try {
    receipt = await getPublicClient(chain).waitForTransactionReceipt({
      hash,
      confirmations: chain.confirmations,
      timeout: timeoutMs,
      checkReplacement: false,
    });
  } catch (error) {
    throw new TransferStateUnknown(hash, error);
  }
  if (receipt.transactionHash.toLowerCase() !== hash.toLowerCase())
    throw new TransferStateUnknown(hash, new Error(`a receipt of ${receipt.transactionHash} came back`));
  if (options.untilFinal !== false) await assertFinal(chain, receipt);
  return receipt;
}

/**
 * Throws TransferNotFinal while the receipt's block is above the chain's finality tag (nothing to
 * check without one: confirmations alone, as on the local chain). Final at the chain's finality as a
 * deposit is; not waited for here (on Base `safe` trails the head by minutes): the transfer stays
 * pending, and the next try finds it mined and asks again.
 */
export async function assertFinal(chain: ChainConfig, receipt: TransactionReceipt): Promise<void> {
  if (!chain.finality) return;
  let final: bigint;
  try {
    final = await finalBlockNumber(chain);
  } catch (error) {
    throw new TransferStateUnknown(receipt.transactionHash, error);
  }
  if (receipt.blockNumber > final)
    throw new TransferNotFinal(receipt.transactionHash, receipt.blockNumber, chain.finality);
}

/** What the node said, through the one sanitiser: it may be shown to people (a held reason). */
function messageOf(error: unknown): string {
  return chainFailureReason(error);
}
