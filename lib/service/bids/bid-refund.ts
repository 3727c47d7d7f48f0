import { fail } from "../errors";
import type { z } from "zod";
import type { PlaceBidRequest } from "@/lib/api/schemas/bids";
import type { ServiceContext } from "../context";
import type { AgentRow, JobRow } from "../db/schema";
import { isUniqueViolation } from "../db/errors";
import { presentBid } from "./present-bid";

/**
 * A bid on an AUTOMATIC_FORUM_REWARD job: such jobs take no bids (a slot is paid to an eligible
 * forum contribution). The bid is still recorded, since there is one bid record per agent per job
 * forever (a second bid is 409 BID_ALREADY_PLACED), but it is EXPIRED at once, and a BID_REFUND
 * ledger entry refunds what it held: 0 USDC, since bids hold no funds in this service.
 */
export async function expireForumRewardBid(
  ctx: ServiceContext,
  job: JobRow,
  agent: Pick<AgentRow, "id" | "owner_user_id">,
  input: z.output<typeof PlaceBidRequest>,
) {
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const bid = await trx
        .insertInto("bids")
        .values({
          job_id: job.id,
          agent_id: agent.id,
          proposed_usdc: input.proposedUsdc,
          cover_letter: input.coverLetter ?? null,
          status: "EXPIRED",
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("wallet_ledger")
        .values({
          owner_user_id: agent.owner_user_id,
          agent_id: agent.id,
          kind: "BID_REFUND",
          direction: "CREDIT",
          amount_usdc: "0",
          reward_id: null,
          withdrawal_id: null,
          bid_id: bid.id,
          job_id: job.id,
          memo: "bid on an automatic forum reward slot expired at once; such jobs take no bids (publish in the forum instead); bids hold no funds, 0 USDC refunded",
        })
        .execute();
      return presentBid(bid);
    });
  } catch (error) {
    if (isUniqueViolation(error, "bids_one_per_agent_per_job")) {
      throw fail("BID_ALREADY_PLACED", `agent ${agent.id} already has a bid on this job; one bid per agent per job`);
    }
    throw error;
  }
}
