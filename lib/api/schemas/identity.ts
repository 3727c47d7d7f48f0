import { z } from "zod";
import { EvmAddress, NullableTimestamp, Timestamp, TxHash } from "./common";

// ERC-8004 (Trustless Agents): an agent's identity in the Identity Registry, its registration file,
// the liveness of the services it declares, and feedback in the Reputation Registry, where feedback
// backed by an escrow settlement of this marketplace is told apart from any other.

/** The registration file's `type` (the specification's registration-v1). */
export const ERC8004_REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

/** The services an owner may declare, by the names the registration file gives them. */
export const DECLARED_SERVICE_NAMES = ["API", "MCP", "A2A"] as const;

const HttpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2000);

export const DeclareIdentityRequest = z.strictObject({
  services: z
    .strictObject({
      API: HttpUrl.optional().describe("the agent's own HTTP API"),
      MCP: HttpUrl.optional().describe("the agent's MCP endpoint"),
      A2A: HttpUrl.optional().describe("the agent's A2A agent card (…/.well-known/agent-card.json)"),
    })
    .describe(
      "the agent's own endpoints; each is re-checked on a schedule (through the service's one SSRF-safe fetcher)",
    ),
  x402Support: z.boolean().describe("whether the agent accepts x402 payments"),
});

export const ConfirmIdentityRequest = z.strictObject({
  txHash: TxHash.describe("the owner's register(agentURI) transaction on the Identity Registry"),
});

/** A transaction for the caller's own wallet to send (one signature). */
export const PreparedCall = z.object({
  chainId: z.number().int(),
  to: EvmAddress,
  data: z.string().regex(/^0x[0-9a-fA-F]*$/),
});

export const ServiceLiveness = z.object({
  name: z.string(),
  endpoint: z.string(),
  lastCheckedAt: NullableTimestamp,
  lastAnsweredAt: NullableTimestamp.describe("when it last answered with any HTTP status below 500"),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
});

export const AgentIdentity = z.object({
  agentId: z.string().describe("the marketplace agent"),
  registered: z.boolean().describe("the owner's registration is on chain"),
  agentURI: z.string().describe("the registration file's public URL"),
  onchainAgentId: z.string().nullable().describe("the ERC-721 tokenId (agentId) in the Identity Registry"),
  agentRegistry: z.string().nullable().describe("{namespace}:{chainId}:{identityRegistry}, e.g. eip155:8453:0x8004…"),
  ownerAddress: EvmAddress.nullable(),
  registerTxHash: TxHash.nullable(),
  registeredAt: NullableTimestamp,
  x402Support: z.boolean(),
  services: z.array(ServiceLiveness),
  /** Present until registered: the register(agentURI) call for the owner's wallet. */
  registerCall: PreparedCall.nullable(),
});

export const RegistrationService = z.object({
  name: z.string(),
  endpoint: z.string(),
  version: z.string().optional(),
});

/** The agent registration file, exactly as the specification lays it out. */
export const AgentRegistrationFile = z.object({
  type: z.literal(ERC8004_REGISTRATION_TYPE),
  name: z.string(),
  description: z.string(),
  image: z.string(),
  services: z.array(RegistrationService),
  x402Support: z.boolean(),
  active: z.boolean(),
  registrations: z.array(z.object({ agentId: z.number().int(), agentRegistry: z.string() })),
  supportedTrust: z.array(z.string()),
});

export const FeedbackRequest = z.strictObject({
  value: z.number().int().min(0).max(100).describe("the rating, 0 to 100 (tag1 `starred`, valueDecimals 0)"),
  comment: z.string().max(1000).optional(),
});

export const FeedbackDocumentIdParams = z.strictObject({ id: z.uuid({ message: "must be a UUID" }) });

/** The off-chain feedback file: the specification's MUST fields, proofOfPayment, and the settlement. */
export const FeedbackDocument = z.object({
  agentRegistry: z.string(),
  agentId: z.number().int(),
  clientAddress: z.string(),
  createdAt: Timestamp,
  value: z.number().int(),
  valueDecimals: z.number().int(),
  tag1: z.string(),
  proofOfPayment: z.object({ fromAddress: EvmAddress, toAddress: EvmAddress, chainId: z.string(), txHash: TxHash }),
  settlement: z.object({
    marketplace: z.string(),
    jobId: z.string(),
    kind: z.enum(["RELEASE", "REFUND", "SPLIT"]),
    escrowAddress: EvmAddress,
    txHash: TxHash,
  }),
  comment: z.string().optional(),
});

export const PreparedFeedback = z.object({
  feedbackURI: z.string(),
  feedbackHash: z.string().describe("keccak256 of the document's bytes as served"),
  document: FeedbackDocument,
  call: PreparedCall.describe("giveFeedback(...) on the Reputation Registry, to send from clientAddress"),
});

export const RespondRequest = z.strictObject({
  clientAddress: EvmAddress,
  feedbackIndex: z.number().int().min(1),
  responseURI: z.string().min(1).max(2000),
  responseHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .optional(),
});

export const OnchainFeedback = z.object({
  clientAddress: EvmAddress,
  feedbackIndex: z.number().int(),
  value: z.string().describe("int128 as a decimal string"),
  valueDecimals: z.number().int(),
  tag1: z.string(),
  tag2: z.string(),
  endpoint: z.string(),
  feedbackURI: z.string(),
  feedbackHash: z.string(),
  txHash: TxHash,
  revoked: z.boolean(),
  /** The escrow settlement of this marketplace the feedback's document names; null: not backed by one. */
  settlement: z.object({ jobId: z.string(), kind: z.enum(["RELEASE", "REFUND", "SPLIT"]), txHash: TxHash }).nullable(),
  responses: z.array(
    z.object({ responder: EvmAddress, responseURI: z.string(), responseHash: z.string(), txHash: TxHash }),
  ),
});

export const AgentFeedback = z.object({
  onchainAgentId: z.string().nullable(),
  agentRegistry: z.string().nullable(),
  reputationRegistry: EvmAddress.nullable(),
  backed: z
    .array(OnchainFeedback)
    .describe(
      "feedback whose document names a confirmed escrow settlement of this marketplace that paid this agent (a release, or a split with a share for it), sent by that job's poster",
    ),
  other: z.array(OnchainFeedback).describe("any other feedback the registry holds for this agent"),
});
