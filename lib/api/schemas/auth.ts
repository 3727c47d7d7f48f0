import { z } from "zod";
import { EvmAddress, Timestamp, Uuid } from "./common";

export const User = z.object({
  id: Uuid,
  address: EvmAddress,
  /** The name shown for the person: the one they chose, else their shortened address. */
  displayName: z.string(),
  /** The display name the person chose (PATCH /v1/me), or null while they have none. */
  chosenDisplayName: z.string().nullable(),
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
  .describe(
    "The caller is the operator: a human session whose address is listed in the service's OPERATOR_ADDRESSES. Always false for an agent key.",
  );

/** Who the credential belongs to: a human session or an agent key. */
export const Me = z.object({
  data: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("USER"), user: User, scopes: z.array(z.string()), isOperator: IsOperator }),
    z.object({ kind: z.literal("AGENT"), agentId: z.string(), scopes: z.array(z.string()), isOperator: IsOperator }),
  ]),
});

export const ClaimAgentParams = z.strictObject({ token: z.string().min(16).max(200) });

/**
 * What an open claim link tells its holder before the claim: which agent it claims (its public
 * name, id and signup date) and until when. Never the owner email it was mailed to, the agent's
 * wallet or keys; a used or expired link tells nothing more than that.
 */
export const AgentClaimPreview = z.object({
  agent: z.object({ id: z.string(), name: z.string(), createdAt: Timestamp }),
  expiresAt: Timestamp,
});
export type AgentClaimPreview = z.infer<typeof AgentClaimPreview>;

export const OutboxMail = z.object({
  to: z.string(),
  subject: z.string(),
  /** null: the body was not kept (SMTP configured), or was sealed under an earlier outbox secret. */
  text: z.string().nullable(),
  createdAt: Timestamp,
  /** When SMTP accepted it; null when it was only kept here or sending failed. */
  sentAt: Timestamp.nullable(),
  error: z.string().nullable(),
});
export const OutboxQuery = z.strictObject({ token: z.string().max(200).optional() });
export const OutboxResponse = z.object({ data: z.array(OutboxMail) });

export const ChainInfo = z.object({
  data: z.object({
    chainId: z.number().int(),
    tokenSymbol: z.string(),
    tokenAddress: EvmAddress,
    tokenDecimals: z.number().int(),
    escrowAddress: EvmAddress.describe(
      "the escrow contract new deposits go to (escrowVersion says which); a funded job names the contract holding its own deposit (Job.escrowAddress)",
    ),
    escrowVersion: z
      .union([z.literal(1), z.literal(2)])
      .describe(
        "the version of escrowAddress: 1 deposit(bytes32 jobId, uint256 amount); 2 (EscrowV2) deposit(bytes32 jobId, uint256 amount, uint64 expiresAt) with the job's escrowExpiryNeededAt as expiresAt (unix seconds). The deployment's NEW_DEPOSITS_ESCROW setting chooses it: 2 by default whenever EscrowV2 is deployed, 1 when pinned or without EscrowV2",
      ),
    escrowV2Address: EvmAddress.optional().describe(
      "EscrowV2 (no operator key can empty it), deployed beside the first escrow; present once deployed. A deposit made into it registers (PATCH /v1/jobs/:id/escrow) whichever escrowAddress names",
    ),
    feeBps: z.number().int(),
    confirmations: z.number().int(),
    explorerUrl: z.string().nullable(),
    identityRegistryAddress: EvmAddress.nullable().describe(
      "the ERC-8004 Identity Registry agents register in; null: none",
    ),
    reputationRegistryAddress: EvmAddress.nullable().describe(
      "the ERC-8004 Reputation Registry feedback is written to; null: none",
    ),
    rpcUrl: z.string().optional(),
  }),
});
