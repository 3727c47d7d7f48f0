import { fail } from "../errors";
import { sql, type Selectable, type Transaction } from "kysely";
import type { z } from "zod";
import {
  WITHDRAWAL_MIN_USDC,
  type CreateWithdrawalRequest,
  type LedgerEntry,
  type ListLedgerQuery,
  type Withdrawal,
} from "@/lib/api/schemas/rewards";
import { formatUsdc, parseUsdc, normaliseDecimal } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import type { Database, WalletWithdrawalsTable } from "../db/schema";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { chainKeyOf, explorerTxUrl, managedWalletAddress, rewardsKey } from "./amounts";
import { requirePayableAddress } from "../payouts/payable-address";
import { ownerOf, requireHumanOwner, requireOwner } from "./owner";
import { log } from "../log";
import {
  recordOnce,
  runSettlement,
  sendKeptTransfer,
  settleDue,
  watchConfirmedTransfers,
} from "../escrow/settlement-engine";
import type { SettlementWay, TransferSent } from "../escrow/settlement-engine";

async function balanceUnits(db: Transaction<Database> | ServiceContext["db"], owner: string): Promise<bigint> {
  const row = await db
    .selectFrom("wallet_ledger")
    .select(
      sql<string>`coalesce(sum(case when direction = 'CREDIT' then amount_usdc else -amount_usdc end), 0)`.as(
        "balance",
      ),
    )
    .where("owner_user_id", "=", owner)
    .executeTakeFirstOrThrow();
  return parseUsdc(normaliseDecimal(Number(row.balance) < 0 ? "0" : row.balance));
}

// GET /v1/wallet
export async function getWallet(ctx: ServiceContext, actor: Actor) {
  const owner = requireOwner(actor);
  const pending = await ctx.db
    .selectFrom("wallet_withdrawals")
    .select(sql<string>`coalesce(sum(amount_usdc), 0)`.as("n"))
    .where("owner_user_id", "=", owner)
    .where("status", "=", "PENDING")
    .executeTakeFirstOrThrow();
  return {
    managedWalletAddress: managedWalletAddress(ctx.config.chain),
    balanceUsdc: formatUsdc(await balanceUnits(ctx.db, owner)),
    pendingWithdrawalUsdc: normaliseDecimal(pending.n),
    chainId: ctx.config.chain?.chainId ?? null,
  };
}

// GET /v1/wallet/ledger
export async function listLedger(ctx: ServiceContext, actor: Actor, query: z.output<typeof ListLedgerQuery>) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  const owner = ownerOf(actor);
  let q = ctx.db.selectFrom("wallet_ledger").selectAll();
  q = q.where((eb) => {
    const mine = [];
    if (owner) mine.push(eb("owner_user_id", "=", owner));
    if (actor.kind === "AGENT") mine.push(eb("agent_id", "=", actor.agentId));
    return eb.or(mine);
  });
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "desc"));
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  const data: Array<z.input<typeof LedgerEntry>> = page.rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    direction: r.direction,
    amountUsdc: normaliseDecimal(r.amount_usdc),
    rewardId: r.reward_id,
    withdrawalId: r.withdrawal_id,
    bidId: r.bid_id,
    jobId: r.job_id,
    agentId: r.agent_id,
    memo: r.memo,
    createdAt: r.created_at.toISOString(),
  }));
  return { items: data, meta: page.meta };
}

function presentWithdrawal(ctx: ServiceContext, w: Selectable<WalletWithdrawalsTable>): z.input<typeof Withdrawal> {
  return {
    id: w.id,
    toAddress: w.to_address,
    amountUsdc: normaliseDecimal(w.amount_usdc),
    status: w.status,
    txHash: w.status === "FAILED" ? null : w.sent_tx_hash,
    explorerUrl: explorerTxUrl(ctx.config.chain, w.sent_tx_hash),
    failureReason: w.failure_reason,
    createdAt: w.created_at.toISOString(),
    confirmedAt: w.confirmed_at?.toISOString() ?? null,
  };
}

/**
 * POST /v1/wallet/withdrawals. The debit and the withdrawal are one transaction under a lock on
 * the owner's user row, so parallel withdrawals cannot spend the same balance.
 */
