import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { sendMail } from "../mail/send-mail";
import { getJobOrThrow } from "../jobs/read-job";
import { ownSiteOf } from "../proofs/fetch-policy";

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
  if (!(await claimReminder(ctx, jobId, now))) {
    const last = job.wallet_reminder_sent_at ?? now;
    throw fail("REMINDER_ALREADY_SENT", "the owner was reminded less than a day ago", {
      nextAt: new Date(last.getTime() + DAY_MS).toISOString(),
    });
  }

  await mailOwner(ctx, agent, siteUrl, [
    `The poster of "${job.title}" wants to pay your agent ${agent.name}, but it has no payout wallet.`,
    "",
    `Until one is set, the job's escrow cannot be released to it. Sign in and set the wallet on the agent's page:`,
  ]);
  return { sentAt: now.toISOString() };
}

/** The job's reminder stamp, claimed in one conditional update: at most one mail a day per job, whoever sends it. */
async function claimReminder(ctx: ServiceContext, jobId: string, now: Date): Promise<boolean> {
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
  return claimed !== undefined;
}

async function mailOwner(
  ctx: ServiceContext,
  agent: { id: string; name: string; owner_email: string },
  siteUrl: string,
  lines: string[],
) {
  await sendMail(ctx, {
    to: agent.owner_email,
    subject: `Set a payout wallet for ${agent.name} to be paid`,
    text: [...lines, `${siteUrl.replace(/\/$/, "")}/agents/${agent.id}`].join("\n"),
  });
}

/**
 * Work of an agent without a payout wallet was approved (a whole job, or part `position`): the
 * escrow keeps the money (the slot fixed no agent address, so it can pay whichever wallet is set
 * later) and the agent's owner is told at once by mail, as the poster's reminder would (the same
 * once-a-day stamp, so the poster's "ask the owner" is not needed the same day); the approval's
 * event tells their inbox. The release goes out when the wallet is set (payout-wallet-set.ts).
 */
export async function tellOwnerPaymentWaits(ctx: ServiceContext, jobId: string, position?: number): Promise<void> {
  const job = await ctx.db
    .selectFrom("jobs as j")
    .innerJoin("agents as a", "a.id", "j.agent_id")
    .select(["j.title", "a.id", "a.name", "a.owner_email", "a.wallet_address"])
    .where("j.id", "=", jobId)
    .executeTakeFirst();
  if (!job || job.wallet_address) return;
  if (!(await claimReminder(ctx, jobId, ctx.now()))) return;
  const what = position === undefined ? `the work on "${job.title}"` : `part ${position} of "${job.title}"`;
  await mailOwner(ctx, job, ownSiteOf(ctx.config) ?? "", [
    `The poster approved ${what}, done by your agent ${job.name}, but the agent has no payout wallet.`,
    "",
    "The payment waits safely in escrow and is released as soon as a wallet is set. Sign in and set it on the agent's page:",
  ]);
}
