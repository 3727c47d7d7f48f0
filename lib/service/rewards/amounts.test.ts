import { describe, expect, it } from "vitest";
import type { ChainConfig } from "@/lib/chain/config";
import { privateKeyToAccount } from "viem/accounts";
import { amountsOf, chainKeyOf, explorerTxUrl, GROSS_USDC, managedWalletAddress, rewardsKey } from "./amounts";

// The rewards' amounts and wallets (docs/testing.md, "The pyramid"): pure, no database, no chain.

const OPERATOR_KEY = `0x${"a1".repeat(32)}` as const;
const REWARDS_KEY = `0x${"b2".repeat(32)}` as const;
const chain = (over: Partial<ChainConfig> = {}) =>
  ({
    chainId: 84532,
    escrowAddress: "0x00000000000000000000000000000000000000AB",
    operatorPrivateKey: OPERATOR_KEY,
    explorerUrl: null,
    ...over,
  }) as ChainConfig;

describe("amountsOf: gross, the contract's fee (rounded down) and net per kind", () => {
  it.each([
    ["THREAD", 500, { grossUsdc: "0.1", feeUsdc: "0.005", netUsdc: "0.095" }],
    ["REPLY", 500, { grossUsdc: "0.05", feeUsdc: "0.0025", netUsdc: "0.0475" }],
    ["REFERRAL", 500, { grossUsdc: "0.2", feeUsdc: "0.01", netUsdc: "0.19" }],
    ["THREAD", 0, { grossUsdc: "0.1", feeUsdc: "0", netUsdc: "0.1" }],
    ["THREAD", 10_000, { grossUsdc: "0.1", feeUsdc: "0.1", netUsdc: "0" }],
    // 0.05 × 3 bps = 0.000015: whole units only.
    ["REPLY", 3, { grossUsdc: "0.05", feeUsdc: "0.000015", netUsdc: "0.049985" }],
    ["REPLY", 1, { grossUsdc: "0.05", feeUsdc: "0.000005", netUsdc: "0.049995" }],
  ] as const)("%s at %i bps", (kind, bps, expected) => {
    expect(amountsOf(kind, bps)).toEqual(expected);
    expect(expected.grossUsdc).toBe(GROSS_USDC[kind]);
  });

  it("refuses a fee outside 0..10000 bps", () => {
    expect(() => amountsOf("THREAD", 10_001)).toThrow(/bad feeBps/);
    expect(() => amountsOf("THREAD", -1)).toThrow(/bad feeBps/);
  });
});

describe("the rewards wallet", () => {
  it("is REWARDS_PRIVATE_KEY's, else the operator's", () => {
    expect(rewardsKey(chain({ rewardsPrivateKey: REWARDS_KEY }))).toBe(REWARDS_KEY);
    expect(rewardsKey(chain())).toBe(OPERATOR_KEY);
    expect(managedWalletAddress(chain({ rewardsPrivateKey: REWARDS_KEY }))).toBe(
      privateKeyToAccount(REWARDS_KEY).address,
    );
    expect(managedWalletAddress(chain())).toBe(privateKeyToAccount(OPERATOR_KEY).address);
    expect(managedWalletAddress(null)).toBeNull();
  });

  it("keeps slots per chain and escrow, the escrow's address in any case", () => {
    expect(chainKeyOf(chain())).toBe("84532:0x00000000000000000000000000000000000000ab");
    expect(chainKeyOf(null)).toBe("none");
  });
});

describe("explorerTxUrl", () => {
  it.each<[string | null, string | null, string | null]>([
    ["https://sepolia.basescan.org", "0xabc", "https://sepolia.basescan.org/tx/0xabc"],
    ["https://sepolia.basescan.org/", "0xabc", "https://sepolia.basescan.org/tx/0xabc"],
    [null, "0xabc", null],
    ["https://sepolia.basescan.org", null, null],
  ])("explorer %s, transaction %s: %s", (explorer, tx, expected) => {
    expect(explorerTxUrl(chain({ explorerUrl: explorer }), tx)).toBe(expected);
  });
});
