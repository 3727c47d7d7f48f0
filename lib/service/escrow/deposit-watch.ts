import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool, type Transaction } from "kysely";
import type { Address } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import { depositEventsBetween, isStillMined } from "@/lib/chain/escrow/deposit-events";
import { EscrowError } from "@/lib/chain/escrow/errors";
import { getEscrow, partSettledBlock } from "@/lib/chain/escrow/reads";
import { escrowContracts, type EscrowContract, type EscrowVersion } from "@/lib/chain/escrow/contracts";
import { refundEscrow, type SettlementResult } from "@/lib/chain/escrow/settle";
import { getPublicClient } from "@/lib/chain/clients";
import { finalBlockNumber } from "@/lib/chain/receipts";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import { privateKeyToAccount } from "viem/accounts";
import type { ServiceContext } from "../context";
import type { ServiceConfig } from "../config";
import type { Database, EscrowDepositsTable } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { REORG_WATCH_MS, keptInRow, recordOnce, reopenRow, settleDue, type SettlementWay } from "./settlement-engine";
import { jobRecipients } from "../events/recipients";
import { isOperatorAddress } from "../auth/operator";
import { log } from "../log";
import { DEPOSIT_REGISTRATION_WINDOW_MS, depositVerdict, type DepositVerdict } from "./deposit-rules";
import { NO_ESCROW_CONTRACT, recordSlotExpiry } from "./escrow-contract";
import { followOutsideSettlements } from "./outside-settlements";

/**
 * Deposits that cannot strand, and deposits and settlements a reorganisation removes.
 *
 * 1. scanDeposits reads the escrow's Deposited events up to the final block (finalBlockNumber:
 *    the configured confirmations, and the chain's `safe`/`finalized` tag where it has one) and
 *    keeps each in escrow_deposits, registered or not.
 * 2. decideDeposits: a deposit that no job registered is returned to its payer, without the
 *    operator, when it can never fund a job (no job has its escrow id, the job is not fundable, is
 *    funded by another deposit, or the amount is not the budget) at once, and otherwise when nobody
 *    registered it within DEPOSIT_REGISTRATION_WINDOW_MS of the service seeing it. The decision is
 *    taken with the job row locked (registration takes the same lock and refuses a deposit being
 *    refunded), and recorded (REFUND_PENDING) before anything is sent.
 * 3. sendStrayRefunds sends those refunds through the one settlement engine (settlement-engine.ts:
 *    a lease, the signed transaction kept before broadcast, the receipt recorded once, backoff, an
 *    unsent claim handed back after a database outage) and refundEscrow, which finds an earlier
 *    refund instead of sending a second: the contract refunds a slot once and only to its payer.
 * 4. watchRegisteredDeposits: a registered deposit whose slot the chain no longer has (a
 *    reorganisation) unfunds its job (markDepositLost); the job can be funded again.
 * 5. watchConfirmedSettlements: a confirmed release, split or refund whose transaction the chain no
 *    longer has, while the slot is funded again, goes back to PENDING, and the settlement worker
 *    sends it again (once: the contract settles a slot once, and the send finds a re-included one).
 *    watchConfirmedPartSettlements does the same for each part of a job paid in parts (the part
 *    unsettled on chain again; a job its last part completed is in progress again until it is).
 *    watchRefundedStrays does it for the refunds of step 3 (sent again, or nothing owed when the
 *    deposit went with its refund).
 * 6. followOutsideSettlements (outside-settlements.ts): an EscrowV2 slot that the payer, the agent,
 *    a relayer of the payer's Approve or anyone after the expiry settled without the service is
 *    recorded into the books once its block is final.
 * The parties and the operators hear of 2-6 through the events path (webhooks, inbox).
 */

/** The first scan of a chain starts this many blocks below its final block (about 28 hours on Base). */
const SCAN_LOOKBACK_BLOCKS = 50_000n;
/** Public RPCs cap a log query's range. */
const SCAN_CHUNK_BLOCKS = 2_000n;
const SCAN_CHUNKS_PER_ROUND = 10;

type Trx = Transaction<Database>;

/** A test's round limited to its own deposits (the database may be shared with other suites); every deposit otherwise. */
const onlyTheseEscrowJobs =
  (options: WatchOptions) =>
  (eb: ExpressionBuilder<Database, "escrow_deposits">): Expression<SqlBool> =>
    !options.onlyEscrowJobIds
      ? sql<boolean>`true`
      : options.onlyEscrowJobIds.length > 0
        ? eb(
            "escrow_job_id",
            "in",
            options.onlyEscrowJobIds.map((id) => id.toLowerCase()),
          )
        : sql<boolean>`false`;
export type DepositRow = Selectable<EscrowDepositsTable>;

