// The few EIP-1193 calls the pack payment needs, straight to the browser's injected wallet
// (window.ethereum): the pack pages stay free of the wallet libraries only the (wallet) routes load.

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

function provider(): Eip1193 {
  const eth = (globalThis as { ethereum?: Eip1193 }).ethereum;
  if (!eth) throw new Error("No browser wallet found. Install one (or paste the hash and signature below).");
  return eth;
}

const pad32 = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const utf8Hex = (text: string) =>
  `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/** The wallet's account, asking to connect when needed, on `chainId` (switching when it can). */
export async function connectedAccount(chainId: number): Promise<string> {
  const eth = provider();
  const [account] = (await eth.request({ method: "eth_requestAccounts" })) as string[];
  if (!account) throw new Error("The wallet shared no account.");
  const current = Number.parseInt(String(await eth.request({ method: "eth_chainId" })), 16);
  if (current !== chainId)
    await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: `0x${chainId.toString(16)}` }] });
  return account;
}

/** Sends an ERC-20 transfer(to, units) of `token` from `from` and waits until it is mined; its hash. */
export async function sendTokenTransfer(p: {
  from: string;
  token: string;
  to: string;
  units: string;
}): Promise<string> {
  const eth = provider();
  // transfer(address,uint256): selector a9059cbb, then the two 32-byte words.
  const data = `0xa9059cbb${pad32(p.to)}${pad32(BigInt(p.units).toString(16))}`;
  const hash = String(
    await eth.request({ method: "eth_sendTransaction", params: [{ from: p.from, to: p.token, data }] }),
  );
  for (let i = 0; i < 240; i++) {
    const receipt = (await eth.request({ method: "eth_getTransactionReceipt", params: [hash] })) as {
      status?: string;
    } | null;
    if (receipt) {
      if (receipt.status !== "0x1") throw new Error(`The transfer ${hash} reverted; nothing was paid.`);
      return hash;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`The transfer ${hash} is not mined yet; paste its hash once it is.`);
}

/** EIP-191 personal_sign of `message` by `account`. */
export async function personalSign(account: string, message: string): Promise<string> {
  return String(await provider().request({ method: "personal_sign", params: [utf8Hex(message), account] }));
}

export function walletErrorText(error: unknown): string {
  const e = error as { code?: number; message?: string };
  if (e?.code === 4001 || /rejected|denied/i.test(e?.message ?? "")) return "You rejected the request in your wallet.";
  return e?.message?.split("\n")[0] ?? String(error);
}
