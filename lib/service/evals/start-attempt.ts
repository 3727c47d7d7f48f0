import { fail, DomainError } from "../errors";
import { getAddress, type Address, type Hex } from "viem";
import { packPaymentMessage } from "@/lib/api/schemas/evals";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { HttpError } from "../http/errors";
import { isUniqueViolation } from "../db/errors";
import { agentForActor, getAttemptDto } from "./attempts";
import { assertNoCooldown } from "./cooldown";
import { canSeeUnlisted, getPackOrThrow, paymentFor } from "./packs";
import { randomInt } from "node:crypto";
import type { EvalMode } from "../db/schema";
import { queuePackPayout } from "./pack-payouts";
import { assertAttemptBudget, budgetGroupOf } from "./attempt-budget";

/** A certification may be renewed (the pack retaken) from this many days before it expires. */
const RENEWAL_WINDOW_DAYS = 30;
import { packTreasury } from "./treasury";
import { verifyPackPayment } from "./verify-pack-payment";
import { errorFields, log } from "../log";
import { payPackByX402, paymentRequiredHeaders, type X402Request } from "./x402";

const ONE_OPEN_ATTEMPT = "eval_attempts_one_open";
const PAYMENT_ONCE = "eval_attempts_payment_once";

/**
 * POST /v1/evals/packs/:id/attempts. A free pack starts at once. A paid pack starts only with a
 * verified payment: its transfer plus the sender's signature naming this pack, this agent and the
 * hash (see verifyPackPayment). A payment starts one attempt, ever: the unique
 * constraint on eval_attempts.payment_tx_hash decides, so parallel requests with the same hash
 * give one attempt. One unsubmitted attempt per agent and pack (a partial unique index), and a
 * certified agent does not retake its pack. After a failed attempt the next waits out a cooldown
 * that doubles with each consecutive failure (cooldown.ts: 429 PACK_COOLDOWN). The agent's group
 * (its owner, or for an unclaimed agent the network of this request) has a budget of attempts per
 * pack and day (attempt-budget.ts: 429 PACK_ATTEMPT_LIMIT). Every refusal changes nothing.
 *
 * A paid pack is also bought by x402 v2 (x402.ts): the unpaid start's 402 carries PAYMENT-REQUIRED,
 * and a PAYMENT-SIGNATURE (an EIP-3009 authorization) is verified, claimed in x402_payments (one
 * row per authorization, before anything is sent), settled on chain by this service, and the
 * attempt answers with PAYMENT-RESPONSE naming the settlement transaction.
 */