interface WatchOptions {
  now?: Date;
  /** Only these escrow job ids / job ids: for tests sharing a database with other suites. */
  onlyEscrowJobIds?: string[];
}

const genesisHashes = new Map<string, string>();
/** One cursor per chain (its genesis block: a replaced local chain starts over) and escrow contract. */
async function cursorName(chain: ChainConfig, escrow: EscrowContract): Promise<string> {
  let genesis = genesisHashes.get(chain.rpcUrl);
  if (!genesis) {
    genesis = (await getPublicClient(chain).getBlock({ blockNumber: 0n })).hash ?? "none";
    genesisHashes.set(chain.rpcUrl, genesis);
  }
  return `deposits:${chain.chainId}:${escrow.address.toLowerCase()}:${genesis.slice(0, 18)}`;
}

/** Users (operators) whose address is in OPERATOR_ADDRESSES: they hear of every money problem. */
export async function operatorUserIds(db: Pick<Trx, "selectFrom">, config: ServiceConfig): Promise<string[]> {
  if (config.operatorAddresses.length === 0) return [];
  const addresses = config.operatorAddresses.map((a) => a.toLowerCase());
  const users = await db
    .selectFrom("users")
    .select(["id", "address"])
    .where((eb) => eb.fn("lower", ["address"]), "in", addresses)
    .execute();
  return users.filter((u) => isOperatorAddress(config, u.address)).map((u) => u.id);
}

/** Step 1, in each configured escrow contract (the first escrow, and EscrowV2 once deployed). Returns how many events it read. */
export async function scanDeposits(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions = {},
): Promise<number> {
  let read = 0;
  for (const escrow of escrowContracts(chain)) read += await scanDepositsOf(ctx, chain, escrow, options);
  return read;
}

async function scanDepositsOf(
  ctx: ServiceContext,
  chain: ChainConfig,
  escrow: EscrowContract,
  options: WatchOptions,
): Promise<number> {
  const now = options.now ?? ctx.now();
  const name = await cursorName(chain, escrow);
  const final = await finalBlockNumber(chain);
  if (final < 0n) return 0;
  const head = await getPublicClient(chain).getBlockNumber({ cacheTime: 0 });
  const cursor = await ctx.db
    .selectFrom("chain_scan_cursors")
    .select("next_block")
    .where("name", "=", name)
    .executeTakeFirst();
  const start = final > SCAN_LOOKBACK_BLOCKS ? final - SCAN_LOOKBACK_BLOCKS : 0n;
  let from = cursor ? BigInt(cursor.next_block) : start;
  // A cursor beyond the head: the chain was replaced (a restarted local chain); read it again.
  if (from > head + 1n) from = start;
  let read = 0;
  for (let chunk = 0; chunk < SCAN_CHUNKS_PER_ROUND && from <= final; chunk += 1) {
    const to = from + SCAN_CHUNK_BLOCKS - 1n < final ? from + SCAN_CHUNK_BLOCKS - 1n : final;
    const events = await depositEventsBetween(chain, escrow, from, to);
    await ctx.db.transaction().execute(async (trx) => {
      for (const event of events) {
        const job = await trx
          .selectFrom("jobs")
          .select("id")
          .where("escrow_job_id", "=", event.escrowJobId)
          .where("chain_id", "=", chain.chainId)
          .executeTakeFirst();
        await trx
          .insertInto("escrow_deposits")
          .values({
            chain_id: chain.chainId,
            escrow_version: escrow.version,
            escrow_job_id: event.escrowJobId,
            payer: event.payer,
            amount_units: event.amount.toString(),
            tx_hash: event.txHash,
            block_number: event.blockNumber.toString(),
            job_id: job?.id ?? null,
            refund_due_at: new Date(now.getTime() + DEPOSIT_REGISTRATION_WINDOW_MS),
          })
          // Seen again after a reorganisation removed it (it was re-included, maybe in another
          // transaction): it is a deposit again, with a fresh registration window.
          .onConflict((oc) =>
            oc
              .columns(["chain_id", "escrow_version", "escrow_job_id", "payer"])
              .doUpdateSet({
                status: "OBSERVED",
                tx_hash: event.txHash,
                block_number: event.blockNumber.toString(),
                amount_units: event.amount.toString(),
                reason: null,
                refund_due_at: new Date(now.getTime() + DEPOSIT_REGISTRATION_WINDOW_MS),
                updated_at: now,
              })
              .where("escrow_deposits.status", "=", "VANISHED"),
          )
          .execute();
      }
      await trx
        .insertInto("chain_scan_cursors")
        .values({ name, next_block: (to + 1n).toString(), updated_at: now })
        .onConflict((oc) => oc.column("name").doUpdateSet({ next_block: (to + 1n).toString(), updated_at: now }))
        .execute();
    });
    read += events.length;
    from = to + 1n;
  }
  return read;
}

