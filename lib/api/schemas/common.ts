import { z } from "zod";
import { MARKDOWN_NESTING_RULE, nestsTooDeep } from "../../markdown/nesting";

// Building blocks shared by every resource schema. Query-string parameters accept both their
// typed form (what the client passes) and the string form (what arrives over HTTP).

export const Uuid = z.uuid({ message: "must be a UUID" });
export const Timestamp = z.iso.datetime({ offset: true });
export const NullableTimestamp = Timestamp.nullable();

/** A USDC amount as a decimal string with at most 6 decimals, e.g. "12.5". */
export const DecimalString = z
  .string()
  .regex(/^(0|[1-9]\d{0,11})(\.\d{1,6})?$/, { message: "must be a decimal string with at most 6 decimals" });

export const PositiveDecimalString = DecimalString.refine((v) => Number(v) > 0, {
  message: "must be greater than 0",
});

export const EvmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { message: "must be an EVM address (0x followed by 40 hex digits)" });
export const TxHash = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, { message: "must be a transaction hash (0x followed by 64 hex digits)" });

/** An EIP-712 domain as wallets take it (eth_signTypedData_v4, viem's signTypedData): four fields, no salt. */
export const Eip712Domain = z.object({
  name: z.string(),
  version: z.string(),
  chainId: z.number().int(),
  verifyingContract: EvmAddress,
});

/** One EIP-712 struct's fields, in order. */
export const Eip712Fields = z.array(z.object({ name: z.string(), type: z.string() }));

export function intParam(min: number, max: number) {
  return z
    .union([
      z.number(),
      z
        .string()
        .regex(/^-?\d+$/, { message: "must be an integer" })
        .transform(Number),
    ])
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `must not be less than ${min}` })
        .max(max, { message: `must not be greater than ${max}` }),
    );
}

export const BooleanParam = z.union([
  z.boolean(),
  z.enum(["true", "false"], { message: "must be true or false" }).transform((v) => v === "true"),
]);

/** Opaque keyset cursor; the service decodes and validates it. */
export const Cursor = z.string().min(1).max(512);

export const ListMeta = z.object({
  nextCursor: z.string().nullable(),
  hasMore: z.boolean(),
  limit: z.number().int(),
  publicDetailRoute: z.string().optional(),
});
export type ListMeta = z.infer<typeof ListMeta>;

export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

export function listEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: z.array(schema), meta: ListMeta });
}

export const IdParams = z.strictObject({ id: Uuid });

/**
 * What every address money is sent to must be (agent walletAddress, forum payout address,
 * withdrawal toAddress, a re-settled settlement's address): said once, in each route's description.
 */
export const PAYABLE_RULE =
  "Where money goes is checked before it is stored (400 ADDRESS_NOT_PAYABLE, with reason): not the zero address (ZERO_ADDRESS), not the escrow contract (ESCROW_CONTRACT: the contract never pays itself, so a settlement would revert for ever), " +
  "not the USDC token contract (TOKEN_CONTRACT: money sent there cannot be moved out), not the escrow's fee recipient or the treasury (FEE_RECIPIENT), not one of the service's own wallets (SERVICE_WALLET: the operator and rewards wallets), " +
  "and not an address the token refuses to pay (TOKEN_REFUSES: a zero-amount USDC transfer to it from the escrow is simulated with eth_call; a blacklisted address reverts). " +
  "Externally owned accounts and contracts the token pays (a smart-contract wallet) are accepted: a USDC transfer runs no code of the recipient. When the chain cannot be reached only the fixed rules apply.";

/**
 * A Markdown text the dashboard renders (a brief, a criterion, a forum post, a message, a review):
 * its nesting is bounded when it is written (400 VALIDATION_FAILED), since every reader's page
 * parses it and a parser recurses once per level (lib/markdown/nesting.ts).
 */
export function boundedMarkdown(schema: z.ZodString): z.ZodString {
  return schema.refine((text) => !nestsTooDeep(text), { message: MARKDOWN_NESTING_RULE });
}

/**
 * The payer's EIP-712 signature of the `Assign` a 409 ASSIGNMENT_SIGNATURE_REQUIRED asked for (a
 * bid's acceptance, a bounty's approval): hex, an EOA's 65 bytes or what an ERC-1271 wallet accepts.
 */
export const AssignmentSignature = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2}){1,2048}$/, "must be a 0x-prefixed hex signature");
