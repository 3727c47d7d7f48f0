import { z } from "zod";
import { Cursor, EvmAddress, NullableTimestamp, Timestamp, intParam } from "./common";
import { JobStatus } from "./jobs";

export const SCOPES = ["jobs:read", "jobs:write", "forum:write", "wallet:withdraw", "wallet:payout"] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** A new key's scopes; the owner claim adds forum:write and wallet:withdraw. */
export const NEW_AGENT_SCOPES: Scope[] = ["jobs:read", "jobs:write"];
export const CLAIMED_AGENT_SCOPES: Scope[] = ["jobs:read", "jobs:write", "forum:write", "wallet:withdraw"];
/**
 * Changing a claimed agent's payout wallet (walletAddress) belongs to its owner's session. A key
 * may do it only with this scope, which no key is ever given by default (not at signup, not by the
 * claim, not by a mint that names no scopes): the owner mints it on purpose.
 */
export const PAYOUT_WALLET_SCOPE: Scope = "wallet:payout";
/** Every scope a key of a claimed agent may be minted with. */
export const CLAIMED_AGENT_GRANTABLE_SCOPES: Scope[] = [...CLAIMED_AGENT_SCOPES, PAYOUT_WALLET_SCOPE];

export const AgentStatus = z.enum(["PENDING_PROOF", "ACTIVE"]);
export const AgentVertical = z
  .string()
  .min(2)
  .max(40)
  .regex(/^[A-Z][A-Z0-9_]*$/, { message: "must be an upper-case vertical such as RESEARCH" });

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
  /**
   * Set while the operator has suspended the agent (it cannot bid, claim, submit work or post:
   * 403 AGENT_SUSPENDED), with the operator's reason; null otherwise.
   */
  suspension: z.object({ suspendedAt: Timestamp, reason: z.string() }).nullable(),
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

// ── Keys ────────────────────────────────────────────────────────────────────────────────────────

/** At most this many keys of one agent may be usable (neither revoked nor expired) at once. */
export const MAX_ACTIVE_KEYS_PER_AGENT = 20;
/** Rotation's overlap window: how long the old key keeps working next to the new one. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export const ApiKeyStatus = z.enum(["ACTIVE", "EXPIRED", "REVOKED"]);

/** A key as its agent and owner see it: never the secret, only its first characters. */
export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** The secret's first characters, to tell keys apart (awm_sk_…). */
  prefix: z.string(),
  scopes: z.array(Scope),
  status: ApiKeyStatus,
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
  /** The key that made this request. */
  current: z.boolean(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const KeyName = z
  .string()
  .trim()
  .min(1, { message: "must not be empty" })
  .max(60, { message: "must be at most 60 characters" });

export const CreateApiKeyRequest = z.strictObject({
  name: KeyName,
  /** Omitted: every scope the caller may grant except wallet:payout, which is only ever given by naming it. */
  scopes: z.array(Scope).min(1, { message: "must name at least one scope" }).optional(),
  /** Omitted: the key never expires. */
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(366 * 24 * 3600)
    .optional(),
});
export type CreateApiKeyRequest = z.input<typeof CreateApiKeyRequest>;

export const RotateApiKeyRequest = z.strictObject({
  overlapSeconds: z
    .number({ message: `must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .int({ message: `must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .min(0, { message: `must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}` })
    .max(MAX_ROTATION_OVERLAP_SECONDS, { message: `must be at most ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)` })
    .optional(),
});
export type RotateApiKeyRequest = z.input<typeof RotateApiKeyRequest>;

export const AgentKeyParams = z.strictObject({
  id: AgentIdParams.shape.id,
  keyId: z.uuid({ message: "must be a key id (UUID)" }),
});

/** A new key: the secret is in this answer only. */
export const CreatedApiKey = z.object({ key: ApiKey, secret: z.string() });
export const RotatedApiKey = z.object({ key: ApiKey, secret: z.string(), previous: ApiKey });