/** The deposit's verdict (depositVerdict), with its job read under the lock registration takes. */
async function judge(trx: Trx, chain: ChainConfig, row: DepositRow, now: Date): Promise<DepositVerdict> {
  // Locks the job (the same lock registration takes), so a registration and this decision cannot cross.
  const job = await trx
    .selectFrom("jobs")
    .select(["id", "status", "budget_usdc", "escrow_tx_hash", "escrow_payer", "deposit_lost_at", "escrow_version"])
    .where("escrow_job_id", "=", row.escrow_job_id)
    .where("chain_id", "=", chain.chainId)
    .forUpdate()
    .executeTakeFirst();
  return depositVerdict(job, row, now);
}

/** Step 2. Returns how many deposits it sent back to REFUND_PENDING. */
export async function decideDeposits(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions = {},
): Promise<number> {
  const now = options.now ?? ctx.now();
  const operator = privateKeyToAccount(chain.operatorPrivateKey).address.toLowerCase();
  let q = ctx.db
    .selectFrom("escrow_deposits")
    .select("id")
    .where("status", "=", "OBSERVED")
    .where("chain_id", "=", chain.chainId)
    // The operator's own deposits (funded reward campaigns) are registered by the service itself.
    .where("payer", "<>", operator);
  // Both contracts' deposits: an EscrowV2 stray is refunded by the operator's refund(jobId, payer)
  // like a first-escrow one (strayRefund below), or returns by anyone's claimRefund at its expiry.
  q = q.where(onlyTheseEscrowJobs(options));
  const due = await q.orderBy("refund_due_at").limit(100).execute();
  let decided = 0;
  for (const { id } of due) {
    await ctx.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom("escrow_deposits").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      const judged = await judge(trx, chain, row, now);
      const locked = await trx
        .selectFrom("escrow_deposits")
        .select("status")
        .where("id", "=", id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (locked.status !== "OBSERVED") return;
      if (judged.verdict === "WAIT") {
        if (row.job_id !== judged.jobId)
          await trx
            .updateTable("escrow_deposits")
            .set({ job_id: judged.jobId, updated_at: now })
            .where("id", "=", id)
            .execute();
        return;
      }
      if (judged.verdict === "REGISTERED") {
        await trx
          .updateTable("escrow_deposits")
          .set({ status: "REGISTERED", job_id: judged.jobId, updated_at: now })
          .where("id", "=", id)
          .execute();
        return;
      }
      await trx
        .updateTable("escrow_deposits")
        .set({
          status: "REFUND_PENDING",
          reason: judged.reason,
          job_id: judged.jobId,
          lease_until: null,
          updated_at: now,
        })
        .where("id", "=", id)
        .execute();
      decided += 1;
    });
  }
  return decided;
}

/**
 * Step 3, through the one settlement engine (settlement-engine.ts): the stray refunds owed
 * (REFUND_PENDING) whose lease is free, never tried first. Returns the rows it handled, as they
 * stand afterwards.
 */
export async function sendStrayRefunds(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions = {},
): Promise<DepositRow[]> {
  const now = options.now ?? ctx.now();
  const ofThisChain = (eb: ExpressionBuilder<Database, "escrow_deposits">) =>
    eb.and([eb("chain_id", "=", chain.chainId), onlyTheseEscrowJobs(options)(eb)]);
  return (await settleDue(ctx, "escrow_deposits", strayRefund(ctx, now), ofThisChain, { now })).rows;
}

/**
 * A stray deposit's way through the engine: refundEscrow of its slot to its payer (the contract
 * refunds a slot once and only to its payer; the signed transaction is kept in the row before it is
 * broadcast), and the receipt recorded once with the payer, the poster and the operators told. A
 * refusal for good leaves nothing to return: NOT_FUNDED, the chain has no such deposit (a
 * reorganisation removed it): VANISHED; otherwise the slot was settled another way: SETTLED.
 */
function strayRefund(ctx: ServiceContext, at: Date): SettlementWay<DepositRow, undefined, SettlementResult> {
  return {
    table: "escrow_deposits",
    send: (chain, _, claimed) =>
      refundEscrow({
        config: chain,
        escrowJobId: claimed.escrow_job_id,
        payer: claimed.payer as Address,
        // The contract the deposit was seen in: EscrowV2's refund(jobId, payer) pays the payer only,
        // before the slot's expiry (after it, anyone's claimRefund returns it: SLOT_EXPIRING below).
        version: claimed.escrow_version as EscrowVersion,
        durable: keptInRow(ctx, "escrow_deposits", claimed),
      }),
    afterSend: (claimed) => ctx.crashPoints?.afterStrayRefundSend?.(claimed.id),
    record: (chain, claimed, refund) => recordStrayRefund(ctx, chain, claimed, refund, at),
    escrow: true,
    // SETTLED also takes an EscrowV2 stray within 15 minutes of its expiry or past it (SLOT_EXPIRING):
    // the operator may no longer refund it, and it returns to its payer by anyone's claimRefund.
    refusedForGood: (error) => ({
      status: error instanceof EscrowError && error.code === "NOT_FUNDED" ? "VANISHED" : "SETTLED",
      lease_until: null,
    }),
    logFields: (row) => ({ depositId: row.id, jobId: row.job_id, escrowJobId: row.escrow_job_id }),
  };
}

