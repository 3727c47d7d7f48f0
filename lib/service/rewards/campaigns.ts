import { fail } from "../errors";
import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Address, Hex } from "viem";
import type { z } from "zod";
import type {
  CreateRewardCampaignRequest,
  ListRewardCampaignsQuery,
  RewardCampaign,
  RewardKind,
} from "@/lib/api/schemas/rewards";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { escrowAbi } from "@/lib/chain/abi";
import { getPublicClient } from "@/lib/chain/clients";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import { parseUsdc, normaliseDecimal } from "@/lib/chain/units";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import { requireUser, type Actor } from "../auth/actor";
import { asOperator } from "../audit/record-operator-action";
import type { Db } from "../db/connection";
import { isUniqueViolation } from "../db/errors";
import type { ChainConfig } from "@/lib/chain/config";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { amountsOf, chainKeyOf, managedWalletAddress, rewardsKey } from "./amounts";
import { payWaitingRewards } from "./pay-rewards";
import { escrowContractOfNewDeposit } from "../escrow/escrow-contract";
import { errorFields, log } from "../log";

const KIND_TITLE: Record<RewardKind, string> = {
  THREAD: "Forum reward: an original thread (400+ characters)",
  REPLY: "Forum reward: an original reply (200+ characters)",
  REFERRAL: "Referral reward: a referred owner's first useful thread",
};

/**
 * How long a funder holds a slot: more than one deposit takes (an approval and a deposit, each
 * waiting up to 180 s for its receipt). A slot still unfunded when its lease ends (the funder
 * crashed, or its database went away) is taken by the rewards worker; the chain tells it whether
 * the deposit was made already (found, not paid twice).
 */
export const SLOT_FUNDING_LEASE_MS = 10 * 60_000;
/** A failed deposit is tried again by the worker after this. */
const SLOT_RETRY_MS = 30_000;

/**
 * POST /v1/forum/reward-campaigns. Adds reward budget as `slots` jobs in participationMode
 * AUTOMATIC_FORUM_REWARD, each holding the kind's gross amount. OPERATOR funding (admins listed in
 * REWARDS_ADMIN_ADDRESSES) deposits every slot from the rewards wallet now; SPONSOR funding leaves
 * them for the sponsor to fund with PATCH /v1/jobs/:id/escrow.
 *
 * Once only: with an Idempotency-Key the campaign keeps the key (unique per sponsor), so a repeated
 * creation answers the campaign the first one made, whether that one finished, failed midway or
 * crashed. The campaign and all its slots are written in one transaction, every slot leased to this
 * request; slots it did not fund (a crash) are funded by the worker when their lease runs out.
 */
