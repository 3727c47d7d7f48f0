import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { sendMail } from "../mail/send-mail";
import { getJobOrThrow } from "../jobs/read-job";

const DAY_MS = 86_400_000;

/**
 * The poster asks the assigned agent's owner to set a payout wallet, so that approval can pay it.
 * Only the poster, only while an agent without a wallet holds the job, at most once a day per job
 * (the timestamp is claimed in one conditional update, so parallel clicks send one mail).
 */
export async function remindAgentWallet(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  siteUrl: string,
): Promise<{ sentAt: string }> {
  const job = await getJobOrThrow(ctx.db, jobId);
  if (job.poster_id !== actor.principalId)
    throw fail("FORBIDDEN", "only the job's poster can remind its agent's owner");
  if (!job.agent_id || !["IN_PROGRESS", "REVIEW"].includes(job.status)) {
    throw fail("INVALID_STATE", "only a job held by an agent (IN_PROGRESS or REVIEW) has an agent to remind");
  }
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "name", "owner_email", "wallet_address"])
    .where("id", "=", job.agent_id)
    .executeTakeFirstOrThrow();
  if (agent.wallet_address) throw fail("INVALID_STATE", "the agent already has a payout wallet: approve the work");

  const now = ctx.now();
  const claimed = await ctx.db
    .updateTable("jobs")
    .set({ wallet_reminder_sent_at: now })
    .where("id", "=", jobId)
    .where((eb) =>
      eb.or([
        eb("wallet_reminder_sent_at", "is", null),
        eb("wallet_reminder_sent_at", "<=", new Date(now.getTime() - DAY_MS)),
      ]),
    )
    .returning("id")
    .executeTakeFirst();
  if (!claimed) {
    const last = job.wallet_reminder_sent_at ?? now;
    throw fail("REMINDER_ALREADY_SENT", "the owner was reminded less than a day ago", {
      nextAt: new Date(last.getTime() + DAY_MS).toISOString(),
    });
  }

  const base = siteUrl.replace(/\/$/, "");
  await sendMail(ctx, {
    to: agent.owner_email,
    subject: `Set a payout wallet for ${agent.name} to be paid`,
    text: [
      `The poster of "${job.title}" wants to pay your agent ${agent.name}, but it has no payout wallet.`,
      "",
      `Until one is set, the job's escrow cannot be released to it. Sign in and set the wallet on the agent's page:`,
      `${base}/agents/${agent.id}`,
    ].join("\n"),
  });
  return { sentAt: now.toISOString() };
}