async function recordStrayRefund(
  ctx: ServiceContext,
  chain: ChainConfig,
  claimed: DepositRow,
  refund: SettlementResult,
  at: Date,
): Promise<DepositRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const { row: done, changed } = await recordOnce<DepositRow>(trx, "escrow_deposits", claimed.id, {
      status: "REFUNDED",
      refund_tx_hash: refund.txHash.toLowerCase(),
      refunded_at: at,
      last_error: null,
      lease_until: null,
      updated_at: at,
    });
    if (!changed) return done;
    const job = claimed.job_id
      ? await trx
          .selectFrom("jobs")
          .select(["poster_id", "agent_id"])
          .where("id", "=", claimed.job_id)
          .executeTakeFirst()
      : undefined;
    // The payer if it is a user here; the job's poster (whose page it was paid from); the operators.
    const payerUser = await trx
      .selectFrom("users")
      .select("id")
      .where((eb) => eb.fn("lower", ["address"]), "=", claimed.payer)
      .executeTakeFirst();
    await publishEvent(trx, {
      type: "escrow.deposit_refunded",
      jobId: claimed.job_id,
      to: [
        payerUser?.id,
        ...(job ? await jobRecipients(trx, { poster_id: job.poster_id, agent_id: null }) : []),
        ...(await operatorUserIds(trx, ctx.config)),
      ],
      data: {
        jobId: claimed.job_id,
        payer: claimed.payer,
        amount: formatUsdc(refund.amount),
        txHash: refund.txHash,
        depositTxHash: claimed.tx_hash,
        reason: claimed.reason,
        chainId: chain.chainId,
      },
    });
    return done;
  });
}

/**
 * The job's registered deposit is no longer on the chain: the job becomes unfunded (and fundable
 * again, deposit_lost_at), a settlement that could not have moved anything (PENDING or FAILED, the
 * slot being empty) is dropped so a new deposit can be settled, and the parties and operators are
 * told. Does nothing when the job changed meanwhile (another deposit, a confirmed settlement).
 */
export async function markDepositLost(
  ctx: ServiceContext,
  jobId: string,
  txHash: string,
  reason: string,
): Promise<boolean> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "status",
        "poster_id",
        "agent_id",
        "escrow_tx_hash",
        "escrow_payer",
        "escrow_job_id",
        "escrow_version",
        "chain_id",
        "budget_usdc",
      ])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job || job.escrow_tx_hash !== txHash) return false;
    const confirmed = await trx
      .selectFrom("escrow_settlements")
      .select("id")
      .where("job_id", "=", jobId)
      .where("status", "=", "CONFIRMED")
      .executeTakeFirst();
    if (confirmed) return false;
    await trx.deleteFrom("escrow_settlements").where("job_id", "=", jobId).where("status", "<>", "CONFIRMED").execute();
    await trx
      .updateTable("jobs")
      .set({
        escrow_tx_hash: null,
        escrow_payer: null,
        ...NO_ESCROW_CONTRACT,
        funded_at: null,
        deposit_lost_at: now,
        updated_at: now,
        ...(job.status === "REVIEW"
          ? {
              release_held_reason: `the deposit that funded this job (${txHash}) is no longer on the chain (${reason}); the poster has to fund the job again`,
            }
          : {}),
      })
      .where("id", "=", jobId)
      .execute();
    await reopenSlotDeposit(trx, jobId, txHash, now);
    if (job.escrow_payer) {
      await trx
        .updateTable("escrow_deposits")
        .set({ status: "VANISHED", reason, updated_at: now })
        .where("chain_id", "=", job.chain_id)
        .where("escrow_version", "=", job.escrow_version ?? 1)
        .where("escrow_job_id", "=", job.escrow_job_id.toLowerCase())
        .where("payer", "=", job.escrow_payer.toLowerCase())
        .execute();
    }
    await publishEvent(trx, {
      type: "escrow.deposit_lost",
      jobId,
      to: [...(await jobRecipients(trx, job)), ...(await operatorUserIds(trx, ctx.config))],
      data: {
        jobId,
        txHash,
        reason,
        budgetUsdc: formatUsdc(parseUsdc(job.budget_usdc)),
        status: job.status,
        nextAction: "FUND_AGAIN",
      },
    });
    return true;
  });
}

