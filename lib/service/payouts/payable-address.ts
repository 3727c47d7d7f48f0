import { fail, DomainError } from "../errors";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  getAddress,
  http,
  isAddress,
  isAddressEqual,
  zeroAddress,
  type Address,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowAbi, usdcAbi } from "@/lib/chain/abi";
import { viemChain } from "@/lib/chain/chains";
import type { ChainConfig } from "@/lib/chain/config";
import type { ServiceContext } from "../context";

/**
 * The one rule of where money may be sent: every address the service will pay (an agent's
 * walletAddress, an owner's forum payout address, a withdrawal's destination, a settlement's
 * recipient when it is settled again) passes here before it is stored or used.
 *
 * Refused, because money sent there is stranded or never reaches its owner:
 * - the zero address (the token burns or refuses it);
 * - the escrow contract (release and settleSplit revert InvalidRecipient, for ever, and the
 *   poster's share of a split stays locked with the agent's);
 * - the token contract (the token keeps what is sent to it; nobody can move it out);
 * - the escrow's fee recipient and the treasury (the money would be counted as the marketplace's);
 * - the service's own wallets (the operator key, the rewards key that is also the managed
 *   wallet): a payout there is credited to no one;
 * - an address the token refuses to pay: a USDC transfer to it is simulated with eth_call from the
 *   escrow (the sender of every settlement), so a blacklisted address is refused.
 * Externally owned accounts and contracts (a smart-contract wallet) the token pays are accepted:
 * an ERC-20 transfer runs no code of the recipient, so the token's answer is the whole test.
 *
 * When the chain cannot be reached the token's answer is not known; the address is accepted on
 * the fixed rules alone (a payout the token refuses later is credited in the escrow for the
 * address to claim, and a settlement the chain refuses becomes FAILED and is settled again).
 */

export const PAYABLE_REFUSALS = [
  "ZERO_ADDRESS",
  "ESCROW_CONTRACT",
  "TOKEN_CONTRACT",
  "FEE_RECIPIENT",
  "SERVICE_WALLET",
  "TOKEN_REFUSES",
] as const;
export type PayableRefusal = (typeof PAYABLE_REFUSALS)[number];

const REFUSAL_TEXT: Record<PayableRefusal, string> = {
  ZERO_ADDRESS: "is the zero address",
  ESCROW_CONTRACT: "is the escrow contract, which never pays itself (the settlement would revert for ever)",
  TOKEN_CONTRACT: "is the USDC token contract; money sent to it cannot be moved out again",
  FEE_RECIPIENT:
    "is the marketplace's fee recipient or treasury; a payout there would count as the marketplace's money",
  SERVICE_WALLET:
    "is one of the service's own wallets (operator or rewards wallet); a payout there is credited to no one",
  TOKEN_REFUSES: "is refused by the token (a simulated USDC transfer to it reverts, e.g. a blacklisted address)",
};

/**
 * The fixed refusals, known without asking the chain beyond the fee recipient (read once per process
 * by requirePayableAddress and passed in), so the rule itself needs no chain.
 */
export function fixedRefusal(
  chain: ChainConfig | null,
  address: Address,
  feeRecipient: Address | null,
): PayableRefusal | null {
  if (isAddressEqual(address, zeroAddress)) return "ZERO_ADDRESS";
  if (!chain) return null;
  // Either escrow contract: USDC sent to EscrowV2 outside a deposit is stranded there too.
  if (
    isAddressEqual(address, chain.escrowAddress) ||
    (chain.escrowV2Address && isAddressEqual(address, chain.escrowV2Address))
  )
    return "ESCROW_CONTRACT";
  if (isAddressEqual(address, chain.tokenAddress)) return "TOKEN_CONTRACT";
  if (
    (feeRecipient && isAddressEqual(address, feeRecipient)) ||
    (chain.treasuryAddress && isAddressEqual(address, chain.treasuryAddress))
  )
    return "FEE_RECIPIENT";
  const own = [chain.operatorPrivateKey, chain.rewardsPrivateKey]
    .filter((k): k is `0x${string}` => Boolean(k))
    .map((k) => privateKeyToAccount(k).address);
  if (own.some((a) => isAddressEqual(address, a))) return "SERVICE_WALLET";
  return null;
}

