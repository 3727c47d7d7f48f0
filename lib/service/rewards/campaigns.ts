import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import { sql, type ExpressionBuilder, type Selectable } from "kysely";
import type { Address, Hex } from "viem";
import type { z } from "zod";
import type {
  CreateRewardCampaignRequest,
  ListRewardCampaignsQuery,
  RewardCampaign,
  RewardKind,
} from "@/lib/api/schemas/rewards";
import { getEscrow } from "@/lib/chain/escrow/reads";
import { depositWithPermitCall } from "@/lib/chain/escrow/deposit-with-permit";
import { escrowAbi } from "@/lib/chain/abi";
import { getPublicClient } from "@/lib/chain/clients";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import { parseUsdc, normaliseDecimal } from "@/lib/chain/units";
import { EscrowError } from "@/lib/chain/escrow/errors";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import { requireUser, type Actor } from "../auth/actor";
import { asOperator } from "../audit/record-operator-action";
import type { Db } from "../db/connection";
import { isUniqueViolation } from "../db/errors";
import type { Database, ForumRewardSlotsTable } from "../db/schema";
import type { ChainConfig } from "@/lib/chain/config";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { amountsOf, chainKeyOf, managedWalletAddress, rewardsKey } from "./amounts";
import { payWaitingRewards } from "./pay-rewards";
import { escrowContractOfNewDeposit } from "../escrow/escrow-contract";
import {
  SETTLEMENT_LEASE_MS,
  keptInRow,
  recordOnce,
  runSettlement,
  sendKeptTransfer,
  settleDue,
  type EngineRow,
  type SettlementRound,
  type SettlementWay,
  type TransferSent,
} from "../escrow/settlement-engine";
import { errorFields, log } from "../log";

const KIND_TITLE: Record<RewardKind, string> = {
  THREAD: "Forum reward: an original thread (400+ characters)",
  REPLY: "Forum reward: an original reply (200+ characters)",
  REFERRAL: "Referral reward: a referred owner's first useful thread",
};

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
  const held = leaseEnd(ctx);
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
        funding === "OPERATOR" ? held : null,
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
    await fundHeldSlots(ctx, campaignId, held);
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

/**
 * The slots a creation (or added budget) writes are leased to it (the engine's lease, from the
 * moment they are written): the worker leaves them to it, and takes those a crash left unfunded
 * when the lease ends.
 */
const leaseEnd = (ctx: ServiceContext) => new Date(ctx.now().getTime() + SETTLEMENT_LEASE_MS);

/**
 * Deposits, one by one through the settlement engine, the slots of a campaign this request wrote
 * and still holds (`held`: their lease). A slot the worker took meanwhile (the lease ran out) is
 * left to it; a failed deposit stays PENDING with its reason and is retried by the worker.
 */
async function fundHeldSlots(ctx: ServiceContext, campaignId: string, held: Date): Promise<void> {
  const slots = await ctx.db
    .selectFrom("forum_reward_slots")
    .select(["id", "slot_no"])
    .where("campaign_id", "=", campaignId)
    .where("fund_status", "=", "PENDING")
    .where("lease_until", "=", held)
    .orderBy("slot_no")
    .execute();
  const way = slotDeposit(ctx);
  for (const slot of slots) {
    await ctx.crashPoints?.beforeCampaignDeposit?.(slot.slot_no);
    await runSettlement(ctx, way, slot.id, { heldLease: held });
  }
}

/**
 * The worker's half: every OPERATOR slot of this chain still owed (PENDING) whose lease is free:
 * a deposit that failed once its backoff ran out, a slot a crashed creation left when its lease
 * ended, a sent deposit whose receipt was not recorded. `only`: these campaigns' slots (tests).
 */
export async function fundPendingCampaigns(
  ctx: ServiceContext,
  options: { only?: string[]; now?: Date } = {},
): Promise<SettlementRound & { rows: SlotRow[] }> {
  const chain = ctx.config.chain;
  if (!chain || options.only?.length === 0) return { confirmed: 0, pending: 0, failed: 0, rows: [] };
  const ofThisChain = (eb: ExpressionBuilder<Database, "forum_reward_slots">) =>
    eb.and([eb("chain_key", "=", chainKeyOf(chain)), ...(options.only ? [eb("campaign_id", "in", options.only)] : [])]);
  return await settleDue(ctx, "forum_reward_slots", slotDeposit(ctx), ofThisChain, { now: options.now });
}

export type SlotRow = Selectable<ForumRewardSlotsTable> & EngineRow;
interface SlotJob {
  escrow_job_id: string;
  budget_usdc: string;
  from_block: string | null;
}

/**
 * A reward slot's way through the engine: one depositWithPermit from the rewards wallet into its
 * own slot of the escrow (depositWithPermitCall), kept in the slot's row before it is broadcast and
 * decided by the chain; its receipt makes the slot FUNDED and the job funded, once.
 */
