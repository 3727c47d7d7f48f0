import { hexToBytes } from "viem";
import type { z } from "zod";
import type { Job } from "@/lib/api/schemas/jobs";
import { normaliseDecimal } from "@/lib/chain/units";
import type { JobRow } from "../db/schema";
import type { Actor } from "../auth/actor";
import { isStalled, proofHoldHoursOf, type JobWithRelations } from "./read-job";
import { jobRoleOf, seesDeliveredWork } from "./job-viewer";
import { escrowExtensionNeeded } from "./escrow-expiry";
import { escrowApprovalFor, settledOutsideOf } from "./escrow-approval";

export type JobDto = z.input<typeof Job>;

/** The interface's wire shape of a 32-byte id: {"0": byte, …, "31": byte}. */
export function escrowJobIdWire(hex: string): Record<string, number> {
  // Every listed job carries one: built once per id and shared (read-only: it is only ever
  // serialised), a board page of 50 no longer builds 50 objects of 32 keys each time.
  let wire = wireIds.get(hex);
  if (!wire) {
    wire = Object.freeze(
      Object.fromEntries(Array.from(hexToBytes(hex as `0x${string}`), (byte, index) => [String(index), byte])),
    );
    if (wireIds.size >= 20_000) wireIds.clear();
    wireIds.set(hex, wire);
  }
  return wire;
}
const wireIds = new Map<string, Readonly<Record<string, number>>>();

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export interface PresentJobOptions {
  /** The authenticated detail adds the proof-check fields (to the parties: see below). */
  detail?: boolean;
}

/** inputData without the poster's proof marker: the marker is for the parties only. */
function publicInputData(input: Record<string, unknown>): JobDto["inputData"] {
  const { proofContentMarker: _marker, ...rest } = input;
  return rest as JobDto["inputData"];
}

/**
 * An AUTOMATIC_FORUM_REWARD job is a reward slot: AVAILABLE once funded and unreserved, UNFUNDED
 * before, RESERVED while its release pays a reward, PAID after (lib/service/rewards).
 */
function forumRewardSlotOf(row: JobRow): { campaignId: string; status: string } | null {
  if (!row.forum_reward_campaign_id) return null;
  const status =
    row.status === "COMPLETED"
      ? "PAID"
      : row.status === "IN_PROGRESS"
        ? "RESERVED"
        : row.status !== "OPEN"
          ? row.status
          : row.escrow_tx_hash
            ? "AVAILABLE"
            : "UNFUNDED";
  return { campaignId: row.forum_reward_campaign_id, status };
}

/**
 * Every job the service writes out goes through here, presented for `actor`: the delivered work
 * (outputData), the proof marker, the content hash, the dispute reason, the release's held reason
 * (it quotes failing checks) and the proof-check fields are the parties' alone (job-viewer.ts);
 * everyone else reads null, or no field where the schema makes it optional.
 */
export function presentJob(row: JobWithRelations, actor: Actor | null, options: PresentJobOptions = {}): JobDto {
  const party = seesDeliveredWork(jobRoleOf(actor, row));
  const dto: JobDto = {
    id: row.id,
    posterId: row.poster_id,
    parentJobId: row.parent_job_id,
    allowSubcontracting: row.allow_subcontracting,
    sourceForumThreadId: row.source_forum_thread_id,
    sourceForumReplyId: row.source_forum_reply_id,
    agentId: row.agent_id,
    status: row.status,
    purpose: row.purpose,
    participationMode: row.participation_mode,
    claimWindowMinutes: row.claim_window_minutes,
    claimedAt: iso(row.claimed_at),
    claimExpiresAt: iso(row.claim_expires_at),
    templateId: row.template_id,
    title: row.title,
    description: row.description,
    budgetUsdc: normaliseDecimal(row.budget_usdc),
    proofHoldHours: proofHoldHoursOf(row),
    inputData: party ? (row.input_data as JobDto["inputData"]) : publicInputData(row.input_data),
    outputData: party ? ((row.output_data as JobDto["outputData"]) ?? null) : null,
    proofHash: party ? row.proof_hash : null,
    deadlineAt: iso(row.deadline_at),
    submittedAt: iso(row.submitted_at),
    completedAt: iso(row.completed_at),
    autoApproved: row.auto_approved,
    escrowTxHash: row.escrow_tx_hash,
    escrowPayer: row.escrow_payer,
    escrowAddress: row.escrow_address,
    escrowVersion: row.escrow_version === 1 || row.escrow_version === 2 ? row.escrow_version : null,
    escrowExpiresAt: iso(row.escrow_expires_at),
    escrowExpiryNeededAt: iso(row.escrow_expiry_needed_at),
    escrowExtensionNeeded: escrowExtensionNeeded(row),
    escrowSettledOutside: settledOutsideOf(row.escrow_settled_outside),
    depositLostAt: iso(row.deposit_lost_at),
    escrowJobId: escrowJobIdWire(row.escrow_job_id),
    chainId: row.chain_id,
    tokenSymbol: row.token_symbol,
    tokenAddress: row.token_address,
    paymentProvider: row.payment_provider,
    paymentStatus: row.payment_status,
    stripePaymentIntentId: null,
    stripeChargeId: null,
    cardCapturedAt: null,
    acceptanceCriteria: row.acceptance_criteria as JobDto["acceptanceCriteria"],
    requiredPackId: row.required_pack_id,
    requiredSkills: row.required_skills,
    preferredSkills: row.preferred_skills,
    isPubliclyShareable: row.is_publicly_shareable,
    shareCount: row.share_count,
    lastSharedAt: iso(row.last_shared_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    poster: {
      id: row.poster_id,
      displayName: row.poster_display_name,
      avatarUrl: row.poster_avatar_url,
      address: row.poster_address,
    },
    agent: row.agent_id
      ? { id: row.agent_id, name: row.agent_name ?? row.agent_id, vertical: row.agent_vertical }
      : null,
    forumRewardSlot: forumRewardSlotOf(row),
    funded: row.escrow_tx_hash !== null,
    approvedAt: iso(row.approved_at),
    releaseAt: iso(row.release_at),
    releaseHeldReason: party ? row.release_held_reason : null,
    disputeReason: party ? row.dispute_reason : null,
    releaseTxHash: row.release_tx_hash,
    refundTxHash: row.refund_tx_hash,
    evaluatorAddress: row.evaluator_address,
    maxRevisions: row.max_revisions,
    revisionCount: row.revision_count,
    changeRequest:
      party && row.change_request_message !== null && row.changes_requested_at !== null
        ? {
            round: row.revision_count,
            message: row.change_request_message,
            requestedAt: row.changes_requested_at.toISOString(),
          }
        : null,
  };
  const approval = escrowApprovalFor(row, jobRoleOf(actor, row));
  if (approval) dto.escrowApproval = approval;
  if (party) {
    // Progress on the work is between the parties, like the deliverable (absent for everyone else).
    dto.progress = row.progress;
    dto.progressNote = row.progress_note;
    dto.lastHeartbeatAt = iso(row.last_heartbeat_at);
    dto.stalled = isStalled(row, new Date());
  }
  if (options.detail && party) {
    dto.proofCheckedAt = iso(row.proof_checked_at);
    dto.proofCheckStatus = row.proof_check_status;
    dto.proofCheckReason = row.proof_check_reason;
  }
  return dto;
}
