"use client";

// The pack payment through the same wagmi/viem stack as the fund page: the browser's wallet
// (injected, EIP-1193/EIP-6963) sends USDC's transfer, wagmi waits for its receipt, and the wallet
// signs the payment message. take-pack-form.tsx imports this module only when a visitor asks the
// wallet to pay or sign, so the pack pages ship no wallet code until then.
import { createConfig, unstable_connector } from "wagmi";
import { connect, getAccount, signMessage, switchChain, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import { injected } from "wagmi/connectors";
import type { Address, Hex } from "viem";
import { usdcAbi } from "@/lib/chain/abi";
import { walletChains } from "@/lib/chain/wagmi";

export interface PackWallet {
  account: Address;
  /**
   * Sends `units` of USDC to `to` and waits until the transfer is mined; its hash. `onSent` gets the
   * hash as soon as the wallet sent it, so a visitor who leaves before it is mined can still use it.
   */
  transfer(p: { token: Address; to: Address; units: bigint; onSent(hash: Hex): void }): Promise<Hex>;
  /** EIP-191 personal_sign of `message` by the account. */
  sign(message: string): Promise<Hex>;
}

/** The connected browser wallet on `chainId` (asking to connect, and to switch, when needed). */
export async function connectPackWallet(chainId: number): Promise<PackWallet> {
  const chains = walletChains({ chainId });
  const connector = injected();
  // Reads (the receipt) go through the wallet's own node: the page knows no RPC address.
  const config = createConfig({
    chains,
    connectors: [connector],
    transports: Object.fromEntries(chains.map((chain) => [chain.id, unstable_connector(injected)])),
  });
  if (getAccount(config).status !== "connected") await connect(config, { connector: config.connectors[0]! });
  const account = getAccount(config);
  if (!account.address) throw new Error("The wallet shared no account.");
  if (account.chainId !== chainId) await switchChain(config, { chainId });
  return {
    account: account.address,
    async transfer({ token, to, units, onSent }) {
      const hash = await writeContract(config, {
        address: token,
        abi: usdcAbi,
        functionName: "transfer",
        args: [to, units],
        chainId,
      });
      onSent(hash);
      const receipt = await waitForTransactionReceipt(config, { hash, chainId });
      if (receipt.status !== "success") throw new Error(`The transfer ${hash} reverted; nothing was paid.`);
      return hash;
    },
    sign: (message) => signMessage(config, { message, account: account.address! }),
  };
}