function slotDeposit(ctx: ServiceContext): SettlementWay<SlotRow, SlotJob, TransferSent> {
  return {
    table: "forum_reward_slots",
    readSlot: (id) => slotJobOf(ctx, id),
    send: (chain, slot, claimed) => sendSlotDeposit(ctx, chain, slot, claimed),
    afterSend: (claimed) => ctx.crashPoints?.afterCampaignDepositSend?.(claimed.slot_no),
    record: (chain, claimed, sent) => recordSlotFunded(ctx, chain, claimed, sent),
    logFields: (row) => ({ campaignId: row.campaign_id, slot: row.slot_no, jobId: row.job_id }),
  };
}

/** What a slot's deposit needs: its job's escrow id and amount, and where its campaign's deposits start on chain. */
function slotJobOf(ctx: ServiceContext, slotId: string): Promise<SlotJob> {
  return ctx.db
    .selectFrom("forum_reward_slots as s")
    .where("s.id", "=", slotId)
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .innerJoin("forum_reward_campaigns as c", "c.id", "s.campaign_id")
    .select(["j.escrow_job_id", "j.budget_usdc", "c.from_block"])
    .executeTakeFirstOrThrow();
}

async function sendSlotDeposit(
  ctx: ServiceContext,
  chain: ChainConfig,
  slot: SlotJob,
  claimed: SlotRow,
): Promise<TransferSent> {
  // The rewards wallet's own slot of the escrow: a stranger's deposit under the same id is
  // another slot and neither blocks this deposit nor passes for it.
  const payer = managedWalletAddress(chain) as Address;
  if (!claimed.sent_tx_hash) {
    const earlier = await depositBeforeKept(chain, slot, payer);
    if (earlier) return { txHash: earlier, reverted: false };
  }
  const amount = parseUsdc(normaliseDecimal(slot.budget_usdc));
  const data = await depositWithPermitCall(chain, rewardsKey(chain), { escrowJobId: slot.escrow_job_id, amount });
  const sent = await sendKeptTransfer(ctx, "forum_reward_slots", chain, claimed, {
    privateKey: rewardsKey(chain),
    amount,
    contract: chain.escrowAddress,
    data,
    // A deposit the contract would refuse (the wallet short of USDC) is not signed: no gas spent, retried later.
    beforeSigning: async () => {
      await getPublicClient(chain).call({ account: payer, to: chain.escrowAddress, data });
    },
  });
  if (sent.reverted) {
    // Mined and reverted (its permit expired in the pool, the balance went meanwhile): it can never
    // succeed as signed. Cleared, so the next try signs a new permit.
    await keptInRow(ctx, "forum_reward_slots", claimed).forget(sent.txHash);
    throw new EscrowError("TX_FAILED", "the slot's deposit reverted", sent.txHash);
  }
  return sent;
}

/**
 * The deposit of a slot whose row keeps no transaction, when the chain has one: sent by the
 * approve-and-deposit funder before migration 0150 (which kept nothing) and not recorded. Found,
 * not paid twice.
 */
async function depositBeforeKept(chain: ChainConfig, slot: SlotJob, payer: Address): Promise<Hex | null> {
  const escrow = await getEscrow({ config: chain, escrowJobId: slot.escrow_job_id, payer });
  if (escrow.state === "NONE") return null;
  const logs = await getPublicClient(chain).getContractEvents({
    address: chain.escrowAddress,
    abi: escrowAbi,
    eventName: "Deposited",
    args: { jobId: normalizeEscrowJobId(slot.escrow_job_id), payer },
    fromBlock: slot.from_block ? BigInt(slot.from_block) : 0n,
  });
  const found = logs[0]?.transactionHash;
  if (!found) throw new EscrowError("TX_FAILED", `the slot's escrow is ${escrow.state.toLowerCase()}`);
  return found;
}

/** The deposit's receipt, once: the slot FUNDED and its job funded by the rewards wallet. */
async function recordSlotFunded(
  ctx: ServiceContext,
  chain: ChainConfig,
  claimed: SlotRow,
  sent: TransferSent,
): Promise<SlotRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const at = ctx.now();
    const { row, changed } = await recordOnce<SlotRow>(trx, "forum_reward_slots", claimed.id, {
      fund_status: "FUNDED",
      last_error: null,
      lease_until: null,
      updated_at: at,
    });
    if (!changed) return row;
    await trx
      .updateTable("jobs")
      .set({
        escrow_tx_hash: sent.txHash.toLowerCase(),
        escrow_payer: managedWalletAddress(chain),
        ...escrowContractOfNewDeposit(chain),
        funded_at: at,
        updated_at: at,
      })
      .where("id", "=", claimed.job_id)
      .where("escrow_tx_hash", "is", null)
      .execute();
    return row;
  });
}

/** Slot jobs numbered from..from+count-1 of a campaign, unfunded: creation and the operator's added budget share them. */
async function insertCampaignSlots(
  trx: Db,
  chain: ChainConfig,
  campaign: { id: string; kind: RewardKind; grossUsdc: string },
  posterPrincipalId: string,
  from: number,
  count: number,
  /** OPERATOR funding: the lease of the request that writes them (it deposits them next); SPONSOR: null. */
  heldUntil: Date | null,
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
        fund_status: heldUntil ? "PENDING" : "SPONSOR",
        lease_until: heldUntil,
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
  const held = leaseEnd(ctx);
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
        campaign.funding === "OPERATOR" ? held : null,
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
    await fundHeldSlots(ctx, campaignId, held);
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
