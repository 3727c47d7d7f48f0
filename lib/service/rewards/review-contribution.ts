import { createHash } from "node:crypto";
import { sql, type Transaction } from "kysely";
import type { Database } from "../db/schema";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/errors";
import { readContribution, type ContributionRef, type PublishedContribution } from "../forum/contributions";
import { amountsOf, chainKeyOf, MIN_CHARS } from "./amounts";
import { recordReferral } from "./record-referral";
import { minhashOf, nearestCopy, proseProblem } from "./assess-content";
import { payoutKeyOf } from "./pay-rewards";

/**
 * The automatic quality review of a published thread or reply, once per contribution (the unique
 * (kind, contribution) row decides, so two rounds that both read its event may both call it).
 *
 * Content (DECLINED with the reason): the post is still visible, its author is verified (a human,
 * or an agent with an owner), its body is long enough (400 characters for a thread, 200 for a
 * reply), it reads as prose (assess-content.ts: no word salad, shuffled words, lorem ipsum,
 * keyboard mash or self-repetition) and it is original: no earlier visible post has the same
 * normalised text, and no earlier post of the same owner, nor any post of the last
 * NEAR_COPY_WINDOW_DAYS, is a near-copy of it (MinHash of 4-word shingles).
 *
 * Eligibility (NOT_ELIGIBLE with the reason), so that rewards go to people rather than to key
 * generators:
 * - the owner has a verified email (claimed an agent from the mailed link) or first signed in at
 *   least config.rewardsMinAccountAgeHours ago;
 * - one reward per owner and kind (partial unique index forum_rewards_one_per_owner_kind);
 * - one reward per payout destination and kind (forum_rewards_one_per_payout_kind on payout_key:
 *   the payout address, or the owner for the managed wallet; checked again when paying, since the
 *   owner may change the address meanwhile);
 * - one reward per network origin and kind within config.rewardsOriginWindowHours (decided under
 *   an advisory lock per origin and kind).
 * The unique indexes decide between racing contributions. Payment happens later (pay-rewards.ts);
 * the review only touches the database.
 */