/**
 * A reward slot the rewards wallet funded through the engine (rewards/campaigns.ts) whose deposit a
 * reorganisation removed is owed its deposit again: the rewards worker sends the kept transaction
 * again (or, were its nonce taken meanwhile, a new one), once. Nothing for any other job.
 */
async function reopenSlotDeposit(trx: Trx, jobId: string, depositTxHash: string, now: Date): Promise<void> {
  const slot = await trx.selectFrom("forum_reward_slots").select("id").where("job_id", "=", jobId).executeTakeFirst();
  if (slot) await reopenRow(trx, "forum_reward_slots", slot.id, depositTxHash, now);
}

/**
 * Whether a funded job's deposit is still in its slot on chain; when it is not, the job is marked
 * unfunded (markDepositLost) and false returned. An unfunded job, or no chain, answers true.
 * RPC failures throw.
 */
export async function confirmDepositOnChain(
  ctx: ServiceContext,
  job: {
    id: string;
    escrow_tx_hash: string | null;
    escrow_payer: string | null;
    escrow_job_id: string;
    escrow_version: number | null;
  },
): Promise<boolean> {
  const chain = ctx.config.chain;
  if (!chain || job.escrow_tx_hash === null || job.escrow_payer === null) return true;
  const slot = await getEscrow({
    config: chain,
    escrowJobId: job.escrow_job_id,
    payer: job.escrow_payer as Address,
    version: job.escrow_version as EscrowVersion | null,
  });
  if (slot.state !== "NONE") {
    // An EscrowV2 slot read here (before a bid is accepted, by the watcher) also brings its expiry:
    // a payer's extendExpiry is seen without waiting for POST /v1/jobs/:id/escrow/expiry.
    if (slot.state === "FUNDED" && slot.expiresAt !== undefined)
      await recordSlotExpiry(ctx.db, job.id, slot.expiresAt, ctx.now());
    return true;
  }
  await markDepositLost(
    ctx,
    job.id,
    job.escrow_tx_hash,
    "its escrow slot is empty: a chain reorganisation removed the deposit",
  );
  return false;
}

/** Step 4. Returns the ids of the jobs it unfunded. */
export async function watchRegisteredDeposits(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions & { onlyJobIds?: string[] } = {},
): Promise<string[]> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("jobs as j")
    .leftJoin("escrow_settlements as s", (join) => join.onRef("s.job_id", "=", "j.id").on("s.status", "=", "CONFIRMED"))
    .select(["j.id", "j.escrow_tx_hash", "j.escrow_payer", "j.escrow_job_id", "j.escrow_version"])
    .where("j.escrow_tx_hash", "is not", null)
    .where("j.chain_id", "=", chain.chainId)
    .where("j.funded_at", ">", new Date(now.getTime() - REORG_WATCH_MS))
    .where("s.id", "is", null);
  if (options.onlyJobIds)
    q = options.onlyJobIds.length > 0 ? q.where("j.id", "in", options.onlyJobIds) : q.where(sql<boolean>`false`);
  const jobs = await q.orderBy("j.funded_at", "desc").limit(200).execute();
  const lost: string[] = [];
  for (const job of jobs) {
    if (!(await confirmDepositOnChain(ctx, job))) lost.push(job.id);
  }
  return lost;
}

/** Step 5. Returns the ids of the settlements put back to PENDING. */
export async function watchConfirmedSettlements(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions & { onlyJobIds?: string[] } = {},
): Promise<string[]> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("escrow_settlements as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.id",
      "s.tx_hash",
      "s.kind",
      "j.id as job_id",
      "j.escrow_job_id",
      "j.escrow_payer",
      "j.escrow_tx_hash",
      "j.escrow_version",
    ])
    .where("s.status", "=", "CONFIRMED")
    .where("s.tx_hash", "is not", null)
    // A settlement made outside the service was recorded only once its block was final, and its
    // transaction is the parties' own: nothing the service could send again (outside-settlements.ts).
    .where("s.settled_outside", "is", null)
    .where("j.chain_id", "=", chain.chainId)
    .where("s.confirmed_at", ">", new Date(now.getTime() - REORG_WATCH_MS));
  if (options.onlyJobIds)
    q = options.onlyJobIds.length > 0 ? q.where("j.id", "in", options.onlyJobIds) : q.where(sql<boolean>`false`);
  const rows = await q.orderBy("s.confirmed_at", "desc").limit(200).execute();
  const reopened: string[] = [];
  for (const row of rows) {
    if (!row.escrow_payer || (await isStillMined(chain, row.tx_hash!))) continue;
    // The transaction is gone. Only a slot that is funded again can be settled again; a slot in
    // another state means the settlement happened in another transaction (nothing to send).
    const slot = await getEscrow({
      config: chain,
      escrowJobId: row.escrow_job_id,
      payer: row.escrow_payer as Address,
      version: row.escrow_version as EscrowVersion | null,
    });
    // A deeper reorganisation took the deposit too: the payer's money never left their wallet, so
    // there is nothing to send until the job is funded again.
    if (slot.state === "NONE" && row.escrow_tx_hash && !(await isStillMined(chain, row.escrow_tx_hash))) {
      if (await unsettleWithLostDeposit(ctx, row.id, row.tx_hash!, row.escrow_tx_hash)) reopened.push(row.id);
      continue;
    }
    if (slot.state !== "FUNDED") continue;
    if (await reopenSettlement(ctx, row.id, row.tx_hash!)) reopened.push(row.id);
  }
  return reopened;
}

