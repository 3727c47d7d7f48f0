import { describe, expect, it } from "vitest";
import { getAddress, zeroAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ChainConfig } from "@/lib/chain/config";
import { defaultServiceConfig } from "../config";
import type { ServiceContext } from "../context";
import { refusalOf, refusalOfAsync } from "../testing/rule-refusal";
import {
  checksummedAddress,
  fixedRefusal,
  PAYABLE_REFUSALS,
  requirePayableAddress,
  settlementRecipientRefusal,
  type PayableRefusal,
} from "./payable-address";

// Where money may be sent, the fixed part of the rule (docs/testing.md, "The pyramid"): no chain.
// The token's own answer (a blacklisted address, TOKEN_REFUSES) needs a chain and is tested on anvil
// in lib/service/payouts/payees.test.ts.

const addr = (byte: string) => getAddress(`0x${byte.repeat(20)}`);
const OPERATOR_KEY: Hex = `0x${"a1".repeat(32)}`;
const REWARDS_KEY: Hex = `0x${"b2".repeat(32)}`;
const CHAIN: ChainConfig = {
  network: "local",
  chainId: 31337,
  rpcUrl: "http://127.0.0.1:1",
  tokenAddress: addr("10"),
  tokenSymbol: "USDC",
  tokenDecimals: 6,
  escrowAddress: addr("20"),
  escrowV2Address: addr("21"),
  feeBps: 500,
  confirmations: 1,
  explorerUrl: null,
  operatorPrivateKey: OPERATOR_KEY,
  rewardsPrivateKey: REWARDS_KEY,
  treasuryAddress: addr("30"),
  identityRegistryAddress: null,
  reputationRegistryAddress: null,
};
const FEE_RECIPIENT = addr("40");
const SOMEONE = addr("5a");

describe("fixedRefusal: each kind of address that strands money", () => {
  const cases: [string, Address, PayableRefusal | null][] = [
    ["the zero address", zeroAddress, "ZERO_ADDRESS"],
    ["the escrow contract", CHAIN.escrowAddress, "ESCROW_CONTRACT"],
    ["EscrowV2, beside the escrow", CHAIN.escrowV2Address!, "ESCROW_CONTRACT"],
    ["the token contract", CHAIN.tokenAddress, "TOKEN_CONTRACT"],
    ["the escrow's fee recipient", FEE_RECIPIENT, "FEE_RECIPIENT"],
    ["the treasury", CHAIN.treasuryAddress!, "FEE_RECIPIENT"],
    ["the operator's wallet", privateKeyToAccount(OPERATOR_KEY).address, "SERVICE_WALLET"],
    ["the rewards (managed) wallet", privateKeyToAccount(REWARDS_KEY).address, "SERVICE_WALLET"],
    ["someone's own address", SOMEONE, null],
  ];
  it.each(cases)("%s: %s", (_what, address, expected) => {
    expect(fixedRefusal(CHAIN, address, FEE_RECIPIENT)).toBe(expected);
    // Spelling does not matter: the lower-case form is the same address.
    expect(fixedRefusal(CHAIN, address.toLowerCase() as Address, FEE_RECIPIENT)).toBe(expected);
  });

  it("covers every refusal but the token's own answer", () => {
    const seen = new Set(cases.map(([, , r]) => r).filter(Boolean));
    expect(PAYABLE_REFUSALS.filter((r) => !seen.has(r))).toEqual(["TOKEN_REFUSES"]);
  });

  it("without a known fee recipient (the chain did not answer) still refuses the treasury", () => {
    expect(fixedRefusal(CHAIN, FEE_RECIPIENT, null)).toBeNull();
    expect(fixedRefusal(CHAIN, CHAIN.treasuryAddress!, null)).toBe("FEE_RECIPIENT");
  });

  it("without a treasury or a rewards key, only what is configured is refused", () => {
    const bare = { ...CHAIN, treasuryAddress: null, rewardsPrivateKey: undefined };
    expect(fixedRefusal(bare, CHAIN.treasuryAddress!, null)).toBeNull();
    expect(fixedRefusal(bare, privateKeyToAccount(REWARDS_KEY).address, null)).toBeNull();
    expect(fixedRefusal(bare, privateKeyToAccount(OPERATOR_KEY).address, null)).toBe("SERVICE_WALLET");
  });

  it("without a chain, only the zero address", () => {
    expect(fixedRefusal(null, zeroAddress, null)).toBe("ZERO_ADDRESS");
    expect(fixedRefusal(null, CHAIN.escrowAddress, null)).toBeNull();
  });
});

describe("checksummedAddress", () => {
  const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
  it.each([
    ["all lower case", checksummed.toLowerCase()],
    ["all upper case after 0x", `0x${checksummed.slice(2).toUpperCase()}`],
    ["mixed case with a valid checksum", checksummed],
  ])("accepts %s and answers it checksummed", (_what, input) => {
    expect(checksummedAddress(input, "walletAddress")).toBe(checksummed);
  });

  it.each([
    ["mixed case with a wrong checksum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
    ["one hex digit short", checksummed.slice(0, -1)],
    ["one hex digit long", `${checksummed}0`],
    ["without 0x", checksummed.slice(2)],
    ["not hex", `0x${"g".repeat(40)}`],
    ["empty", ""],
  ])("refuses %s (400 VALIDATION_FAILED naming the field)", (_what, input) => {
    expect(refusalOf(() => checksummedAddress(input, "walletAddress"))).toEqual({
      code: "VALIDATION_FAILED",
      messages: ["walletAddress has an invalid EIP-55 checksum"],
      extra: {},
    });
  });
});

describe("requirePayableAddress without a chain configured", () => {
  const ctx = { config: defaultServiceConfig(), db: undefined, now: () => new Date() } as unknown as ServiceContext;

  it("refuses the zero address with 400 ADDRESS_NOT_PAYABLE, the field, the address and the reason", async () => {
    const refusal = await refusalOfAsync(() => requirePayableAddress(ctx, zeroAddress, "payoutAddress"));
    expect(refusal?.code).toBe("ADDRESS_NOT_PAYABLE");
    expect(refusal?.extra).toEqual({ field: "payoutAddress", address: zeroAddress, reason: "ZERO_ADDRESS" });
    expect(refusal?.messages[0]).toBe(
      `payoutAddress ${zeroAddress} is the zero address: choose an address you control that can receive USDC`,
    );
  });

  it("answers any other address checksummed", async () => {
    await expect(requirePayableAddress(ctx, SOMEONE.toLowerCase(), "payoutAddress")).resolves.toBe(SOMEONE);
  });
});

describe("settlementRecipientRefusal (the check again before a settlement is sent)", () => {
  it.each<[string, string, string | null]>([
    [
      "the token contract",
      CHAIN.tokenAddress.toLowerCase(),
      `the recipient ${CHAIN.tokenAddress} is the USDC token contract; money sent to it cannot be moved out again`,
    ],
    ["not an address", "0x1234", "the recipient 0x1234 is not an address"],
    ["someone's own address", SOMEONE, null],
    // Left to the contract, which reverts InvalidRecipient by itself.
    ["the zero address", zeroAddress, null],
    ["the escrow", CHAIN.escrowAddress, null],
    // A managed-wallet reward is paid to the service's own wallet on purpose.
    ["the rewards wallet", privateKeyToAccount(REWARDS_KEY).address, null],
  ])("%s: %s", (_what, address, expected) => {
    expect(settlementRecipientRefusal(CHAIN, address)).toBe(expected);
  });
});