export async function createWithdrawal(
  ctx: ServiceContext,
  actor: Actor,
  input: z.output<typeof CreateWithdrawalRequest>,
  options: { idempotencyKey?: string } = {},
) {
  const owner = requireHumanOwner(actor);
  const chain = requireChain(ctx);
  const to = await requirePayableAddress(ctx, input.toAddress, "toAddress"); // payouts/payable-address.ts: never the escrow, the token, a service wallet or an address the token refuses
  const amount = parseUsdc(input.amountUsdc);
  if (amount <= 0n) throw fail("VALIDATION_FAILED", ["amountUsdc must be greater than 0"]);
  // Each withdrawal is a transfer whose gas the rewards wallet pays: dust would cost more than it moves.
  if (amount < parseUsdc(WITHDRAWAL_MIN_USDC)) {
    throw fail(
      "WITHDRAWAL_BELOW_MINIMUM",
      `a withdrawal moves at least ${WITHDRAWAL_MIN_USDC} USDC (each one is a transfer whose gas the marketplace pays)`,
      { minimumUsdc: WITHDRAWAL_MIN_USDC },
    );
  }
  const id = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom("users").select("id").where("id", "=", owner).forUpdate().executeTakeFirstOrThrow();
    // A retry of this key whose first run debited and then died: that withdrawal, not a second one.
    if (options.idempotencyKey) {
      const earlier = await trx
        .selectFrom("wallet_withdrawals")
        .select("id")
        .where("owner_user_id", "=", owner)
        .where("idempotency_key", "=", options.idempotencyKey)
        .executeTakeFirst();
      if (earlier) return earlier.id;
    }
    const balance = await balanceUnits(trx, owner);
    if (amount > balance)
      throw fail("INSUFFICIENT_BALANCE", `the managed wallet holds ${formatUsdc(balance)} USDC for you`, {
        balanceUsdc: formatUsdc(balance),
      });
    const w = await trx
      .insertInto("wallet_withdrawals")
      .values({
        owner_user_id: owner,
        to_address: to,
        amount_usdc: formatUsdc(amount),
        chain_key: chainKeyOf(chain),
        idempotency_key: options.idempotencyKey ?? null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx
      .insertInto("wallet_ledger")
      .values({
        owner_user_id: owner,
        agent_id: null,
        kind: "WITHDRAWAL",
        direction: "DEBIT",
        amount_usdc: formatUsdc(amount),
        reward_id: null,
        withdrawal_id: w.id,
        bid_id: null,
        job_id: null,
        memo: `withdrawal to ${to}`,
      })
      .execute();
    return w.id;
  });
  const row = await sendWithdrawal(ctx, id).catch(async (error) => {
    log.warn({ withdrawalId: id, reason: (error as Error).message }, "withdrawal failed");
    return ctx.db.selectFrom("wallet_withdrawals").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  });
  return presentWithdrawal(ctx, row);
}

export async function getWithdrawal(ctx: ServiceContext, actor: Actor, id: string) {
  const owner = requireOwner(actor);
  const row = await ctx.db
    .selectFrom("wallet_withdrawals")
    .selectAll()
    .where("id", "=", id)
    .where("owner_user_id", "=", owner)
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "withdrawal not found");
  return presentWithdrawal(ctx, row);
}

type WithdrawalRow = Selectable<WalletWithdrawalsTable>;

/**
 * Sends a withdrawal exactly once, from the rewards wallet, through the one settlement engine
 * (escrow/settlement-engine.ts). Its receipt: CONFIRMED, or on a revert FAILED with the amount
 * credited back, in one transaction.
 */
export function sendWithdrawal(ctx: ServiceContext, id: string, options: { now?: Date } = {}): Promise<WithdrawalRow> {
  return runSettlement(ctx, withdrawalWay(ctx, options.now), id, options);
}

function withdrawalWay(ctx: ServiceContext, now?: Date): SettlementWay<WithdrawalRow, undefined, TransferSent> {
  return {
    table: "wallet_withdrawals",
    send: (chain, _, claimed) =>
      sendKeptTransfer(ctx, "wallet_withdrawals", chain, claimed, {
        privateKey: rewardsKey(chain),
        amount: parseUsdc(normaliseDecimal(claimed.amount_usdc)),
        beforeSigning: async () => ctx.crashPoints?.beforeWithdrawalSign?.(claimed.id),
        beforeBroadcast: async () => ctx.crashPoints?.beforeWithdrawalBroadcast?.(claimed.id),
      }),
    afterSend: (claimed) => ctx.crashPoints?.afterWithdrawalSend?.(claimed.id),
    record: (_, claimed, sent) =>
      ctx.db.transaction().execute(async (trx) => {
        const at = now ?? ctx.now();
        const receipt = sent.reverted
          ? { status: "FAILED", failure_reason: "the USDC transfer reverted" }
          : { status: "CONFIRMED", confirmed_at: at, last_error: null };
        const { row, changed } = await recordOnce<WithdrawalRow>(
          trx,
          "wallet_withdrawals",
          claimed.id,
          { ...receipt, lease_until: null, updated_at: at },
          sent.txHash,
        );
        if (changed && sent.reverted)
          await trx
            .insertInto("wallet_ledger")
            .values({
              owner_user_id: row.owner_user_id,
              kind: "WITHDRAWAL_REVERSAL",
              direction: "CREDIT",
              amount_usdc: row.amount_usdc,
              withdrawal_id: row.id,
              memo: "withdrawal reverted; amount returned",
            })
            .onConflict((oc) => oc.columns(["withdrawal_id", "kind"]).doNothing())
            .execute();
        return row;
      }),
    logFields: (row) => ({ withdrawalId: row.id }),
  };
}

/** The worker's half: PENDING withdrawals whose lease ran out (a crash, an outage, a backoff) are sent or confirmed. */
export async function finishPendingWithdrawals(
  ctx: ServiceContext,
  options: { now?: Date; only?: string[] } = {},
): Promise<number> {
  const chain = ctx.config.chain;
  if (!chain) return 0;
  const onChain = chainKeyOf(chain);
  const way = withdrawalWay(ctx, options.now);
  return (await settleDue(ctx, "wallet_withdrawals", way, (eb) => eb("chain_key", "=", onChain), options)).confirmed;
}

/**
 * A confirmed withdrawal whose transfer a chain reorganisation removed goes back to PENDING with its
 * signed transaction kept (the engine's reorganisation watcher): finishPendingWithdrawals then asks
 * the chain about exactly that transaction and broadcasts it again (its nonce is free again), so it
 * is paid once, never twice. Returns the ids put back.
 */
export const watchConfirmedWithdrawals = (ctx: ServiceContext, options: { now?: Date; only?: string[] } = {}) =>
  watchConfirmedTransfers(
    ctx,
    "wallet_withdrawals",
    (chain) => ({ column: "chain_key", value: chainKeyOf(chain) }),
    options,
  );