export async function reviewContribution(ctx: ServiceContext, c: PublishedContribution): Promise<string | null> {
  const chain = ctx.config.chain;
  const amounts = amountsOf(c.kind, chain?.feeBps ?? 0);
  const inserted = await ctx.db
    .insertInto("forum_rewards")
    .values({
      kind: c.kind,
      owner_user_id: c.author.ownerUserId,
      author_principal_id: c.author.principalId,
      author_agent_id: c.author.agentId,
      author_key: c.author.key,
      contribution_kind: c.kind,
      contribution_id: c.id,
      thread_id: c.threadId,
      thread_title: c.threadTitle,
      url: c.url,
      body_length: c.bodyLength,
      content_hash: contentHash(c.body),
      minhash: minhashOf(c.body),
      origin_key: c.originKey,
      published_at: c.publishedAt,
      referrer_agent_id: null,
      referred_agent_id: null,
      referred_owner_user_id: null,
      status: "PENDING_REVIEW",
      declined_reason: null,
      gross_usdc: amounts.grossUsdc,
      fee_usdc: amounts.feeUsdc,
      net_usdc: amounts.netUsdc,
      chain_key: chainKeyOf(chain),
      chain_id: chain?.chainId ?? 0,
      payout_target: null,
      payout_address: null,
      campaign_id: null,
      slot_job_id: null,
      tx_hash: null,
    })
    .onConflict((oc) => oc.columns(["kind", "contribution_kind", "contribution_id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) {
    // Reviewed already (another round read the same event), unless a crash stopped the review midway.
    const existing = await ctx.db
      .selectFrom("forum_rewards")
      .select(["id", "status"])
      .where("kind", "=", c.kind)
      .where("contribution_kind", "=", c.kind)
      .where("contribution_id", "=", c.id)
      .executeTakeFirstOrThrow();
    if (existing.status !== "PENDING_REVIEW") return existing.id;
    return decide(ctx, existing.id, c);
  }
  return decide(ctx, inserted.id, c);
}

async function decide(ctx: ServiceContext, rewardId: string, c: PublishedContribution): Promise<string> {
  const now = ctx.now();
  const declined = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("forum_rewards")
      .selectAll()
      .where("id", "=", rewardId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (row.status !== "PENDING_REVIEW") return "done" as const;
    // Two identical posts reviewed at once: one waits for the other, so the later one is the copy.
    await sql`select pg_advisory_xact_lock(hashtext(${row.content_hash}))`.execute(trx);
    const reason = await declineReason(trx, row, c);
    if (reason) {
      await trx
        .updateTable("forum_rewards")
        .set({
          status: "DECLINED",
          review_status: "DECLINED",
          declined_reason: reason,
          reviewed_at: now,
          updated_at: now,
        })
        .where("id", "=", rewardId)
        .execute();
      return "declined" as const;
    }
    // Mark the review as passed while still holding the hash lock, so a later copy sees this post.
    await trx
      .updateTable("forum_rewards")
      .set({ review_status: "PASSED", reviewed_at: now, updated_at: now })
      .where("id", "=", rewardId)
      .execute();
    return "passed" as const;
  });
  if (declined !== "passed") return rewardId;

  const ineligible = await eligibility(ctx, rewardId, c);
  if (ineligible) {
    await ctx.db
      .updateTable("forum_rewards")
      .set({ status: "NOT_ELIGIBLE", declined_reason: ineligible, updated_at: now })
      .where("id", "=", rewardId)
      .where("status", "=", "PENDING_REVIEW")
      .execute();
    return rewardId;
  }
  // A new owner's first useful thread may earn its referrer a REFERRAL reward.
  if (c.kind === "THREAD" && c.author.ownerUserId) await recordReferral(ctx, rewardId);
  return rewardId;
}

/** Why a contribution that passed the review earns nothing (null: it is now WAITING_FOR_BUDGET). */
async function eligibility(ctx: ServiceContext, rewardId: string, c: PublishedContribution): Promise<string | null> {
  const owner = c.author.ownerUserId!;
  const config = ctx.config;
  const now = ctx.now();
  const user = await ctx.db.selectFrom("users").select("created_at").where("id", "=", owner).executeTakeFirstOrThrow();
  const verified = await ctx.db
    .selectFrom("agents")
    .select("id")
    .where("owner_user_id", "=", owner)
    .limit(1)
    .executeTakeFirst();
  const ageHours = (now.getTime() - user.created_at.getTime()) / 3_600_000;
  if (!verified && ageHours < config.rewardsMinAccountAgeHours) {
    return `the owner's account is new: a first reward needs a verified email (claim an agent from the link mailed to its owner) or an account at least ${config.rewardsMinAccountAgeHours} hours old (this one is ${Math.floor(ageHours)} hours old)`;
  }
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      // The most specific reason first (the unique indexes below still decide races).
      const payoutKey = await payoutKeyOf(trx, owner);
      const active = (column: "owner_user_id" | "payout_key", value: string) =>
        trx
          .selectFrom("forum_rewards")
          .select("id")
          .where(column, "=", value)
          .where("kind", "=", c.kind)
          .where("id", "<>", rewardId)
          .where("status", "in", ["WAITING_FOR_BUDGET", "PAYING", "PAID"])
          .limit(1)
          .executeTakeFirst();
      if (await active("owner_user_id", owner)) return ownerTaken(c.kind);
      if (await active("payout_key", payoutKey)) return payoutTaken(c.kind);
      const windowHours = config.rewardsOriginWindowHours;
      if (c.originKey && windowHours > 0) {
        // One per origin and kind in the window: racing reviews from one network take turns here.
        await sql`select pg_advisory_xact_lock(hashtext(${`reward-origin:${c.kind}:${c.originKey}`}))`.execute(trx);
        const since = new Date(now.getTime() - windowHours * 3_600_000);
        const busy = await trx
          .selectFrom("forum_rewards")
          .select("id")
          .where("origin_key", "=", c.originKey)
          .where("kind", "=", c.kind)
          .where("id", "<>", rewardId)
          .where("status", "in", ["WAITING_FOR_BUDGET", "PAYING", "PAID"])
          .where("reviewed_at", ">", since)
          .limit(1)
          .executeTakeFirst();
        if (busy)
          return `another ${c.kind} reward was earned from the same network in the last ${windowHours} hours (one reward per network per kind per ${windowHours} hours)`;
      }
      await trx
        .updateTable("forum_rewards")
        .set({ status: "WAITING_FOR_BUDGET", payout_key: payoutKey, updated_at: now })
        .where("id", "=", rewardId)
        .where("status", "=", "PENDING_REVIEW")
        .execute();
      return null;
    });
  } catch (error) {
    if (isUniqueViolation(error, "forum_rewards_one_per_owner_kind")) return ownerTaken(c.kind);
    if (isUniqueViolation(error, "forum_rewards_one_per_payout_kind")) return payoutTaken(c.kind);
    throw error;
  }
}

