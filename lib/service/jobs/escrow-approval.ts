import type { Address, Hex } from "viem";
import type { ApprovalTypedData, EscrowApproval } from "@/lib/api/schemas/jobs";
import { SETTLED_OUTSIDE_WAYS } from "@/lib/api/schemas/jobs";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import { ESCROW_V2_DOMAIN } from "@/lib/chain/escrow/reads";
import { approvalRefusal } from "@/lib/chain/escrow/outside";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { requireChain, type ServiceContext } from "../context";
import { fail } from "../errors";
import type { JobRow } from "../db/schema";
import type { JobViewerRole } from "./job-viewer";

/**
 * The payer's `Approve` kept for the agent (docs/escrow-v2.md, step 6). On a job funded in
 * EscrowV2 the poster may send, with its approval, the payer's EIP-712 Approve(jobId, payer, agent,
 * deadline); the service asks the contract whether releaseWithApproval would pay with it (simulated,
 * nothing sent) and keeps it on the job. The job's agent then sees it with the call to make, so an
 * approved agent is paid even if the service is gone. It is optional: without it the service
 * releases as before, and only the service can.
 *
 * Its deadline is the slot's expiry as the job records it (escrowExpiresAt): good as long as the
 * money can be in the slot at all (from the expiry on the payer may also claim it back). It names
 * the agent the slot pays (recorded at acceptance); an agent that moved its payout afterwards needs
 * a new one (the contract compares it to the slot's agent of the moment).
 */

type ApprovalFields = Pick<
  JobRow,
  | "escrow_version"
  | "escrow_address"
  | "escrow_job_id"
  | "escrow_payer"
  | "escrow_agent"
  | "escrow_expires_at"
  | "escrow_tx_hash"
  | "chain_id"
>;

/** The deadline of a job's Approve: its slot's recorded expiry, in unix seconds (null: none to sign). */
function approvalDeadlineOf(job: Pick<JobRow, "escrow_expires_at">): number | null {
  return job.escrow_expires_at ? Math.floor(job.escrow_expires_at.getTime() / 1000) : null;
}

/**
 * The Approve to sign for a job (null when its slot is not version 2, not funded, or pays no agent
 * yet). The domain is EscrowV2's: its name and version (checked at startup against the contract's
 * eip712Domain()), the job's chain and the contract holding the slot.
 */
export function approvalTypedDataOf(
  job: ApprovalFields,
  kept?: { agent: string; deadline: number },
): ApprovalTypedData | null {
  const deadline = kept?.deadline ?? approvalDeadlineOf(job);
  const agent = kept?.agent ?? job.escrow_agent;
  if (job.escrow_version !== 2 || !job.escrow_tx_hash || !job.escrow_address || !job.escrow_payer) return null;
  if (!agent || deadline === null) return null;
  return {
    domain: {
      name: ESCROW_V2_DOMAIN.name,
      version: ESCROW_V2_DOMAIN.version,
      chainId: job.chain_id,
      verifyingContract: job.escrow_address,
    },
    types: {
      Approve: [
        { name: "jobId", type: "bytes32" },
        { name: "payer", type: "address" },
        { name: "agent", type: "address" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Approve",
    message: {
      jobId: normalizeEscrowJobId(job.escrow_job_id),
      payer: job.escrow_payer,
      agent,
      deadline,
    },
  };
}

/**
 * What the job resource shows of the Approve, by role: the poster what to sign while the job is in
 * REVIEW (and that it was kept); the job's agent the kept signature and the call that pays it.
 * Nobody else sees any of it.
 */
export function escrowApprovalFor(
  job: ApprovalFields &
    Pick<JobRow, "status" | "escrow_approval_signature" | "escrow_approval_deadline" | "escrow_approval_agent">,
  role: JobViewerRole,
): EscrowApproval | null {
  const poster = role === "POSTER" || role === "OWNER_OF_POSTER";
  const agent = role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT";
  if (!poster && !agent) return null;
  const signature = job.escrow_approval_signature;
  if (signature && job.escrow_approval_agent && job.escrow_approval_deadline !== null) {
    const deadline = Number(job.escrow_approval_deadline);
    const approval = approvalTypedDataOf(job, { agent: job.escrow_approval_agent, deadline });
    if (!approval) return null;
    return {
      status: "KEPT",
      approval,
      signature: agent ? signature : null,
      call: agent
        ? {
            contract: approval.domain.verifyingContract,
            functionName: "releaseWithApproval",
            signature: "releaseWithApproval(bytes32,address,uint256,bytes)",
            args: [approval.message.jobId, approval.message.payer, deadline, signature],
          }
        : null,
    };
  }
  if (!poster || job.status !== "REVIEW") return null;
  const approval = approvalTypedDataOf(job);
  return approval ? { status: "TO_SIGN", approval, signature: null, call: null } : null;
}

/** The job's settledOutside marker as the interface names it. */
export function settledOutsideOf(value: string | null): (typeof SETTLED_OUTSIDE_WAYS)[number] | null {
  return (SETTLED_OUTSIDE_WAYS as readonly string[]).includes(value ?? "")
    ? (value as (typeof SETTLED_OUTSIDE_WAYS)[number])
    : null;
}

/**
 * Checks the payer's Approve sent with an approval: the contract is asked whether
 * releaseWithApproval would pay with it now (simulated, nothing sent). A signature it refuses (not
 * the payer's for this job, agent, deadline, chain and contract; past its deadline) is 400
 * APPROVAL_SIGNATURE_INVALID with the contract's error as `reason` and the Approve to sign, before
 * anything is approved. No chain to ask is 503 CHAIN_UNAVAILABLE. Returns what keepApproval stores.
 */
export async function checkApprovalSignature(
  ctx: ServiceContext,
  job: ApprovalFields & { id: string },
  signature: string,
): Promise<KeptApproval> {
  const chain = requireChain(ctx);
  const approval = approvalTypedDataOf(job);
  if (!approval)
    throw fail(
      "INVALID_STATE",
      "approvalSignature is for a job funded in EscrowV2 whose slot pays its agent: this job's escrow takes no Approve",
    );
  let refusal: string | null;
  try {
    refusal = await approvalRefusal(chain, {
      escrowJobId: job.escrow_job_id,
      payer: job.escrow_payer as Address,
      deadline: approval.message.deadline,
      signature: signature as Hex,
    });
  } catch (error) {
    throw fail(
      "CHAIN_UNAVAILABLE",
      `the escrow could not be asked about the approval (${chainFailureReason(error)}); try again`,
    );
  }
  if (refusal)
    throw fail(
      "APPROVAL_SIGNATURE_INVALID",
      `the escrow would refuse this approval signature (${refusal}): sign \`approval\` with the wallet that funded the job and approve again`,
      { reason: refusal, approval },
    );
  return { jobId: job.id, signature, deadline: approval.message.deadline, agent: approval.message.agent };
}

export interface KeptApproval {
  jobId: string;
  signature: string;
  deadline: number;
  agent: string;
}

/**
 * Keeps a checked Approve on the job, only once the job is approved: an approval refused after the
 * check (a failed fresh probe, criteria not met) keeps nothing, so the agent never holds a release
 * the poster did not give.
 */
export async function keepApproval(ctx: ServiceContext, kept: KeptApproval): Promise<void> {
  await ctx.db
    .updateTable("jobs")
    .set({
      escrow_approval_signature: kept.signature,
      escrow_approval_deadline: kept.deadline.toString(),
      escrow_approval_agent: kept.agent,
    })
    .where("id", "=", kept.jobId)
    .where("approved_at", "is not", null)
    .execute();
}
