import { walletConnectWallet } from "@rainbow-me/rainbowkit/wallets";
import { describe, expect, it } from "vitest";
import { NO_WALLETCONNECT_PROJECT_ID, walletList } from "./wallet-list";

const offered = (list: ReturnType<typeof walletList>) => list.wallets.flatMap((group) => group.wallets);

describe("the wallets the sign-in and funding pages offer", () => {
  it("offer WalletConnect, with the deployment's project id, when one is configured", () => {
    const id = "0123456789abcdef0123456789abcdef";
    const list = walletList(id);
    expect(offered(list)).toContain(walletConnectWallet);
    expect(list.projectId).toBe(id);
  });

  it("do not offer WalletConnect without a project id (its relay would refuse the placeholder)", () => {
    const list = walletList(null);
    expect(offered(list)).not.toContain(walletConnectWallet);
    expect(offered(list).length).toBeGreaterThan(0);
    expect(list.projectId).toBe(NO_WALLETCONNECT_PROJECT_ID);
  });
});