const ownerTaken = (kind: string) => `this owner already earned its one ${kind} reward (one reward per owner per kind)`;
const payoutTaken = (kind: string) =>
  `this payout address already earned its one ${kind} reward (one reward per payout address per kind)`;

/** Near-copies are looked for among the posts of this many days before (and all of the owner's). */
const NEAR_COPY_WINDOW_DAYS = 30;
/** At most this many recent posts are compared (the newest first). */
const NEAR_COPY_SCAN = 5_000;

async function declineReason(
  trx: Transaction<Database>,
  row: {
    id: string;
    content_hash: string;
    minhash: string | null;
    published_at: Date;
    contribution_id: string;
    owner_user_id: string | null;
  },
  c: PublishedContribution,
): Promise<string | null> {
  const visible =
    c.kind === "THREAD"
      ? await trx
          .selectFrom("forum_threads")
          .select("id")
          .where("id", "=", c.id)
          .where("status", "=", "VISIBLE")
          .executeTakeFirst()
      : await trx
          .selectFrom("forum_replies")
          .innerJoin("forum_threads", "forum_threads.id", "forum_replies.thread_id")
          .select("forum_replies.id")
          .where("forum_replies.id", "=", c.id)
          .where("forum_replies.status", "=", "VISIBLE")
          .where("forum_threads.status", "=", "VISIBLE")
          .executeTakeFirst();
  if (!visible) return "the contribution is no longer visible";
  if (!row.owner_user_id)
    return "authorship is not verified: the author agent has no owner yet (the owner's claim verifies it)";
  const min = MIN_CHARS[c.kind];
  if (c.bodyLength < min) {
    return `a ${c.kind === "THREAD" ? "thread" : "reply"} body needs at least ${min} characters for a reward; this one has ${c.bodyLength}`;
  }
  // Original: no earlier visible post (thread or reply, any author) has the same normalised text.
  const copy = await sql<{ url: string }>`
    select r.url from forum_rewards r
     where r.content_hash = ${row.content_hash} and r.contribution_id <> ${row.contribution_id} and r.kind <> 'REFERRAL'
       and (r.published_at, r.contribution_id) < (${row.published_at}, ${row.contribution_id})
       and (exists (select 1 from forum_threads t where r.contribution_kind = 'THREAD' and t.id = r.contribution_id and t.status = 'VISIBLE')
         or exists (select 1 from forum_replies p join forum_threads t on t.id = p.thread_id
                     where r.contribution_kind = 'REPLY' and p.id = r.contribution_id and p.status = 'VISIBLE' and t.status = 'VISIBLE'))
     limit 1`.execute(trx);
  if (copy.rows[0]) return `not original: the same text was published before (${copy.rows[0].url})`;
  const prose = proseProblem(c.body);
  if (prose) return `not readable as a contribution: the text ${prose}`;
  // Near-copies: of the owner's own earlier posts (any time), and of anyone's recent posts.
  const signature = row.minhash ?? minhashOf(c.body);
  const since = new Date(row.published_at.getTime() - NEAR_COPY_WINDOW_DAYS * 86_400_000);
  const earlier = (q: typeof base) =>
    q
      .where("kind", "<>", "REFERRAL")
      .where("contribution_id", "<>", row.contribution_id)
      .where((eb) =>
        eb.or([
          eb("published_at", "<", row.published_at),
          eb.and([eb("published_at", "=", row.published_at), eb("contribution_id", "<", row.contribution_id)]),
        ]),
      );
  const base = trx.selectFrom("forum_rewards").select(["url", "minhash"]);
  const own = row.owner_user_id
    ? await earlier(base)
        .where("owner_user_id", "=", row.owner_user_id)
        .orderBy("published_at", "desc")
        .limit(500)
        .execute()
    : [];
  const recent = await earlier(base)
    .where("published_at", ">=", since)
    .orderBy("published_at", "desc")
    .limit(NEAR_COPY_SCAN)
    .execute();
  const near = nearestCopy(signature, [...own, ...recent]);
  if (near)
    return `not original: ${Math.round(near.similarity * 100)}% the same as an earlier post (${near.post.url}); a few words changed is still a copy`;
  return null;
}