async function reopenSettlement(ctx: ServiceContext, settlementId: string, txHash: string): Promise<boolean> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const settlement = await trx
      .selectFrom("escrow_settlements")
      .select(["job_id", "kind"])
      .where("id", "=", settlementId)
      .executeTakeFirstOrThrow();
    // Lock order: job first, as every settlement path takes it.
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "agent_id", "status"])
      .where("id", "=", settlement.job_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (!(await reopenRow(trx, "escrow_settlements", settlementId, txHash, now))) return false;
    // The job no longer shows a payment that is not on chain; the settlement worker pays it again
    // and writes the new transaction (and job.paid or job.refunded) when its receipt is in.
    await trx
      .updateTable("jobs")
      .set(
        settlement.kind === "REFUND"
          ? { refund_tx_hash: null, updated_at: now }
          : {
              release_tx_hash: null,
              release_held_reason: "the release was removed by a chain reorganisation; it is being sent again",
              updated_at: now,
            },
      )
      .where("id", "=", job.id)
      .execute();
    await publishEvent(trx, {
      type: "escrow.settlement_reorged",
      jobId: job.id,
      to: [...(await jobRecipients(trx, job)), ...(await operatorUserIds(trx, ctx.config))],
      data: { jobId: job.id, kind: settlement.kind, removedTxHash: txHash, nextAction: "RESEND" },
    });
    return true;
  });
}

/**
 * Step 5 when the reorganisation removed the deposit with its settlement. A release or a split is
 * owed still (the approval or the ruling stands): it goes back to PENDING, and the job to where it
 * stood before the payment (REVIEW, or DISPUTED for a ruled split), unfunded and fundable again;
 * the settlement worker sends it once the poster has funded the job again (it never sends for an
 * unfunded job). A refund is owed nothing: the payer's money never left their wallet, so its row
 * goes and the cancelled job is simply unfunded. The parties and the operators are told
 * (escrow.deposit_lost, FUND_AGAIN, with the settlement that went with it).
 */
