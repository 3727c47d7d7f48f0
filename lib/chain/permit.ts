import { parseSignature, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { usdcAbi } from "./abi";
import { getPublicClient } from "./clients";
import type { ChainConfig } from "./config";

export interface UsdcPermit {
  owner: Address;
  spender: Address;
  value: bigint;
  deadline: bigint;
  v: number;
  r: Hex;
  s: Hex;
}

/**
 * Signs an EIP-2612 permit for the configured USDC. The EIP-712 domain is read from the token
 * (name() and version(): "USD Coin"/"2" on Base, "USDC"/"2" on Base Sepolia, "USD Coin"/"2" for
 * the local test token), so one code path signs for every network.
 */
export async function signUsdcPermit(params: {
  config: ChainConfig;
  privateKey: Hex;
  spender: Address;
  value: bigint;
  /** Unix seconds; default one hour from the chain's latest block. */
  deadline?: bigint;
}): Promise<UsdcPermit> {
  const { config, spender, value } = params;
  const client = getPublicClient(config);
  const account = privateKeyToAccount(params.privateKey);
  const token = { address: config.tokenAddress, abi: usdcAbi } as const;
  const [name, version, nonce, block] = await Promise.all([
    client.readContract({ ...token, functionName: "name" }),
    client.readContract({ ...token, functionName: "version" }),
    client.readContract({ ...token, functionName: "nonces", args: [account.address] }),
    client.getBlock({ blockTag: "latest" }),
  ]);
  // The chain's clock, not ours: anvil's time may run ahead of or behind the host's.
  const deadline = params.deadline ?? block.timestamp + 3600n;
  const signature = await account.signTypedData({
    domain: { name, version, chainId: config.chainId, verifyingContract: config.tokenAddress },
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message: { owner: account.address, spender, value, nonce, deadline },
  });
  const { r, s, v, yParity } = parseSignature(signature);
  return { owner: account.address, spender, value, deadline, v: v !== undefined ? Number(v) : yParity + 27, r, s };
}