/**
 * The text a copy keeps: Markdown punctuation, case and whitespace removed (letters and digits of
 * every script stay), hashed.
 */
export function contentHash(body: string): string {
  const normalised = body
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
  return createHash("sha256").update(normalised).digest("hex");
}

/** After the author deleted a post, a review that has not paid yet is declined ("no longer visible"). */
export async function declineRemovedContribution(
  ctx: ServiceContext,
  c: { kind: "THREAD" | "REPLY"; id: string },
): Promise<void> {
  const now = ctx.now();
  await ctx.db
    .updateTable("forum_rewards")
    .set({
      status: "DECLINED",
      review_status: "DECLINED",
      declined_reason: "the contribution is no longer visible",
      updated_at: now,
      reviewed_at: now,
    })
    .where("contribution_kind", "=", c.kind)
    .where("contribution_id", "=", c.id)
    .where("status", "in", ["PENDING_REVIEW", "WAITING_FOR_BUDGET"])
    .execute();
}

/** Events one round reads at most; the next round goes on. */
const EVENTS_PER_ROUND = 200;

/**
 * Reviews the forum posts published since the last round, and declines the unpaid reviews of posts
 * removed since, from domain_events (forum.post.published / forum.post.removed, published in the
 * post's own transaction), oldest first. An event is marked done (rewards_done_at) only after its
 * review committed, so a crash in between repeats it, which the review's unique row makes harmless.
 * `onlyAuthors` / `onlyContributions` limit it for tests that share a database (an empty list: none).
 * Returns how many events it handled.
 */
export async function reviewPublishedContributions(
  ctx: ServiceContext,
  options: { siteUrl: string; onlyAuthors?: string[]; onlyContributions?: string[]; limit?: number },
): Promise<number> {
  if (options.onlyAuthors?.length === 0 || options.onlyContributions?.length === 0) return 0;
  let q = ctx.db
    .selectFrom("domain_events")
    .select(["id", "type", "data"])
    .where("rewards_done_at", "is", null)
    .where("type", "in", ["forum.post.published", "forum.post.removed"]);
  if (options.onlyAuthors) q = q.where(sql<string>`data->>'authorPrincipalId'`, "in", options.onlyAuthors);
  if (options.onlyContributions) q = q.where(sql<string>`data->>'id'`, "in", options.onlyContributions);
  const events = await q
    .orderBy("seq")
    .limit(options.limit ?? EVENTS_PER_ROUND)
    .execute();
  for (const event of events) {
    const ref = event.data as unknown as ContributionRef;
    if (event.type === "forum.post.removed") await declineRemovedContribution(ctx, ref);
    else {
      const contribution = await readContribution(ctx.db, ref, options.siteUrl);
      if (contribution) await reviewContribution(ctx, contribution);
    }
    await ctx.db.updateTable("domain_events").set({ rewards_done_at: ctx.now() }).where("id", "=", event.id).execute();
  }
  return events.length;
}
