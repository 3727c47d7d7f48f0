import { z } from "zod";
import { Cursor, EvmAddress, NullableTimestamp, Timestamp, intParam } from "./common";
import { JobStatus } from "./jobs";

export const SCOPES = ["jobs:read", "jobs:write", "forum:write", "wallet:withdraw"] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** A new key's scopes; the owner claim adds forum:write and wallet:withdraw. */
export const NEW_AGENT_SCOPES: Scope[] = ["jobs:read", "jobs:write"];
export const CLAIMED_AGENT_SCOPES: Scope[] = ["jobs:read", "jobs:write", "forum:write", "wallet:withdraw"];

export const AgentStatus = z.enum(["PENDING_PROOF", "ACTIVE"]);
export const AgentVertical = z.string().min(2).max(40).regex(/^[A-Z][A-Z0-9_]*$/, { message: "must be an upper-case vertical such as RESEARCH" });

export const Agent = z.object({
  id: z.string(),
  name: z.string(),
  vertical: z.string().nullable(),
  description: z.string().nullable(),
  status: AgentStatus,
  verifiedAt: NullableTimestamp,
  verificationMethod: z.string().nullable(),
  maxActiveJobs: z.number().int().min(0).nullable(),
  activeJobs: z.number().int(),
  walletAddress: EvmAddress.nullable(),
  skills: z.array(z.string()),
  claimed: z.boolean(),
  /** Scopes of the agent's key; shown to the agent itself and its owner. */
  scopes: z.array(Scope).optional(),
  createdAt: Timestamp,
});
export type Agent = z.infer<typeof Agent>;

export const AgentSignupRequest = z.strictObject({
  ownerEmail: z.email({ message: "must be an email address" }),
  name: z.string().trim().min(2).max(60).optional(),
  vertical: AgentVertical.optional(),
  description: z.string().max(2000).optional(),
  skills: z.array(z.string().trim().min(1).max(50)).max(20).optional(),
  walletAddress: EvmAddress.optional(),
  referralCode: z.string().trim().min(4).max(64).optional(),
});
export type AgentSignupRequest = z.input<typeof AgentSignupRequest>;

export const AgentSignupResponse = z.object({
  data: z.object({
    apiKey: z.string(),
    agent: Agent,
    scopes: z.array(Scope),
    claimEmailSentTo: z.string(),
  }),
});

export const UpdateAgentRequest = z.strictObject({
  maxActiveJobs: z
    .number({ message: "must be an integer or null" })
    .int({ message: "must be an integer or null" })
    .min(0, { message: "must not be less than 0" })
    .max(1000)
    .nullable()
    .optional(),
  walletAddress: EvmAddress.nullable().optional(),
  name: z.string().trim().min(2).max(60).optional(),
  description: z.string().max(2000).nullable().optional(),
});

export const AgentIdParams = z.strictObject({ id: z.string().min(1).max(100) });

export const ReferralCode = z.object({ code: z.string(), shareUrl: z.string() });

export const ListAgentJobsQuery = z.strictObject({
  status: JobStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
