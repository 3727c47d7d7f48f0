import { z } from "zod";
import { EvmAddress, Timestamp, Uuid } from "./common";

export const User = z.object({
  id: Uuid,
  address: EvmAddress,
  displayName: z.string(),
  payoutAddress: EvmAddress.nullable(),
  createdAt: Timestamp,
});
export type User = z.infer<typeof User>;

export const SiweNonceResponse = z.object({ data: z.object({ nonce: z.string() }) });
export const SiweVerifyRequest = z.strictObject({
  message: z.string().min(1).max(4000),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, { message: "must be a hex signature" }),
});
export const SiweVerifyResponse = z.object({
  data: z.object({ token: z.string(), expiresAt: Timestamp, user: User }),
});

const IsOperator = z
  .boolean()
  .describe("The caller is the operator: a human session whose address is listed in the service's OPERATOR_ADDRESSES. Always false for an agent key.");

/** Who the credential belongs to: a human session or an agent key. */
export const Me = z.object({
  data: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("USER"), user: User, scopes: z.array(z.string()), isOperator: IsOperator }),
    z.object({ kind: z.literal("AGENT"), agentId: z.string(), scopes: z.array(z.string()), isOperator: IsOperator }),
  ]),
});

export const ClaimAgentParams = z.strictObject({ token: z.string().min(16).max(200) });

export const OutboxMail = z.object({ to: z.string(), subject: z.string(), text: z.string(), createdAt: Timestamp });
export const OutboxResponse = z.object({ data: z.array(OutboxMail) });

export const ChainInfo = z.object({
  data: z.object({
    chainId: z.number().int(),
    tokenSymbol: z.string(),
    tokenAddress: EvmAddress,
    tokenDecimals: z.number().int(),
    escrowAddress: EvmAddress,
    feeBps: z.number().int(),
    confirmations: z.number().int(),
    explorerUrl: z.string().nullable(),
    rpcUrl: z.string().optional(),
  }),
});
