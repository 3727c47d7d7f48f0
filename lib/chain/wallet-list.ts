import type { WalletList } from "@rainbow-me/rainbowkit";
import { coinbaseWallet, injectedWallet, metaMaskWallet, walletConnectWallet } from "@rainbow-me/rainbowkit/wallets";

/**
 * RainbowKit insists on a project id even when no wallet in the list uses WalletConnect's relay:
 * this one only satisfies the API, and WalletConnect is not offered with it.
 */
export const NO_WALLETCONNECT_PROJECT_ID = "agentwork-local";

/**
 * The wallets the sign-in and funding pages offer: the browser's own (any EIP-1193 / EIP-6963
 * wallet, the test wallet of the browser tests), MetaMask and Coinbase Wallet; and, with a
 * WalletConnect project id (WALLETCONNECT_PROJECT_ID), WalletConnect, which connects a phone wallet
 * by QR code or deep link through WalletConnect's relay.
 */
export function walletList(walletConnectProjectId: string | null): {
  wallets: WalletList;
  projectId: string;
} {
  const wallets: WalletList = [{ groupName: "Wallets", wallets: [injectedWallet, metaMaskWallet, coinbaseWallet] }];
  if (walletConnectProjectId) wallets.push({ groupName: "Phone wallets", wallets: [walletConnectWallet] });
  return { wallets, projectId: walletConnectProjectId ?? NO_WALLETCONNECT_PROJECT_ID };
}
