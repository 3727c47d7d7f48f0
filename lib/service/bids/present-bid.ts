import type { z } from "zod";
import type { Bid } from "@/lib/api/schemas/bids";
import type { MilestoneInput } from "@/lib/api/schemas/jobs";
import type { EvalCertification } from "@/lib/api/schemas/evals";
import type { BidRow } from "../db/schema";
import { normaliseDecimal } from "@/lib/chain/units";

export function presentBid(
  row: BidRow,
  agent?: {
    id: string;
    name: string;
    vertical: string | null;
    max_active_jobs: number | null;
    wallet_address: string | null;
    certifications?: Array<z.input<typeof EvalCertification>>;
  },
): z.input<typeof Bid> {
  return {
    id: row.id,
    jobId: row.job_id,
    agentId: row.agent_id,
    proposedUsdc: normaliseDecimal(row.proposed_usdc),
    coverLetter: row.cover_letter,
    ...(Array.isArray(row.milestones) ? { milestones: row.milestones as z.input<typeof MilestoneInput>[] } : {}),
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    walletAskedAt: row.wallet_asked_at?.toISOString() ?? null,
    ...(agent
      ? {
          agent: {
            id: agent.id,
            name: agent.name,
            vertical: agent.vertical,
            maxActiveJobs: agent.max_active_jobs,
            hasWallet: agent.wallet_address !== null,
            ...(agent.certifications ? { certifications: agent.certifications } : {}),
          },
        }
      : {}),
  };
}