// A client of its own for this check: no retries and a short timeout, so that an unreachable
// chain costs a request a moment, not the settlement client's patience.
const clients = new Map<string, PublicClient>();
function checkClient(chain: ChainConfig): PublicClient {
  const key = `${chain.chainId}|${chain.rpcUrl}`;
  let client = clients.get(key);
  if (!client) {
    client = createPublicClient({
      chain: viemChain(chain.network, chain.chainId, chain.rpcUrl),
      transport: http(chain.rpcUrl, { retryCount: 0, timeout: 5_000 }),
    }) as PublicClient;
    clients.set(key, client);
  }
  return client;
}

const feeRecipients = new Map<string, Address>();
async function feeRecipientOf(chain: ChainConfig): Promise<Address | null> {
  const key = `${chain.chainId}|${chain.escrowAddress.toLowerCase()}`;
  const known = feeRecipients.get(key);
  if (known) return known;
  try {
    const recipient = await checkClient(chain).readContract({
      address: chain.escrowAddress,
      abi: escrowAbi,
      functionName: "feeRecipient",
    });
    feeRecipients.set(key, recipient);
    return recipient;
  } catch {
    return null;
  }
}

/** "REFUSES" when the token reverts a transfer to `to`; "UNKNOWN" when the chain did not answer. */
async function tokenAnswer(chain: ChainConfig, to: Address): Promise<"PAYS" | "REFUSES" | "UNKNOWN"> {
  try {
    // A zero-amount transfer from the escrow runs every rule the token applies to a recipient
    // (USDC's blacklist, OpenZeppelin's zero-address check) without needing a balance.
    await checkClient(chain).simulateContract({
      account: chain.escrowAddress,
      address: chain.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [to, 0n],
    });
    return "PAYS";
  } catch (error) {
    const reverted =
      error instanceof BaseError &&
      error.walk((e) => e instanceof ContractFunctionRevertedError) instanceof ContractFunctionRevertedError;
    return reverted ? "REFUSES" : "UNKNOWN";
  }
}

function refused(field: string, address: Address, reason: PayableRefusal): DomainError<"ADDRESS_NOT_PAYABLE"> {
  return fail(
    "ADDRESS_NOT_PAYABLE",
    `${field} ${address} ${REFUSAL_TEXT[reason]}: choose an address you control that can receive USDC`,
    { field, address, reason },
  );
}

/** A checksummed address; a mixed-case one must already carry a valid EIP-55 checksum (else 400 VALIDATION_FAILED). */
export function checksummedAddress(address: string, field: string): Address {
  const mixed = address !== address.toLowerCase() && address.slice(2) !== address.slice(2).toUpperCase();
  if (!isAddress(address, { strict: mixed }))
    throw fail("VALIDATION_FAILED", [`${field} has an invalid EIP-55 checksum`]);
  return getAddress(address);
}

/**
 * Checks an address money will be sent to and returns it checksummed, or throws 400
 * ADDRESS_NOT_PAYABLE with the reason. `field` names the request field in the answer.
 */
export async function requirePayableAddress(ctx: ServiceContext, address: string, field: string): Promise<Address> {
  const checked = checksummedAddress(address, field);
  const chain = ctx.config.chain;
  const fixed = fixedRefusal(chain, checked, chain ? await feeRecipientOf(chain) : null);
  if (fixed) throw refused(field, checked, fixed);
  if (chain && (await tokenAnswer(chain, checked)) === "REFUSES") throw refused(field, checked, "TOKEN_REFUSES");
  return checked;
}

/**
 * The check again just before a settlement is sent, for an address stored before this rule
 * existed: the reason it must not be paid, or null. Only what would strand the money and that the
 * chain would not refuse by itself is stopped here: the token contract (it would keep the money).
 * The zero address and the escrow are left to the contract, which reverts InvalidRecipient; a
 * service wallet is a legitimate recipient of a managed-wallet reward, so it is not refused here.
 */
export function settlementRecipientRefusal(chain: ChainConfig, address: string): string | null {
  if (!isAddress(address, { strict: false })) return `the recipient ${address} is not an address`;
  const checked = getAddress(address);
  if (isAddressEqual(checked, chain.tokenAddress)) return `the recipient ${checked} ${REFUSAL_TEXT.TOKEN_CONTRACT}`;
  return null;
}
