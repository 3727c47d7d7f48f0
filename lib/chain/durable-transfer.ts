import { encodeFunctionData, keccak256, parseTransaction, type Hex } from "viem";
import { usdcAbi } from "./abi";
import type { ChainConfig } from "./config";
import { getPublicClient, getWalletClient, withSenderLock } from "./clients";

/**
 * A USDC transfer that moves at most once across crashes and retries: it is signed and its bytes
 * recorded (`record`) before it is broadcast; a later try rebroadcasts the same signed bytes (same
 * nonce: mined once at most), and signs anew (after `forget`) only when the wallet's nonce moved
 * past it without mining it. Returns the hash to wait for. Pack payouts and reward withdrawals both
 * send this way.
 */
export async function sendDurableUsdcTransfer(params: {
  chain: ChainConfig;
  privateKey: Hex;
  to: Hex;
  amount: bigint;
  /** What an earlier try stored, if anything. */
  stored: { raw: Hex | null; hash: Hex | null };
  /** The stored transaction can never be mined: clear it. */
  forget: () => Promise<void>;
  /** Keep the signed bytes and hash, before they are broadcast. */
  record: (raw: Hex, hash: Hex) => Promise<void>;
}): Promise<Hex> {
  const { chain } = params;
  const client = getPublicClient(chain);
  const wallet = getWalletClient(chain, params.privateKey);
  const sender = wallet.account.address;
  let { raw, hash } = params.stored;
  if (raw && hash) {
    const mined = await client.getTransactionReceipt({ hash }).catch(() => null);
    if (!mined) {
      const nonce = parseTransaction(raw).nonce ?? 0;
      const used = await client.getTransactionCount({ address: sender, blockTag: "latest" });
      if (used > nonce) {
        // Its nonce went to another transaction: this one can never be mined. Sign again.
        await params.forget();
        raw = null;
        hash = null;
      } else {
        await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => undefined);
      }
    }
  }
  if (!raw || !hash) {
    hash = await withSenderLock(chain, sender, async () => {
      const request = await wallet.prepareTransactionRequest({
        to: chain.tokenAddress,
        data: encodeFunctionData({ abi: usdcAbi, functionName: "transfer", args: [params.to, params.amount] }),
      });
      const signed = (await wallet.signTransaction(request)) as Hex;
      const signedHash = keccak256(signed);
      await params.record(signed, signedHash);
      await client.sendRawTransaction({ serializedTransaction: signed });
      return signedHash;
    });
  }
  return hash;
}