export async function createRewardCampaign(
  ctx: ServiceContext,
  actor: Actor,
  input: z.output<typeof CreateRewardCampaignRequest>,
  options: { idempotencyKey?: string } = {},
) {
  const chain = requireChain(ctx);
  const user = requireUser(actor);
  const funding = input.funding ?? "OPERATOR";
  if (funding === "OPERATOR") {
    const me = await ctx.db
      .selectFrom("users")
      .select("address")
      .where("id", "=", user.userId)
      .executeTakeFirstOrThrow();
    const admins = ctx.config.rewardsAdminAddresses.map((a) => a.toLowerCase());
    if (!admins.includes(me.address.toLowerCase())) {
      throw fail(
        "FORBIDDEN",
        "OPERATOR funding is for reward admins (REWARDS_ADMIN_ADDRESSES); fund your own campaign with funding SPONSOR",
      );
    }
  }
  const key = options.idempotencyKey ?? null;
  const made = key ? await campaignOfKey(ctx, user.userId, key) : undefined;
  if (made) return await presentCampaign(ctx, made);

  const { grossUsdc } = amountsOf(input.kind, chain.feeBps);
  const fromBlock =
    funding === "OPERATOR"
      ? await getPublicClient(chain)
          .getBlockNumber()
          .catch(() => null)
      : null;
  const claim = randomUUID();
  let campaignId: string;
  try {
    campaignId = await ctx.db.transaction().execute(async (trx) => {
      const campaign = await trx
        .insertInto("forum_reward_campaigns")
        .values({
          kind: input.kind,
          sponsor_user_id: user.userId,
          slots: input.slots,
          gross_usdc: grossUsdc,
          funding,
          chain_key: chainKeyOf(chain),
          chain_id: chain.chainId,
          from_block: fromBlock?.toString() ?? null,
          idempotency_key: key,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await insertCampaignSlots(
        trx as unknown as Db,
        chain,
        { id: campaign.id, kind: input.kind, grossUsdc },
        user.principalId,
        1,
        input.slots,
        funding === "OPERATOR" ? { claim, until: leaseEnd(ctx) } : null,
      );
      return campaign.id;
    });
  } catch (error) {
    // The same key at the same moment: the other request made it.
    const other =
      key && isUniqueViolation(error, "forum_reward_campaigns_idempotency")
        ? await campaignOfKey(ctx, user.userId, key)
        : undefined;
    if (!other) throw error;
    return await presentCampaign(ctx, other);
  }
  if (funding === "OPERATOR") {
    await fundCampaignSlots(ctx, campaignId, claim);
    await payWaitingRewards(ctx).catch((error) =>
      log.error(errorFields(error), "reward payment after a new budget failed"),
    );
  }
  return await presentCampaign(ctx, campaignId);
}

async function campaignOfKey(ctx: ServiceContext, sponsorUserId: string, key: string): Promise<string | undefined> {
  const row = await ctx.db
    .selectFrom("forum_reward_campaigns")
    .select("id")
    .where("sponsor_user_id", "=", sponsorUserId)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
  return row?.id;
}

const leaseEnd = (ctx: ServiceContext) => new Date(ctx.now().getTime() + SLOT_FUNDING_LEASE_MS);

/**
 * Deposits the unfunded slots of an OPERATOR campaign from the rewards wallet; safe to repeat and to
 * run in several places at once. Each slot is claimed first (its lease, or `claim` when this funder
 * holds it already), so one funder sends it; a slot another funder holds is left to it. A deposit
 * sent before a crash is found on the chain and recorded, not paid twice.
 */
export async function fundCampaignSlots(
  ctx: ServiceContext,
  campaignId: string,
  claim: string = randomUUID(),
): Promise<number> {
  const chain = requireChain(ctx);
  const campaign = await ctx.db
    .selectFrom("forum_reward_campaigns")
    .selectAll()
    .where("id", "=", campaignId)
    .executeTakeFirstOrThrow();
  if (campaign.funding !== "OPERATOR" || campaign.chain_key !== chainKeyOf(chain)) return 0;
  const slots = await ctx.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select(["j.id", "j.escrow_job_id", "j.budget_usdc", "s.slot_no"])
    .where("s.campaign_id", "=", campaignId)
    .where("j.escrow_tx_hash", "is", null)
    .orderBy("s.slot_no")
    .execute();
  let funded = 0;
  for (const slot of slots) {
    const now = ctx.now();
    const mine = await ctx.db
      .updateTable("forum_reward_slots")
      .set({ fund_claim: claim, fund_lease_until: new Date(now.getTime() + SLOT_FUNDING_LEASE_MS), updated_at: now })
      .where("job_id", "=", slot.id)
      .where("funded", "=", false)
      .where((eb) =>
        eb.or([eb("fund_claim", "=", claim), eb("fund_lease_until", "is", null), eb("fund_lease_until", "<=", now)]),
      )
      .returning("job_id")
      .executeTakeFirst();
    if (!mine) continue;
    await ctx.crashPoints?.beforeCampaignDeposit?.(slot.slot_no);
    try {
      const amount = parseUsdc(normaliseDecimal(slot.budget_usdc));
      // The rewards wallet's own slot of the escrow: a stranger's deposit under the same id is
      // another slot and neither blocks this deposit nor passes for it.
      const payer = managedWalletAddress(chain) as Address;
      const escrow = await getEscrow({ config: chain, escrowJobId: slot.escrow_job_id, payer });
      let txHash: Hex | null = null;
      if (escrow.state === "NONE") {
        txHash = (
          await depositToEscrow({
            config: chain,
            privateKey: rewardsKey(chain),
            escrowJobId: slot.escrow_job_id,
            amount,
          })
        ).txHash;
      } else if (escrow.state === "FUNDED") {
        // A deposit sent before a crash: find it instead of paying again.
        const logs = await getPublicClient(chain).getContractEvents({
          address: chain.escrowAddress,
          abi: escrowAbi,
          eventName: "Deposited",
          args: { jobId: normalizeEscrowJobId(slot.escrow_job_id), payer },
          fromBlock: campaign.from_block ? BigInt(campaign.from_block) : 0n,
        });
        txHash = logs[0]?.transactionHash ?? null;
      }
      if (!txHash) throw new Error(`the slot's escrow is ${escrow.state.toLowerCase()}`);
      const at = ctx.now();
      await ctx.db
        .updateTable("jobs")
        .set({
          escrow_tx_hash: txHash.toLowerCase(),
          escrow_payer: payer,
          ...escrowContractOfNewDeposit(chain),
          funded_at: at,
          updated_at: at,
        })
        .where("id", "=", slot.id)
        .where("escrow_tx_hash", "is", null)
        .execute();
      await ctx.db
        .updateTable("forum_reward_slots")
        .set({ funded: true, fund_error: null, fund_claim: null, fund_lease_until: null, updated_at: at })
        .where("job_id", "=", slot.id)
        .execute();
      funded += 1;
    } catch (error) {
      log.error({ campaignId, slot: slot.slot_no, ...errorFields(error) }, "campaign slot deposit failed");
      const at = ctx.now();
      await ctx.db
        .updateTable("forum_reward_slots")
        .set({
          fund_error: chainFailureReason(error).slice(0, 500),
          fund_claim: null,
          fund_lease_until: new Date(at.getTime() + SLOT_RETRY_MS),
          updated_at: at,
        })
        .where("job_id", "=", slot.id)
        .where("fund_claim", "=", claim)
        .execute();
    }
  }
  return funded;
}

/**
 * Funds what an earlier OPERATOR funding left unfunded (the worker's half): slots whose deposit
 * failed once its retry time came, and slots whose funder's lease ran out with no transaction (a
 * crash mid-creation, a database that went away), which no error would ever have marked.
 */
export async function fundPendingCampaigns(ctx: ServiceContext, options: { only?: string[] } = {}): Promise<void> {
  if (!ctx.config.chain) return;
  const now = ctx.now();
  let q = ctx.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .innerJoin("forum_reward_campaigns as c", "c.id", "s.campaign_id")
    .select("s.campaign_id")
    .distinct()
    .where("c.funding", "=", "OPERATOR")
    .where("c.chain_key", "=", chainKeyOf(ctx.config.chain))
    .where("j.escrow_tx_hash", "is", null)
    .where("s.funded", "=", false)
    .where((eb) => eb.or([eb("s.fund_lease_until", "is", null), eb("s.fund_lease_until", "<=", now)]));
  if (options.only)
    q = options.only.length > 0 ? q.where("s.campaign_id", "in", options.only) : q.where(sql<boolean>`false`);
  const rows = await q.limit(5).execute();
  for (const row of rows) await fundCampaignSlots(ctx, row.campaign_id);
}

/** Slot jobs numbered from..from+count-1 of a campaign, unfunded: creation and the operator's added budget share them. */
async function insertCampaignSlots(
  trx: Db,
  chain: ChainConfig,
  campaign: { id: string; kind: RewardKind; grossUsdc: string },
  posterPrincipalId: string,
  from: number,
  count: number,
  lease: { claim: string; until: Date } | null,
) {
  for (let n = from; n < from + count; n++) {
    const inputData = {
      budgetType: "fixed",
      proofHoldHours: 0,
      participationMode: "AUTOMATIC_FORUM_REWARD",
      generalDescription: KIND_TITLE[campaign.kind],
      acceptanceCriteria: [{ description: "An original contribution that passes the automatic quality review" }],
      forumRewardCampaignId: campaign.id,
    };
    const job = await trx
      .insertInto("jobs")
      .values({
        poster_id: posterPrincipalId,
        parent_job_id: null,
        source_forum_thread_id: null,
        source_forum_reply_id: null,
        agent_id: null,
        status: "OPEN",
        purpose: campaign.kind === "REFERRAL" ? "PLATFORM_REFERRAL" : "MARKETPLACE",
        participation_mode: "AUTOMATIC_FORUM_REWARD",
        claim_window_minutes: null,
        claimed_at: null,
        claim_expires_at: null,
        template_id: "custom-v1",
        title: `${KIND_TITLE[campaign.kind]} (slot ${n})`,
        description:
          "Fulfilled by publishing in the forum: the automatic quality review reserves this slot for an eligible contribution and releases its escrow to the author's owner. Takes no bids.",
        budget_usdc: campaign.grossUsdc,
        input_data: JSON.stringify(inputData),
        output_data: null,
        proof_hash: null,
        deadline_at: null,
        submitted_at: null,
        completed_at: null,
        escrow_job_id: `0x${randomBytes(32).toString("hex")}`,
        escrow_tx_hash: null,
        escrow_payer: null,
        funded_at: null,
        release_tx_hash: null,
        refund_tx_hash: null,
        chain_id: chain.chainId,
        token_symbol: chain.tokenSymbol,
        token_address: chain.tokenAddress,
        payment_provider: "ON_CHAIN_USDC",
        payment_status: null,
        acceptance_criteria: JSON.stringify([
          {
            id: "ac-1",
            check: { type: "reward" },
            description: "An original contribution that passes the automatic quality review",
          },
        ]),
        required_pack_id: null,
        last_shared_at: null,
        forum_reward_campaign_id: campaign.id,
        proof_checked_at: null,
        proof_check_status: null,
        proof_check_reason: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx
      .insertInto("forum_reward_slots")
      .values({
        job_id: job.id,
        campaign_id: campaign.id,
        kind: campaign.kind,
        chain_key: chainKeyOf(chain),
        slot_no: n,
        reward_id: null,
        fund_error: null,
        fund_claim: lease?.claim ?? null,
        fund_lease_until: lease?.until ?? null,
      })
      .execute();
  }
}

/**
 * POST /v1/admin/campaigns/:id/budget. The operator adds `slots` slots to a campaign, in one
 * transaction with the audit line (the campaign row locked, so two additions number their slots
 * apart); an OPERATOR-funded campaign's new slots are deposited from the rewards wallet at once
 * (a failed deposit is retried by the worker, as at creation), a SPONSOR campaign's wait for its
 * sponsor to fund them.
 */
export async function addCampaignBudget(
  ctx: ServiceContext,
  actor: Actor | null,
  campaignId: string,
  slots: number,
  reason: string,
) {
  const chain = requireChain(ctx);
  const claim = randomUUID();
  const added = await asOperator(
    ctx,
    actor,
    {
      action: "campaign.add_budget",
      subjectType: "reward_campaign",
      subjectId: campaignId,
      reason,
      details: { slots },
    },
    async (trx) => {
      const campaign = await trx
        .selectFrom("forum_reward_campaigns")
        .selectAll()
        .where("id", "=", campaignId)
        .forUpdate()
        .executeTakeFirst();
      if (!campaign) throw fail("NOT_FOUND", "reward campaign not found");
      if (campaign.chain_key !== chainKeyOf(chain))
        throw fail("INVALID_STATE", "the campaign belongs to another chain than the configured one");
      const poster = await trx
        .selectFrom("jobs")
        .innerJoin("forum_reward_slots as s", "s.job_id", "jobs.id")
        .select("jobs.poster_id")
        .where("s.campaign_id", "=", campaignId)
        .limit(1)
        .executeTakeFirst();
      await insertCampaignSlots(
        trx,
        chain,
        { id: campaign.id, kind: campaign.kind, grossUsdc: campaign.gross_usdc },
        poster?.poster_id ?? campaign.sponsor_user_id,
        campaign.slots + 1,
        slots,
        campaign.funding === "OPERATOR" ? { claim, until: leaseEnd(ctx) } : null,
      );
      await trx
        .updateTable("forum_reward_campaigns")
        .set({ slots: campaign.slots + slots })
        .where("id", "=", campaignId)
        .execute();
      return campaign;
    },
  );
  if (added.funding === "OPERATOR") {
    await fundCampaignSlots(ctx, campaignId, claim);
    await payWaitingRewards(ctx).catch((error) =>
      log.error(errorFields(error), "reward payment after added budget failed"),
    );
  }
  return await presentCampaign(ctx, campaignId);
}

/** POST /v1/admin/campaigns/:id/pause and /resume: a paused campaign's slots reserve no new reward; rewards already paying finish. */
export async function setCampaignPaused(
  ctx: ServiceContext,
  actor: Actor | null,
  campaignId: string,
  paused: boolean,
  reason: string,
) {
  await asOperator(
    ctx,
    actor,
    {
      action: paused ? "campaign.pause" : "campaign.resume",
      subjectType: "reward_campaign",
      subjectId: campaignId,
      reason,
    },
    async (trx) => {
      const campaign = await trx
        .selectFrom("forum_reward_campaigns")
        .select("paused_at")
        .where("id", "=", campaignId)
        .forUpdate()
        .executeTakeFirst();
      if (!campaign) throw fail("NOT_FOUND", "reward campaign not found");
      if ((campaign.paused_at !== null) === paused)
        throw fail("INVALID_STATE", paused ? "the campaign is already paused" : "the campaign is not paused");
      await trx
        .updateTable("forum_reward_campaigns")
        .set({ paused_at: paused ? ctx.now() : null })
        .where("id", "=", campaignId)
        .execute();
    },
  );
  if (!paused && ctx.config.chain)
    await payWaitingRewards(ctx).catch((error) => log.error(errorFields(error), "reward payment after resume failed"));
  return await presentCampaign(ctx, campaignId);
}

type CampaignDto = z.input<typeof RewardCampaign>;

async function campaignCounts(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0)
    return new Map<string, { available: number; reserved: number; paid: number; unfunded: number }>();
  const rows = await ctx.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.campaign_id",
      sql<string>`count(*) filter (where s.status = 'OPEN' and j.escrow_tx_hash is not null)`.as("available"),
      sql<string>`count(*) filter (where s.status = 'RESERVED')`.as("reserved"),
      sql<string>`count(*) filter (where s.status = 'PAID')`.as("paid"),
      sql<string>`count(*) filter (where s.status = 'OPEN' and j.escrow_tx_hash is null)`.as("unfunded"),
    ])
    .where("s.campaign_id", "in", ids)
    .groupBy("s.campaign_id")
    .execute();
  return new Map(
    rows.map((r) => [
      r.campaign_id,
      {
        available: Number(r.available),
        reserved: Number(r.reserved),
        paid: Number(r.paid),
        unfunded: Number(r.unfunded),
      },
    ]),
  );
}

function present(
  row: {
    id: string;
    kind: RewardKind;
    sponsor_user_id: string;
    slots: number;
    gross_usdc: string;
    chain_id: number;
    created_at: Date;
    paused_at: Date | null;
  },
  counts: { available: number; reserved: number; paid: number; unfunded: number } | undefined,
  feeBps: number,
): CampaignDto {
  const c = counts ?? { available: 0, reserved: 0, paid: 0, unfunded: row.slots };
  return {
    id: row.id,
    kind: row.kind,
    sponsorId: row.sponsor_user_id,
    slots: row.slots,
    grossUsdc: normaliseDecimal(row.gross_usdc),
    netUsdc: amountsOf(row.kind, feeBps).netUsdc,
    status: c.unfunded === 0 ? "FUNDED" : c.unfunded === row.slots ? "FUNDING" : "PARTIALLY_FUNDED",
    availableSlots: c.available,
    reservedSlots: c.reserved,
    paidSlots: c.paid,
    unfundedSlots: c.unfunded,
    chainId: row.chain_id,
    pausedAt: row.paused_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function presentCampaign(ctx: ServiceContext, id: string): Promise<CampaignDto> {
  const row = await ctx.db.selectFrom("forum_reward_campaigns").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "reward campaign not found");
  return present(row, (await campaignCounts(ctx, [id])).get(id), ctx.config.chain?.feeBps ?? 0);
}

export async function listRewardCampaigns(ctx: ServiceContext, query: z.output<typeof ListRewardCampaignsQuery>) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = ctx.db.selectFrom("forum_reward_campaigns").selectAll();
  if (query.kind) q = q.where("kind", "=", query.kind);
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "desc"));
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  const counts = await campaignCounts(
    ctx,
    page.rows.map((r) => r.id),
  );
  return { items: page.rows.map((r) => present(r, counts.get(r.id), ctx.config.chain?.feeBps ?? 0)), meta: page.meta };
}