export async function startAttempt(
  ctx: ServiceContext,
  actor: Actor,
  packIdOrSlug: string,
  input: { agentId?: string; txHash?: string; signature?: string; mode?: EvalMode },
  clientIp: string | null = null,
  x402: X402Request | null = null,
) {
  const pack = await getPackOrThrow(ctx, packIdOrSlug);
  if (pack.review_status !== "APPROVED") {
    if (!(await canSeeUnlisted(ctx, actor, pack))) throw fail("NOT_FOUND", "certification pack not found");
    throw fail(
      "PACK_NOT_APPROVED",
      "this pack waits for the operator's approval (or was refused): it cannot be taken yet",
      { reviewStatus: pack.review_status },
    );
  }
  // Community packs draw items from a pool: they are taken by sessions only.
  if (pack.publisher_user_id !== null && input.mode === undefined) {
    throw fail(
      "NOT_A_SESSION",
      `"${pack.title}" is taken by sessions: send a mode (CLOSED_BOOK, TOOL_ALLOWED or WEB_ALLOWED)`,
    );
  }
  const agent = await agentForActor(ctx, actor, input.agentId);

  // A valid certification is not retaken, except in its last RENEWAL_WINDOW_DAYS (renewal) or after it expired.
  const certified = await ctx.db
    .selectFrom("eval_certifications")
    .select(["id", "expires_at"])
    .where("agent_id", "=", agent.id)
    .where("pack_id", "=", pack.id)
    .executeTakeFirst();
  if (certified && certified.expires_at.getTime() > ctx.now().getTime() + RENEWAL_WINDOW_DAYS * 86_400_000) {
    throw fail(
      "ALREADY_CERTIFIED",
      `agent ${agent.id} already holds the certification "${pack.title}" (renewable from ${RENEWAL_WINDOW_DAYS} days before it expires)`,
      { certificationId: certified.id },
    );
  }
  const open = await ctx.db
    .selectFrom("eval_attempts")
    .select("id")
    .where("agent_id", "=", agent.id)
    .where("pack_id", "=", pack.id)
    .where("status", "=", "IN_PROGRESS")
    .executeTakeFirst();
  if (open) throw openAttemptConflict(open.id);
  // Before any payment is checked: a payment sent during the cooldown stays unused for later.
  await assertNoCooldown(ctx.db, ctx.config, ctx.now(), agent.id, pack.id);
  const group = budgetGroupOf(agent, clientIp, ctx.config.originHashSecret);
  // Checked again, under the group's lock, where the attempt is inserted; here before any payment.
  await assertAttemptBudget(ctx.db, ctx.config, ctx.now(), pack.id, group, { lock: false });

  let payment: { txHash: string; units: bigint; payer: Address } | null = null;
  let x402PaymentId: string | null = null;
  let settlementHeader: string | null = null;
  const paymentSignature = x402?.paymentSignature ?? null;
  if (pack.is_free) {
    if (input.txHash !== undefined || input.signature !== undefined || paymentSignature !== null) {
      throw fail("VALIDATION_FAILED", [
        `txHash and signature (or PAYMENT-SIGNATURE) must not be sent: "${pack.title}" is a free pack`,
      ]);
    }
  } else if (paymentSignature !== null) {
    if (input.txHash !== undefined || input.signature !== undefined)
      throw fail("VALIDATION_FAILED", [
        "send either the PAYMENT-SIGNATURE header (x402) or txHash and signature, not both",
      ]);
    ({ payment, x402PaymentId, settlementHeader } = await payPackByX402(ctx, pack, agent.id, x402!));
  } else {
    const chain = requireChain(ctx);
    if (input.txHash === undefined) {
      const headers: Record<string, string> = x402 ? paymentRequiredHeaders(ctx, pack, x402) : {};
      throw new HttpError(
        402,
        `"${pack.title}" costs ${Number(pack.price_usdc)} USDC: transfer exactly that to payment.payTo, then send its txHash and the sender's signature of payment.messageTemplate (or pay by x402: see the PAYMENT-REQUIRED header)`,
        "PAYMENT_REQUIRED",
        {
          payment: await paymentFor(ctx, pack),
        },
        headers,
      );
    }
    if (input.signature === undefined) {
      throw fail("VALIDATION_FAILED", [
        "signature is required with txHash: sign payment.messageTemplate (with agentId and txHash filled in) with the key of the address that sent the transfer",
      ]);
    }
    const txHash = input.txHash.toLowerCase();
    const used = await ctx.db
      .selectFrom("eval_attempts")
      .select("id")
      .where("payment_tx_hash", "=", txHash)
      .executeTakeFirst();
    if (used) throw paymentUsedConflict();

    const units = parseUsdc(pack.price_usdc!);
    const treasury = packTreasury(ctx);
    const message = packPaymentMessage({ packId: pack.id, agentId: agent.id, txHash, chainId: chain.chainId });
    let check;
    try {
      check = await verifyPackPayment({
        config: chain,
        txHash,
        treasury,
        expectedAmount: units,
        message,
        signature: input.signature as Hex,
      });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      log.warn(errorFields(error), "pack payment check failed");
      throw fail("CHAIN_UNAVAILABLE", "the payment chain could not be reached to check the payment; retry shortly");
    }
    if (!check.ok) {
      throw fail(`PAYMENT_${check.code}`, `the payment was not accepted: ${check.reason}`, {
        ...(check.confirmations !== undefined
          ? { confirmations: check.confirmations, required: chain.confirmations }
          : {}),
      });
    }
    payment = { txHash, units: check.amount, payer: getAddress(check.payer) };
  }

  let attemptId: string;
  try {
    attemptId = await ctx.db.transaction().execute(async (trx) => {
      await assertAttemptBudget(trx, ctx.config, ctx.now(), pack.id, group, { lock: true });
      const pool = await trx
        .selectFrom("eval_questions")
        .select(["id", "points", "section"])
        .where("pack_id", "=", pack.id)
        .where("retired_at", "is", null)
        .orderBy("position")
        .execute();
      // A session draws its items from the pool in a random order of its own.
      const drawn =
        input.mode === undefined
          ? pool
          : shuffle(pool).slice(0, Math.min(pack.items_per_attempt ?? pool.length, pool.length));
      const totalPoints = drawn.reduce((sum, q) => sum + q.points, 0);
      const passScore =
        pack.pass_percent === null ? pack.pass_score : Math.ceil((pack.pass_percent * totalPoints) / 100);
      const now = ctx.now();
      const row = await trx
        .insertInto("eval_attempts")
        .values({
          pack_id: pack.id,
          agent_id: agent.id,
          payment_tx_hash: payment?.txHash ?? null,
          payment_units: payment ? payment.units.toString() : null,
          payer_address: payment?.payer ?? null,
          answers: null,
          score: null,
          question_count: drawn.length,
          pass_score: passScore,
          total_points: totalPoints,
          budget_group: group.key,
          started_at: now,
          ...(input.mode !== undefined
            ? {
                mode: input.mode,
                started_at: now,
                deadline_at:
                  pack.time_limit_seconds === null ? null : new Date(now.getTime() + pack.time_limit_seconds * 1000),
              }
            : {}),
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      if (input.mode !== undefined) {
        await trx
          .insertInto("eval_attempt_items")
          .values(
            drawn.map((q, index) => ({
              attempt_id: row.id,
              position: index + 1,
              pack_id: pack.id,
              question_id: q.id,
              max_points: q.points,
            })),
          )
          .execute();
      }
      // The price of a community pack goes to its publisher, less the fee: one payout per paid attempt.
      if (x402PaymentId !== null)
        await trx.updateTable("x402_payments").set({ attempt_id: row.id }).where("id", "=", x402PaymentId).execute();
      if (payment && pack.publisher_user_id !== null)
        await queuePackPayout(trx, ctx, {
          attemptId: row.id,
          packId: pack.id,
          publisherUserId: pack.publisher_user_id,
          units: payment.units,
        });
      return row.id;
    });
  } catch (error) {
    // A settled x402 payment that started nothing stays with its agent and pack (x402.ts): the answer says it moved.
    const withSettlement = (refusal: DomainError) => {
      if (settlementHeader !== null) refusal.headers["PAYMENT-RESPONSE"] = settlementHeader;
      return refusal;
    };
    if (isUniqueViolation(error, PAYMENT_ONCE)) throw withSettlement(paymentUsedConflict());
    if (isUniqueViolation(error, ONE_OPEN_ATTEMPT)) {
      const existing = await ctx.db
        .selectFrom("eval_attempts")
        .select("id")
        .where("agent_id", "=", agent.id)
        .where("pack_id", "=", pack.id)
        .where("status", "=", "IN_PROGRESS")
        .executeTakeFirst();
      throw withSettlement(openAttemptConflict(existing?.id ?? null));
    }
    if (error instanceof DomainError) throw withSettlement(error);
    throw error;
  }
  if (settlementHeader !== null) x402!.setHeader("PAYMENT-RESPONSE", settlementHeader);
  return await getAttemptDto(ctx, attemptId);
}

/** Fisher–Yates with the CSPRNG: an agent cannot predict the next attempt's order. */
function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function openAttemptConflict(existingAttemptId: string | null) {
  return fail(
    "ATTEMPT_IN_PROGRESS",
    "the agent has an unsubmitted attempt at this pack; answer it with POST /v1/evals/attempts/:id/answers",
    {
      existingAttemptId,
    },
  );
}

function paymentUsedConflict() {
  return fail("PAYMENT_ALREADY_USED", "this transaction already paid for an attempt; each payment starts one attempt");
}
