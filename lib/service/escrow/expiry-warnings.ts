import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import { log } from "../log";
import { operatorUserIds } from "./deposit-watch";

/**
 * Warnings before an EscrowV2 slot's expiry (docs/escrow-v2.md, step 5). From its expiry on, anyone
 * may return what the slot holds to the payer (claimRefund), and the service no longer settles it.
 * So a slot whose money has not left yet is announced 72 hours ahead, then 24: the poster (extend
 * the expiry, or let it return), the agent (unpaid work would go back to the poster) and the
 * operators hear of it (`escrow.expiring`, inbox, mail and webhooks). The leads are sent once each
 * per expiry: an extended slot is warned again about its new one.
 */
export const EXPIRY_WARNING_LEADS_HOURS = [72, 24] as const;

/** Jobs that may still hold money in their slot: not finished, or finished with a settlement not confirmed. */
const STILL_HELD = sql<boolean>`(jobs.status in ('OPEN', 'IN_PROGRESS', 'REVIEW', 'DISPUTED') or exists (
  select 1 from escrow_settlements s where s.job_id = jobs.id and s.status <> 'CONFIRMED'))`;

export interface ExpiryWarning {
  jobId: string;
  expiresAt: Date;
  leadHours: number;
}

/** One round: every slot within a lead of its expiry and not yet warned at that lead. Returns the warnings sent. */
export async function warnOfEscrowExpiry(ctx: ServiceContext): Promise<ExpiryWarning[]> {
  const now = ctx.now();
  const longest = Math.max(...EXPIRY_WARNING_LEADS_HOURS);
  const due = await ctx.db
    .selectFrom("jobs")
    .select(["id", "poster_id", "agent_id", "escrow_expires_at", "escrow_address", "budget_usdc"])
    .where("escrow_version", "=", 2)
    .where("escrow_expires_at", ">", now)
    .where("escrow_expires_at", "<=", new Date(now.getTime() + longest * 3_600_000))
    .where(STILL_HELD)
    .orderBy("escrow_expires_at")
    .limit(500)
    .execute();

  const sent: ExpiryWarning[] = [];
  for (const job of due) {
    const expiresAt = job.escrow_expires_at!;
    const hoursLeft = (expiresAt.getTime() - now.getTime()) / 3_600_000;
    // The nearest lead it is within: a slot found first at 20 hours gets the 24-hour warning alone.
    const leadHours = Math.min(...EXPIRY_WARNING_LEADS_HOURS.filter((lead) => hoursLeft <= lead));
    const warned = await ctx.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto("escrow_expiry_warnings")
        .values({ job_id: job.id, expires_at: expiresAt, lead_hours: leadHours })
        .onConflict((oc) => oc.doNothing())
        .returning("job_id")
        .executeTakeFirst();
      if (!claimed) return false;
      await publishEvent(trx, {
        type: "escrow.expiring",
        jobId: job.id,
        to: [...(await jobRecipients(trx, job)), ...(await operatorUserIds(trx, ctx.config))],
        data: {
          jobId: job.id,
          expiresAt: expiresAt.toISOString(),
          leadHours,
          hoursLeft: Math.floor(hoursLeft),
          escrowAddress: job.escrow_address,
          budgetUsdc: job.budget_usdc,
          nextAction: "EXTEND_OR_LET_RETURN",
        },
      });
      return true;
    });
    if (warned) {
      log.info({ jobId: job.id, expiresAt, leadHours }, "an escrow slot nears its expiry: the parties were told");
      sent.push({ jobId: job.id, expiresAt, leadHours });
    }
  }
  return sent;
}
