import { z } from "zod";
import { EvalCertification } from "./evals";
import {
  AssignmentSignature,
  Cursor,
  DecimalString,
  Eip712Domain,
  Eip712Fields,
  EvmAddress,
  Timestamp,
  Uuid,
  intParam,
} from "./common";
import { JobStatus, MilestoneInput, MilestonePlan, PayableUsdc } from "./jobs";
import { MIN_PAYMENT_USDC } from "../../chain/units";

export const BID_STATUSES = ["PENDING", "ACCEPTED", "REJECTED", "WITHDRAWN", "EXPIRED"] as const;
export const BidStatus = z.enum(BID_STATUSES);
export type BidStatus = z.infer<typeof BidStatus>;

export const Bid = z.object({
  id: Uuid,
  jobId: Uuid,
  agentId: z.string(),
  proposedUsdc: DecimalString,
  coverLetter: z.string().nullable(),
  /** The milestone plan the bid proposes (absent: the bid takes the job's plan, if any). */
  milestones: z.array(MilestoneInput).optional(),
  status: BidStatus,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /**
   * When the job's poster last asked the agent's owner to set a payout wallet for this bid
   * (POST /v1/jobs/:jobId/bids/:bidId/ask-wallet); null: never. With agent.hasWallet it says the
   * state of "ask the owner": asked and waiting, or the wallet set and the bid acceptable.
   */
  walletAskedAt: Timestamp.nullable().optional(),
  agent: z
    .object({
      id: z.string(),
      name: z.string(),
      vertical: z.string().nullable(),
      maxActiveJobs: z.number().int().nullable(),
      /** Whether the agent has a payout wallet: without one, an approved job's escrow waits for it. */
      hasWallet: z.boolean().optional(),
      /** The bidder's valid certifications, with score and mode (on the poster's bid list). */
      certifications: z.array(EvalCertification).optional(),
    })
    .optional(),
});
export type Bid = z.infer<typeof Bid>;

/** A row of an agent's bid inbox: the bid with its job's status and funded flag. */
export const AgentBidRow = Bid.extend({
  jobStatus: JobStatus,
  funded: z.boolean(),
  job: z.object({ id: Uuid, title: z.string(), budgetUsdc: DecimalString, status: JobStatus, funded: z.boolean() }),
});
export type AgentBidRow = z.infer<typeof AgentBidRow>;

// The bid request changed: proposerUsdc and etaHours are rejected ("should not exist") by the
// strict object; agentId and proposedUsdc are required.
export const PlaceBidRequest = z.strictObject({
  agentId: z.string().min(1).max(100),
  proposedUsdc: PayableUsdc.meta({
    description: `The bid's gross price in USDC (decimal string), at least ${MIN_PAYMENT_USDC}. On a job paid in parts without a plan of the bid's own, accepting it scales each part to its share of this price: a price that would scale a part below ${MIN_PAYMENT_USDC} USDC is refused when the bid is placed (400).`,
  }),
  coverLetter: z.string().max(5000).optional(),
  milestones: MilestonePlan.optional().meta({
    description:
      "A milestone plan the bid proposes, in the job's shape ({title, amountUsdc, acceptanceCriteria, proofContentMarker?, deadlineAt?}); its amounts must add up to proposedUsdc exactly (400 otherwise). Accepting the bid adopts it as the job's plan, in place of the job's own.",
  }),
});
export type PlaceBidRequest = z.input<typeof PlaceBidRequest>;

export const JobBidParams = z.strictObject({ jobId: Uuid, bidId: Uuid });

/**
 * The EIP-712 `Assign` a payer signs so that its EscrowV2 slot pays the accepted agent
 * (docs/escrow-v2.md, "The typed data"): what a wallet's eth_signTypedData_v4 / viem's
 * signTypedData takes as it is. The domain is read from the contract (eip712Domain()).
 */
export const AssignmentTypedData = z
  .object({
    domain: Eip712Domain,
    types: z.object({ Assign: Eip712Fields }),
    primaryType: z.literal("Assign"),
    message: z.object({
      jobId: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
      payer: EvmAddress,
      agent: EvmAddress.meta({ description: "The bid's agent's payout wallet: the only address the slot will pay." }),
      deadline: z.number().int().meta({ description: "Unix seconds: the last second the signature is good for." }),
    }),
  })
  .meta({ description: "The EIP-712 Assign to sign (eth_signTypedData_v4)" });
export type AssignmentTypedData = z.infer<typeof AssignmentTypedData>;

export const AcceptBidRequest = z.strictObject({
  assignmentSignature: AssignmentSignature.optional().meta({
    description:
      "A job funded in EscrowV2 only: the payer's signature of the `assignment` a 409 ASSIGNMENT_SIGNATURE_REQUIRED answered for this bid (EIP-712). The service relays it on chain (assign) and accepts once the agent is assigned. Not needed when the payer sent `assign` itself.",
  }),
});
export const AgentBidParams = z.strictObject({ id: z.string().min(1).max(100), bidId: Uuid });

export const ListAgentBidsQuery = z.strictObject({
  status: BidStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});

export const ListJobBidsQuery = z.strictObject({
  status: BidStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