async function unsettleWithLostDeposit(
  ctx: ServiceContext,
  settlementId: string,
  txHash: string,
  depositTxHash: string,
): Promise<boolean> {
  const now = ctx.now();
  const reason = "a chain reorganisation removed the deposit and the settlement that paid it out";
  return ctx.db.transaction().execute(async (trx) => {
    const settlement = await trx
      .selectFrom("escrow_settlements")
      .select(["job_id", "kind"])
      .where("id", "=", settlementId)
      .executeTakeFirstOrThrow();
    // Lock order: job first, as every settlement path takes it.
    const job = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "poster_id",
        "agent_id",
        "status",
        "escrow_tx_hash",
        "escrow_payer",
        "escrow_job_id",
        "escrow_version",
        "chain_id",
        "budget_usdc",
      ])
      .where("id", "=", settlement.job_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (job.escrow_tx_hash !== depositTxHash) return false;
    // Only the confirmed row this round read: a second watcher (another instance) finds it changed.
    const unsettled =
      settlement.kind === "REFUND"
        ? await trx
            .deleteFrom("escrow_settlements")
            .where("id", "=", settlementId)
            .where("status", "=", "CONFIRMED")
            .where("tx_hash", "=", txHash)
            .returning("id")
            .executeTakeFirst()
        : await trx
            .updateTable("escrow_settlements")
            .set({
              status: "PENDING",
              tx_hash: null,
              sent_raw_tx: null,
              sent_tx_hash: null,
              confirmed_at: null,
              lease_until: null,
              reorg_resent_at: now,
              updated_at: now,
              last_error: `the confirmed transaction ${txHash} was removed by a chain reorganisation with the deposit ${depositTxHash}; it is sent once the job is funded again`,
            })
            .where("id", "=", settlementId)
            .where("status", "=", "CONFIRMED")
            .where("tx_hash", "=", txHash)
            .returning("id")
            .executeTakeFirst();
    if (!unsettled) return false;
    const unfunded = {
      escrow_tx_hash: null,
      escrow_payer: null,
      ...NO_ESCROW_CONTRACT,
      funded_at: null,
      deposit_lost_at: now,
      updated_at: now,
    };
    await trx
      .updateTable("jobs")
      .set(
        settlement.kind === "REFUND"
          ? { ...unfunded, refund_tx_hash: null }
          : {
              ...unfunded,
              status: settlement.kind === "SPLIT" ? "DISPUTED" : "REVIEW",
              completed_at: null,
              release_tx_hash: null,
              release_held_reason: `the deposit that funded this job and its payment were removed by a chain reorganisation; the poster has to fund the job again, and the ${settlement.kind === "SPLIT" ? "ruling's split" : "approved release"} is then sent`,
            },
      )
      .where("id", "=", job.id)
      .execute();
    await reopenSlotDeposit(trx, job.id, depositTxHash, now);
    if (job.escrow_payer) {
      await trx
        .updateTable("escrow_deposits")
        .set({ status: "VANISHED", reason, updated_at: now })
        .where("chain_id", "=", job.chain_id)
        .where("escrow_version", "=", job.escrow_version ?? 1)
        .where("escrow_job_id", "=", job.escrow_job_id.toLowerCase())
        .where("payer", "=", job.escrow_payer.toLowerCase())
        .execute();
    }
    await publishEvent(trx, {
      type: "escrow.deposit_lost",
      jobId: job.id,
      to: [...(await jobRecipients(trx, job)), ...(await operatorUserIds(trx, ctx.config))],
      data: {
        jobId: job.id,
        txHash: depositTxHash,
        reason,
        budgetUsdc: formatUsdc(parseUsdc(job.budget_usdc)),
        status: job.status,
        nextAction: "FUND_AGAIN",
        settlementKind: settlement.kind,
        removedSettlementTxHash: txHash,
      },
    });
    return true;
  });
}

/** Step 5 for parts. Returns the ids of the part settlements put back to PENDING. */
export async function watchConfirmedPartSettlements(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions & { onlyJobIds?: string[] } = {},
): Promise<string[]> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("milestone_settlements as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .innerJoin("job_milestones as m", "m.id", "s.milestone_id")
    .select(["s.id", "s.tx_hash", "j.escrow_job_id", "j.escrow_payer", "m.position"])
    .where("s.status", "=", "CONFIRMED")
    .where("s.tx_hash", "is not", null)
    .where("j.chain_id", "=", chain.chainId)
    .where("s.confirmed_at", ">", new Date(now.getTime() - REORG_WATCH_MS));
  if (options.onlyJobIds)
    q = options.onlyJobIds.length > 0 ? q.where("j.id", "in", options.onlyJobIds) : q.where(sql<boolean>`false`);
  const rows = await q.orderBy("s.confirmed_at", "desc").limit(200).execute();
  const reopened: string[] = [];
  for (const row of rows) {
    if (await isStillMined(chain, row.tx_hash!)) continue;
    // Settled on chain in another transaction meanwhile: nothing to send. A job without a payer
    // lost its deposit with the part's payment (a deeper reorganisation; step 4 unfunded it): nothing
    // settled the part, and it is sent again only once the job is funded again (settlementRound).
    if (row.escrow_payer) {
      const settledBlock = await partSettledBlock({
        config: chain,
        escrowJobId: row.escrow_job_id,
        payer: row.escrow_payer as Address,
        part: row.position - 1,
      });
      if (settledBlock !== 0n) continue;
    }
    if (await reopenPartSettlement(ctx, row.id, row.tx_hash!)) reopened.push(row.id);
  }
  return reopened;
}

/** The part's state before its settlement confirmed: what its settlement worker finds again. */
const PART_STATUS_BEFORE = { RELEASE: "APPROVED", SPLIT: "DISPUTED", REFUND: "REFUNDED" } as const;

