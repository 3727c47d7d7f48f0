import { getAddress, type Address, type Hex } from "viem";
import { packPaymentMessage } from "@/lib/api/schemas/evals";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { HttpError, badRequest, conflict } from "../http/errors";
import { isUniqueViolation } from "../db/errors";
import { agentForActor, getAttemptDto } from "./attempts";
import { assertNoCooldown } from "./cooldown";
import { getPackOrThrow, paymentFor } from "./packs";
import { packTreasury } from "./treasury";
import { verifyPackPayment } from "./verify-pack-payment";

const ONE_OPEN_ATTEMPT = "eval_attempts_one_open";
const PAYMENT_ONCE = "eval_attempts_payment_once";

/**
 * POST /v1/evals/packs/:id/attempts. A free pack starts at once. A paid pack starts only with a
 * verified payment: its transfer plus the sender's signature naming this pack, this agent and the
 * hash (see verifyPackPayment). A payment starts one attempt, ever: the unique
 * constraint on eval_attempts.payment_tx_hash decides, so parallel requests with the same hash
 * give one attempt. One unsubmitted attempt per agent and pack (a partial unique index), and a
 * certified agent does not retake its pack. After a failed attempt the next waits out a cooldown
 * that doubles with each consecutive failure (cooldown.ts: 429 PACK_COOLDOWN). Every refusal
 * changes nothing.
 */
export async function startAttempt(ctx: ServiceContext, actor: Actor, packIdOrSlug: string, input: { agentId?: string; txHash?: string; signature?: string }) {
  const pack = await getPackOrThrow(ctx, packIdOrSlug);
  const agent = await agentForActor(ctx, actor, input.agentId);

  const certified = await ctx.db.selectFrom("eval_certifications").select("id").where("agent_id", "=", agent.id).where("pack_id", "=", pack.id).executeTakeFirst();
  if (certified) throw conflict("ALREADY_CERTIFIED", `agent ${agent.id} already holds the certification "${pack.title}"`, { certificationId: certified.id });
  const open = await ctx.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agent.id).where("pack_id", "=", pack.id).where("status", "=", "IN_PROGRESS").executeTakeFirst();
  if (open) throw openAttemptConflict(open.id);
  // Before any payment is checked: a payment sent during the cooldown stays unused for later.
  await assertNoCooldown(ctx.db, ctx.config, ctx.now(), agent.id, pack.id);

  let payment: { txHash: string; units: bigint; payer: Address } | null = null;
  if (pack.is_free) {
    if (input.txHash !== undefined || input.signature !== undefined) throw badRequest([`txHash and signature must not be sent: "${pack.title}" is a free pack`]);
  } else {
    const chain = requireChain(ctx);
    if (input.txHash === undefined) {
      throw new HttpError(402, `"${pack.title}" costs ${Number(pack.price_usdc)} USDC: transfer exactly that to payment.payTo, then send its txHash and the sender's signature of payment.messageTemplate`, "PAYMENT_REQUIRED", {
        payment: await paymentFor(ctx, pack),
      });
    }
    if (input.signature === undefined) {
      throw badRequest([
        "signature is required with txHash: sign payment.messageTemplate (with agentId and txHash filled in) with the key of the address that sent the transfer",
      ]);
    }
    const txHash = input.txHash.toLowerCase();
    const used = await ctx.db.selectFrom("eval_attempts").select("id").where("payment_tx_hash", "=", txHash).executeTakeFirst();
    if (used) throw paymentUsedConflict();

    const units = parseUsdc(pack.price_usdc!);
    const treasury = packTreasury(ctx);
    const message = packPaymentMessage({ packId: pack.id, agentId: agent.id, txHash, chainId: chain.chainId });
    let check;
    try {
      check = await verifyPackPayment({ config: chain, txHash, treasury, expectedAmount: units, message, signature: input.signature as Hex });
    } catch (error) {
      if (error instanceof HttpError) throw error;
      console.error("[evals] payment check failed", error);
      throw new HttpError(503, "the payment chain could not be reached to check the payment; retry shortly", "CHAIN_UNAVAILABLE");
    }
    if (!check.ok) {
      throw new HttpError(422, `the payment was not accepted: ${check.reason}`, `PAYMENT_${check.code}`, {
        ...(check.confirmations !== undefined ? { confirmations: check.confirmations, required: chain.confirmations } : {}),
      });
    }
    payment = { txHash, units: check.amount, payer: getAddress(check.payer) };
  }

  const questionCount = await ctx.db.selectFrom("eval_questions").select((eb) => eb.fn.countAll<number>().as("n")).where("pack_id", "=", pack.id).executeTakeFirstOrThrow();
  let attemptId: string;
  try {
    const row = await ctx.db
      .insertInto("eval_attempts")
      .values({
        pack_id: pack.id,
        agent_id: agent.id,
        payment_tx_hash: payment?.txHash ?? null,
        payment_units: payment ? payment.units.toString() : null,
        payer_address: payment?.payer ?? null,
        answers: null,
        score: null,
        question_count: Number(questionCount.n),
        pass_score: pack.pass_score,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    attemptId = row.id;
  } catch (error) {
    if (isUniqueViolation(error, PAYMENT_ONCE)) throw paymentUsedConflict();
    if (isUniqueViolation(error, ONE_OPEN_ATTEMPT)) {
      const existing = await ctx.db.selectFrom("eval_attempts").select("id").where("agent_id", "=", agent.id).where("pack_id", "=", pack.id).where("status", "=", "IN_PROGRESS").executeTakeFirst();
      throw openAttemptConflict(existing?.id ?? null);
    }
    throw error;
  }
  return { data: await getAttemptDto(ctx, attemptId) };
}

function openAttemptConflict(existingAttemptId: string | null) {
  return conflict("ATTEMPT_IN_PROGRESS", "the agent has an unsubmitted attempt at this pack; answer it with POST /v1/evals/attempts/:id/answers", {
    existingAttemptId,
  });
}

function paymentUsedConflict() {
  return conflict("PAYMENT_ALREADY_USED", "this transaction already paid for an attempt; each payment starts one attempt");
}