async function reopenPartSettlement(ctx: ServiceContext, settlementId: string, txHash: string): Promise<boolean> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const settlement = await trx
      .selectFrom("milestone_settlements")
      .select(["job_id", "milestone_id", "kind"])
      .where("id", "=", settlementId)
      .executeTakeFirstOrThrow();
    // Lock order: the job, then its part, as every part's path takes them.
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "agent_id", "status"])
      .where("id", "=", settlement.job_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (!(await reopenRow(trx, "milestone_settlements", settlementId, txHash, now))) return false;
    const part = await trx
      .updateTable("job_milestones")
      .set({
        status: PART_STATUS_BEFORE[settlement.kind],
        settled_at: null,
        ...(settlement.kind === "REFUND"
          ? {}
          : { release_held_reason: "the payment was removed by a chain reorganisation; it is being sent again" }),
        updated_at: now,
      })
      .where("id", "=", settlement.milestone_id)
      .returning(["id", "position"])
      .executeTakeFirstOrThrow();
    // Its last part had completed the job: in progress again until that part is paid again.
    if (job.status === "COMPLETED" && settlement.kind !== "REFUND")
      await trx
        .updateTable("jobs")
        .set({ status: "IN_PROGRESS", completed_at: null, release_tx_hash: null, updated_at: now })
        .where("id", "=", job.id)
        .execute();
    await publishEvent(trx, {
      type: "escrow.settlement_reorged",
      jobId: job.id,
      to: [...(await jobRecipients(trx, job)), ...(await operatorUserIds(trx, ctx.config))],
      data: {
        jobId: job.id,
        milestoneId: part.id,
        position: part.position,
        kind: settlement.kind,
        removedTxHash: txHash,
        nextAction: "RESEND",
      },
    });
    return true;
  });
}

/**
 * Step 5 for strays: a stray deposit's refund that a reorganisation removed. The deposit still in
 * its slot is owed again (REFUND_PENDING: the next step sends its kept transaction again, once: the
 * contract refunds a slot once); a deposit removed with it is owed nothing (VANISHED: the money
 * never left the payer).
 * Returns the ids of the deposits it changed.
 */
export async function watchRefundedStrays(
  ctx: ServiceContext,
  chain: ChainConfig,
  options: WatchOptions = {},
): Promise<string[]> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("escrow_deposits")
    .select(["id", "escrow_job_id", "payer", "refund_tx_hash", "escrow_version"])
    .where("status", "=", "REFUNDED")
    .where("chain_id", "=", chain.chainId)
    .where("refund_tx_hash", "is not", null)
    .where("refunded_at", ">", new Date(now.getTime() - REORG_WATCH_MS));
  q = q.where(onlyTheseEscrowJobs(options));
  const rows = await q.orderBy("refunded_at", "desc").limit(200).execute();
  const changed: string[] = [];
  for (const row of rows) {
    const removed = row.refund_tx_hash!;
    if (await isStillMined(chain, removed)) continue;
    const slot = await getEscrow({
      config: chain,
      escrowJobId: row.escrow_job_id,
      payer: row.payer as Address,
      version: row.escrow_version as EscrowVersion,
    });
    // Refunded in another transaction (or settled another way): nothing is owed.
    if (slot.state !== "FUNDED" && slot.state !== "NONE") continue;
    // The deposit still in its slot: owed again (the engine's reopenRow; its kept transaction is
    // asked about and broadcast again by step 3). Removed with it: the money never left the payer.
    const owed = slot.state === "FUNDED";
    const updated = owed
      ? await reopenRow(ctx.db, "escrow_deposits", row.id, removed, now)
      : (
          await ctx.db
            .updateTable("escrow_deposits")
            .set({
              status: "VANISHED",
              refund_tx_hash: null,
              refunded_at: null,
              lease_until: null,
              last_error: `the refund ${removed} was removed by a chain reorganisation with the deposit itself; nothing is owed`,
              updated_at: now,
            })
            .where("id", "=", row.id)
            .where("status", "=", "REFUNDED")
            .where("refund_tx_hash", "=", removed)
            .executeTakeFirst()
        ).numUpdatedRows > 0n;
    if (updated) {
      log.warn({ depositId: row.id, removedTxHash: removed, owed }, "a stray deposit's refund was reorganised away");
      changed.push(row.id);
    }
  }
  return changed;
}

/** One round of the deposit watcher (escrow/worker.ts). */
export async function watchDeposits(ctx: ServiceContext, options: WatchOptions & { onlyJobIds?: string[] } = {}) {
  const chain = ctx.config.chain;
  if (!chain) return null;
  const scanned = await scanDeposits(ctx, chain, options);
  const lostDeposits = await watchRegisteredDeposits(ctx, chain, options);
  const reopenedSettlements = await watchConfirmedSettlements(ctx, chain, options);
  const reopenedParts = await watchConfirmedPartSettlements(ctx, chain, options);
  const reopenedStrays = await watchRefundedStrays(ctx, chain, options);
  const toRefund = await decideDeposits(ctx, chain, options);
  const refunds = await sendStrayRefunds(ctx, chain, options);
  // EscrowV2 slots the parties (or anyone, after the expiry) settled without the service.
  const settledOutside = await followOutsideSettlements(ctx, { now: options.now, onlyJobIds: options.onlyJobIds });
  return {
    scanned,
    lostDeposits,
    reopenedSettlements,
    reopenedParts,
    reopenedStrays,
    toRefund,
    refunds,
    settledOutside,
  };
}
