import { DomainError, fail } from "../errors";
import { encodeFunctionData, getAddress, isAddressEqual, isHex, parseSignature, type Address, type Hex } from "viem";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { eip3009ABI, isEIP3009Payload, toFacilitatorEvmSigner, type ExactEIP3009Payload } from "@x402/evm";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { privateKeyToAccount } from "viem/accounts";
import { usdcAbi } from "@/lib/chain/abi";
import type { ChainConfig } from "@/lib/chain/config";
import { getPublicClient } from "@/lib/chain/clients";
import {
  assertKept,
  sendDurableUsdcTransfer,
  storedTransferState,
  TransferStateUnknown,
  waitForDurableTransfer,
} from "@/lib/chain/durable-transfer";
import { isChainUnavailable } from "@/lib/chain/escrow/errors";
import { parseUsdc } from "@/lib/chain/units";
import { isStillMined } from "@/lib/chain/escrow/deposit-events";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { errorFields, log } from "../log";
import { requireChain } from "../context";
import { isDatabaseUnavailable, isUniqueViolation } from "../db/errors";
import { packTreasury } from "./treasury";
import type { PackRow } from "./packs";

// x402 v2 (the revision docs/agents.md names): a paid pack's start answers an unpaid request with 402 and a
// PAYMENT-REQUIRED header (base64 JSON PaymentRequired: one `exact` requirement on the payment
// chain, CAIP-2 network eip155:<chainId>, USDC's EIP-712 domain in `extra`, and the bazaar
// discovery extension); a retry with PAYMENT-SIGNATURE (base64 JSON PaymentPayload carrying an
// EIP-3009 transferWithAuthorization) is verified with @x402/evm's exact facilitator scheme and
// settled by this service itself (its own facilitator: the operator key pays the gas), once; the
// answer carries PAYMENT-RESPONSE (base64 JSON SettleResponse with the transaction hash).

export const X402_VERSION = 2;
/** How long a client's authorization should stay valid (PaymentRequirements.maxTimeoutSeconds). */
const MAX_TIMEOUT_SECONDS = 300;
const CONSTRAINT_ONCE = "x402_payments_authorization_once";

export const caip2Network = (chain: ChainConfig) => `eip155:${chain.chainId}` as const;

/** The one way to pay this pack by x402: exact USDC to the treasury on the payment chain. */
export function packRequirements(ctx: ServiceContext, pack: Pick<PackRow, "price_usdc">): PaymentRequirements {
  const chain = requireChain(ctx);
  return {
    scheme: "exact",
    network: caip2Network(chain),
    asset: getAddress(chain.tokenAddress),
    amount: parseUsdc(pack.price_usdc!).toString(),
    payTo: packTreasury(ctx),
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    // USDC's EIP-712 domain (FiatTokenV2: name "USD Coin", version "2"; the test USDC the same).
    extra: { name: "USD Coin", version: "2", assetTransferMethod: "eip3009" },
  };
}

/** The PaymentRequired object of a pack's start (its resource, the requirement, discovery metadata). */
export function packPaymentRequired(
  ctx: ServiceContext,
  pack: Pick<PackRow, "id" | "title" | "price_usdc">,
  siteUrl: string,
  error: string,
): PaymentRequired {
  const discovery = declareDiscoveryExtension({
    bodyType: "json",
    input: { agentId: "<your agent id; optional with an agent key>" },
    inputSchema: {
      properties: {
        agentId: { type: "string", description: "The agent taking the pack (an agent key takes packs for itself)" },
        mode: {
          type: "string",
          enum: ["CLOSED_BOOK", "TOOL_ALLOWED", "WEB_ALLOWED"],
          description: "Community packs are taken as sessions",
        },
      },
    },
    output: { example: { data: { id: "<attempt id>", packId: pack.id, status: "IN_PROGRESS", paid: true } } },
  }) as unknown as { bazaar: { info: { input: Record<string, unknown> } } };
  // The HTTP method is filled in by the bazaar server extension from the route; we declare it here.
  discovery.bazaar.info.input = { ...discovery.bazaar.info.input, method: "POST" };
  return {
    x402Version: X402_VERSION,
    error,
    resource: {
      url: `${siteUrl.replace(/\/$/, "")}/v1/evals/packs/${pack.id}/attempts`,
      description: `Start an attempt at the certification pack "${pack.title}" (Authorization: Bearer <agent key> as well)`,
      mimeType: "application/json",
    },
    accepts: [packRequirements(ctx, pack)],
    extensions: discovery,
  };
}

export const encodeRequired = (required: PaymentRequired) => encodePaymentRequiredHeader(required);
export const encodeResponse = (response: SettleResponse) => encodePaymentResponseHeader(response);

/** A 402 that x402 clients read from its PAYMENT-REQUIRED header (and people from its body). */
export function paymentRefused(
  required: PaymentRequired,
  code: "PAYMENT_AUTHORIZATION_REFUSED" | "PAYMENT_SETTLEMENT_FAILED",
  reason: string,
  message: string,
  settle?: SettleResponse,
) {
  const error = fail(code, message, { reason, ...(settle ? { transaction: settle.transaction } : {}) });
  error.headers["PAYMENT-REQUIRED"] = encodeRequired({ ...required, error: reason });
  if (settle) error.headers["PAYMENT-RESPONSE"] = encodeResponse(settle);
  return error;
}

/** The PAYMENT-SIGNATURE header decoded and held to this pack's requirement, or a 400. */
export function readPaymentSignature(
  header: string,
  requirements: PaymentRequirements,
): { payload: PaymentPayload; eip3009: ExactEIP3009Payload } {
  let payload: PaymentPayload;
  try {
    payload = decodePaymentSignatureHeader(header);
  } catch {
    throw malformed("it is not base64-encoded JSON of an x402 PaymentPayload");
  }
  if (payload?.x402Version !== X402_VERSION) throw malformed(`x402Version must be ${X402_VERSION}`);
  const accepted = payload.accepted;
  if (!accepted || accepted.scheme !== requirements.scheme || accepted.network !== requirements.network) {
    throw malformed(`accepted must be the "exact" scheme on ${requirements.network}`);
  }
  if (
    typeof accepted.asset !== "string" ||
    !isHex(accepted.asset) ||
    !isAddressEqual(accepted.asset as Address, requirements.asset as Address)
  ) {
    throw malformed(`accepted.asset must be USDC at ${requirements.asset}`);
  }
  if (
    typeof accepted.payTo !== "string" ||
    !isHex(accepted.payTo) ||
    !isAddressEqual(accepted.payTo as Address, requirements.payTo as Address)
  ) {
    throw malformed(`accepted.payTo must be the pack treasury ${requirements.payTo}`);
  }
  if (accepted.amount !== requirements.amount)
    throw malformed(`accepted.amount must be exactly ${requirements.amount} units`);
  const inner = payload.payload;
  if (!isEIP3009Payload(inner as never))
    throw malformed("payload must be an EIP-3009 authorization with its signature");
  const eip3009 = inner as unknown as ExactEIP3009Payload;
  const a = eip3009.authorization;
  const wellFormed =
    isHex(eip3009.signature) &&
    isHex(a.from) &&
    a.from.length === 42 &&
    isHex(a.to) &&
    a.to.length === 42 &&
    isHex(a.nonce) &&
    a.nonce.length === 66 &&
    [a.value, a.validAfter, a.validBefore].every((v) => typeof v === "string" && /^[0-9]{1,78}$/.test(v));
  if (!wellFormed)
    throw malformed(
      "payload.authorization needs from, to (addresses), value, validAfter, validBefore (decimal strings), nonce (32 bytes) and a hex signature",
    );
  return { payload, eip3009 };
}

function malformed(why: string) {
  return fail("PAYMENT_SIGNATURE_INVALID", `the PAYMENT-SIGNATURE header is not a payment for this pack: ${why}`);
}

/**
 * The library's exact-scheme verification (signature against USDC's EIP-712 domain, recipient,
 * amount, validity window, asset contract, and a simulation of transferWithAuthorization), after
 * two plain reads that give the two refusals people meet most their own words: an authorization
 * already used on chain, and a payer without the funds.
 */
export async function verifyAuthorization(
  chain: ChainConfig,
  payload: PaymentPayload,
  eip3009: ExactEIP3009Payload,
  requirements: PaymentRequirements,
): Promise<{ ok: true } | { ok: false; reason: string; used?: true }> {
  const client = getPublicClient(chain);
  const from = getAddress(eip3009.authorization.from);
  const [used, balance] = await Promise.all([
    client.readContract({
      address: chain.tokenAddress,
      abi: usdcAbi,
      functionName: "authorizationState",
      args: [from, eip3009.authorization.nonce as Hex],
    }),
    client.readContract({ address: chain.tokenAddress, abi: usdcAbi, functionName: "balanceOf", args: [from] }),
  ]);
  if (used) return { ok: false, reason: "invalid_exact_evm_eip3009_nonce_already_used", used: true };
  if (balance < BigInt(requirements.amount)) return { ok: false, reason: "insufficient_funds" };
  const scheme = new ExactEvmScheme(facilitatorSigner(chain));
  const verdict = await scheme.verify(payload, requirements);
  return verdict.isValid ? { ok: true } : { ok: false, reason: verdict.invalidReason ?? "invalid_payment" };
}

/** Reads and signature checks through our chain client; this service sends settlements itself (settleAuthorization). */
function facilitatorSigner(chain: ChainConfig) {
  const client = getPublicClient(chain);
  const notHere = () =>
    Promise.reject(new Error("settlement goes through settleAuthorization (recorded before it is sent)"));
  return toFacilitatorEvmSigner({
    address: privateKeyToAccount(chain.operatorPrivateKey).address,
    readContract: (args) => client.readContract(args as never) as Promise<unknown>,
    verifyTypedData: (args) => client.verifyTypedData(args as never),
    getCode: (args) => client.getCode(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    writeContract: notHere,
    sendTransaction: notHere,
  });
}

export type ClaimedPayment = {
  id: string;
  /** It settled before (and started no attempt): no send, the attempt is started now. */
  resumed: boolean;
  txHash: Hex | null;
  /** A send of an earlier request whose outcome nobody recorded (its process died): settled from these. */
  stored: { raw: Hex | null; hash: Hex | null };
  payer: Address;
  units: bigint;
};

/**
 * Claims the authorization for this agent and pack: its row is inserted (the unique constraint
 * on token, payer and nonce decides between parallel submissions), before anything is sent, and
 * after `verify` passed. The same authorization again is refused, except that a payment which
 * settled without starting an attempt (the agent had one open meanwhile) is handed back to the
 * same agent at the same pack, so resubmitting it starts the attempt it paid for; and one sent by
 * a request that never recorded the outcome (its process died) is taken up from its stored
 * transaction (settleAuthorization asks the chain what became of it, and never signs a second
 * while the first can still be mined).
 */
export async function claimAuthorization(
  ctx: ServiceContext,
  input: { packId: string; agentId: string; eip3009: ExactEIP3009Payload; network: string },
  verify: () => Promise<void>,
): Promise<ClaimedPayment> {
  const chain = requireChain(ctx);
  const a = input.eip3009.authorization;
  const payer = getAddress(a.from);
  const key = {
    token_address: chain.tokenAddress.toLowerCase(),
    payer_address: payer.toLowerCase(),
    nonce: a.nonce.toLowerCase(),
  };
  const claimedRow = () =>
    ctx.db
      .selectFrom("x402_payments")
      .selectAll()
      .where("token_address", "=", key.token_address)
      .where("payer_address", "=", key.payer_address)
      .where("nonce", "=", key.nonce)
      .executeTakeFirst();
  const existing = await claimedRow();
  if (existing) {
    if (existing.attempt_id === null && existing.agent_id === input.agentId && existing.pack_id === input.packId) {
      const units = BigInt(existing.amount_units);
      if (existing.status === "SETTLED")
        return {
          id: existing.id,
          resumed: true,
          txHash: existing.tx_hash as Hex,
          stored: { raw: null, hash: null },
          payer,
          units,
        };
      if (existing.status === "SENT")
        return {
          id: existing.id,
          resumed: false,
          txHash: null,
          stored: { raw: existing.raw_tx as Hex, hash: existing.tx_hash as Hex },
          payer,
          units,
        };
    }
    throw authorizationUsed();
  }
  await ctx.crashPoints?.beforePaymentVerify?.(key.nonce);
  try {
    await verify();
  } catch (error) {
    // A parallel submission of the same authorization claimed it while this one was checked on
    // chain, and its settlement may already show there (the nonce used, the payer's balance
    // down): this one lost the race, as it would on the unique constraint, whatever the chain said.
    if (await claimedRow()) throw authorizationUsed();
    throw error;
  }
  const validBefore = BigInt(a.validBefore) > 8_000_000_000n ? 8_000_000_000n : BigInt(a.validBefore);
  try {
    const inserted = await ctx.db
      .insertInto("x402_payments")
      .values({
        ...key,
        network: input.network,
        pay_to: a.to.toLowerCase(),
        amount_units: a.value,
        valid_before: new Date(Number(validBefore) * 1000),
        pack_id: input.packId,
        agent_id: input.agentId,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return {
      id: inserted.id,
      resumed: false,
      txHash: null,
      stored: { raw: null, hash: null },
      payer,
      units: BigInt(a.value),
    };
  } catch (error) {
    if (isUniqueViolation(error, CONSTRAINT_ONCE)) throw authorizationUsed();
    throw error;
  }
}

/** Seconds an x402 client whose settlement's outcome is not known yet is asked to wait before sending the same signature. */
export const X402_RETRY_AFTER_SECONDS = 5;

/** True when a transaction was signed and kept for this payment (it may have moved the money). */
export async function paymentWasSent(ctx: ServiceContext, paymentId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom("x402_payments")
    .select(["status", "tx_hash"])
    .where("id", "=", paymentId)
    .executeTakeFirst()
    .catch(() => null);
  // A database that does not answer cannot rule a send out.
  return row === null || row === undefined ? true : row.tx_hash !== null;
}

export function authorizationUsed() {
  return fail(
    "PAYMENT_ALREADY_USED",
    "this payment authorization was already submitted: each authorization pays for one attempt, once",
  );
}

/**
 * Sends transferWithAuthorization from the operator key (the facilitator pays the gas), its
 * signed bytes and hash stored on the claimed row before the broadcast, and waits for the receipt.
 * Returns the hash on success; a revert marks the row FAILED (nothing moved) and returns its reason.
 */
export async function settleAuthorization(
  ctx: ServiceContext,
  paymentId: string,
  eip3009: ExactEIP3009Payload,
  stored: ClaimedPayment["stored"],
): Promise<{ ok: true; txHash: Hex } | { ok: false; txHash: Hex | null; reason: string }> {
  const chain = requireChain(ctx);
  const a = eip3009.authorization;
  const sig = parseSignature(eip3009.signature as Hex);
  const data = encodeFunctionData({
    abi: eip3009ABI,
    functionName: "transferWithAuthorization",
    args: [
      getAddress(a.from),
      getAddress(a.to),
      BigInt(a.value),
      BigInt(a.validAfter),
      BigInt(a.validBefore),
      a.nonce as Hex,
      Number(sig.v ?? BigInt(sig.yParity + 27)),
      sig.r,
      sig.s,
    ],
  });
  let hash: Hex;
  try {
    hash = await sendDurableUsdcTransfer({
      chain,
      privateKey: chain.operatorPrivateKey,
      to: getAddress(a.to),
      amount: BigInt(a.value),
      data,
      stored,
      // Its nonce went to another transaction of the operator: never mined, so the authorization is unused; sign anew.
      forget: async (hash) => {
        await ctx.db
          .updateTable("x402_payments")
          .set({ status: "PENDING", raw_tx: null, tx_hash: null })
          .where("id", "=", paymentId)
          .where("tx_hash", "=", hash.toLowerCase())
          .execute();
      },
      record: async (raw, signedHash) => {
        assertKept(
          await ctx.db
            .updateTable("x402_payments")
            .set({ status: "SENT", raw_tx: raw, tx_hash: signedHash.toLowerCase() })
            .where("id", "=", paymentId)
            .where("status", "=", "PENDING")
            .executeTakeFirst(),
        );
      },
    });
  } catch (error) {
    // Nothing stored means nothing sent: the row gives way, and the same authorization may be tried again.
    const row = await ctx.db
      .selectFrom("x402_payments")
      .select("status")
      .where("id", "=", paymentId)
      .executeTakeFirst();
    if (row?.status === "PENDING")
      await ctx.db.deleteFrom("x402_payments").where("id", "=", paymentId).where("status", "=", "PENDING").execute();
    throw error;
  }
  // The buyer is answered once the transfer is mined with the configured confirmations, as x402
  // facilitators answer (a payer waits seconds, not the minutes `safe` trails by on Base); a
  // reorganisation that removes it later is caught by watchSettledPayments, which sends it again.
  const receipt = await waitForDurableTransfer(chain, hash, undefined, { untilFinal: false });
  if (receipt.status !== "success") {
    const reason = "the transferWithAuthorization transaction reverted";
    await ctx.db
      .updateTable("x402_payments")
      .set({ status: "FAILED", failure_reason: reason })
      .where("id", "=", paymentId)
      .execute();
    return { ok: false, txHash: hash, reason };
  }
  await ctx.crashPoints?.afterPaymentSettled?.(paymentId);
  await ctx.db
    .updateTable("x402_payments")
    .set({ status: "SETTLED", settled_at: ctx.now() })
    .where("id", "=", paymentId)
    .execute();
  return { ok: true, txHash: hash };
}

/**
 * The x402 worker's half: finishes every payment left SENT (its request lost its database, its
 * client went away) from what the chain says of its kept transaction: mined and successful,
 * SETTLED (the payer's next submission of the same signature gets its attempt); mined and reverted,
 * FAILED; still waiting, broadcast again; dead (its nonce went to another transaction of the
 * operator, so the authorization moved nothing), the row gives way so the payer may submit the same
 * authorization again. A chain that cannot say leaves the row for the next round.
 */
export async function finishSentPayments(
  ctx: ServiceContext,
  options: { now?: Date; only?: string[] } = {},
): Promise<number> {
  const chain = ctx.config.chain;
  if (!chain) return 0;
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("x402_payments")
    .select(["id", "raw_tx", "tx_hash"])
    .where("status", "=", "SENT")
    .where("network", "=", caip2Network(chain))
    // A request still waiting for its own receipt finishes it itself.
    .where("created_at", "<", new Date(now.getTime() - SENT_LEFT_AFTER_MS));
  if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
  let finished = 0;
  for (const row of await q.orderBy("created_at").limit(20).execute()) {
    if (!row.raw_tx || !row.tx_hash) continue;
    try {
      const found = await storedTransferState(chain, row.raw_tx as Hex, row.tx_hash as Hex);
      if (found.state === "WAITING") {
        await getPublicClient(chain)
          .sendRawTransaction({ serializedTransaction: row.raw_tx as Hex })
          .catch(() => undefined);
        continue;
      }
      const sent = ctx.db.updateTable("x402_payments").where("id", "=", row.id).where("status", "=", "SENT");
      if (found.state === "DEAD") {
        await ctx.db
          .deleteFrom("x402_payments")
          .where("id", "=", row.id)
          .where("status", "=", "SENT")
          .where("tx_hash", "=", row.tx_hash)
          .execute();
      } else if (found.receipt.status === "success") {
        await sent.set({ status: "SETTLED", settled_at: now }).execute();
      } else {
        await sent
          .set({ status: "FAILED", failure_reason: "the transferWithAuthorization transaction reverted" })
          .execute();
      }
      finished += 1;
    } catch (error) {
      log.warn({ paymentId: row.id, ...errorFields(error) }, "x402 payment not finished this round");
    }
  }
  return finished;
}

/** A SENT payment older than this is the worker's: its request has given up waiting for the receipt. */
const SENT_LEFT_AFTER_MS = 5 * 60_000;

/** Settled x402 payments are re-checked on chain for this long after their settlement. */
const PAYMENT_REORG_WATCH_MS = 24 * 60 * 60_000;

/**
 * A settled payment whose transferWithAuthorization a chain reorganisation removed is SENT again,
 * its signed transaction kept: finishSentPayments broadcasts exactly that transaction again (the
 * authorization is unused again on the reorganised chain), so the treasury is paid once. Returns
 * the ids put back.
 */
export async function watchSettledPayments(
  ctx: ServiceContext,
  options: { now?: Date; only?: string[] } = {},
): Promise<string[]> {
  const chain = ctx.config.chain;
  if (!chain) return [];
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("x402_payments")
    .select(["id", "tx_hash"])
    .where("status", "=", "SETTLED")
    .where("tx_hash", "is not", null)
    .where("raw_tx", "is not", null)
    .where("network", "=", caip2Network(chain))
    .where("settled_at", ">", new Date(now.getTime() - PAYMENT_REORG_WATCH_MS));
  if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
  const reopened: string[] = [];
  for (const row of await q.orderBy("settled_at", "desc").limit(200).execute()) {
    if (await isStillMined(chain, row.tx_hash!)) continue;
    const back = await ctx.db
      .updateTable("x402_payments")
      .set({ status: "SENT", settled_at: null })
      .where("id", "=", row.id)
      .where("status", "=", "SETTLED")
      .where("tx_hash", "=", row.tx_hash)
      .executeTakeFirst();
    if (back.numUpdatedRows > 0n) {
      log.warn(
        { paymentId: row.id, txHash: row.tx_hash },
        "a reorganisation removed an x402 settlement; it is sent again",
      );
      reopened.push(row.id);
    }
  }
  return reopened;
}

/** The x402 side of a request: its PAYMENT-SIGNATURE header, where it was sent, and how to answer with PAYMENT-RESPONSE. */
export interface X402Request {
  paymentSignature: string | null;
  siteUrl: string;
  setHeader(name: string, value: string): void;
}

/**
 * A paid pack bought by x402: its PAYMENT-SIGNATURE (an EIP-3009 authorization) is read, verified,
 * claimed in x402_payments (one row per authorization, before anything is sent) and settled on chain
 * by this service; a claim already settled is resumed. Gives what the attempt records, the claimed
 * row (the attempt is written onto it) and the PAYMENT-RESPONSE the start answers with.
 */
export async function payPackByX402(
  ctx: ServiceContext,
  pack: Pick<PackRow, "id" | "title" | "price_usdc">,
  agentId: string,
  x402: X402Request,
): Promise<{
  payment: { txHash: string; units: bigint; payer: Address };
  x402PaymentId: string;
  settlementHeader: string;
}> {
  const chain = requireChain(ctx);
  const requirements = packRequirements(ctx, pack);
  const required = packPaymentRequired(ctx, pack, x402.siteUrl, "payment refused");
  const { payload, eip3009 } = readPaymentSignature(x402.paymentSignature!, requirements);
  const claimed = await claimAuthorization(
    ctx,
    { packId: pack.id, agentId, eip3009, network: caip2Network(chain) },
    async () => {
      const verdict = await verifyAuthorization(chain, payload, eip3009, requirements);
      if (verdict.ok) return;
      if (verdict.used)
        throw fail(
          "PAYMENT_ALREADY_USED",
          "this payment authorization was already used on chain: each authorization pays once",
        );
      throw paymentRefused(
        required,
        "PAYMENT_AUTHORIZATION_REFUSED",
        verdict.reason,
        `the x402 payment was refused: ${verdict.reason}`,
      );
    },
  );
  let txHash = claimed.txHash;
  if (!claimed.resumed) {
    let settled;
    try {
      settled = await settleAuthorization(ctx, claimed.id, eip3009, claimed.stored);
    } catch (error) {
      if (error instanceof DomainError || isDatabaseUnavailable(error)) throw error;
      // A transaction was signed and may have moved the money: the payment is not "failed" until
      // the chain says so. The same PAYMENT-SIGNATURE completes it (the kept transaction is asked
      // about, never signed again), and the x402 worker finishes it from the chain meanwhile.
      if (error instanceof TransferStateUnknown || (await paymentWasSent(ctx, claimed.id))) {
        log.warn({ paymentId: claimed.id, ...errorFields(error) }, "x402 settlement outcome unknown");
        const unknown = fail(
          "CHAIN_UNAVAILABLE",
          "the settlement was sent but the chain has not said what became of it: send the same PAYMENT-SIGNATURE again after Retry-After",
        );
        unknown.headers["retry-after"] = String(X402_RETRY_AFTER_SECONDS);
        throw unknown;
      }
      if (isChainUnavailable(error)) throw error;
      const reason =
        (error as { shortMessage?: string }).shortMessage ?? "the settlement transaction could not be sent";
      throw paymentRefused(
        required,
        "PAYMENT_SETTLEMENT_FAILED",
        reason,
        `the x402 payment could not be settled: ${reason}`,
        {
          success: false,
          errorReason: "transaction_failed",
          transaction: "",
          network: caip2Network(chain),
          payer: claimed.payer,
        },
      );
    }
    if (!settled.ok) {
      throw paymentRefused(
        required,
        "PAYMENT_SETTLEMENT_FAILED",
        settled.reason,
        `the x402 payment could not be settled: ${settled.reason}`,
        {
          success: false,
          errorReason: "transaction_failed",
          transaction: settled.txHash ?? "",
          network: caip2Network(chain),
          payer: claimed.payer,
        },
      );
    }
    txHash = settled.txHash;
  }
  return {
    payment: { txHash: txHash!.toLowerCase(), units: claimed.units, payer: claimed.payer },
    x402PaymentId: claimed.id,
    settlementHeader: encodeResponse({
      success: true,
      transaction: txHash!,
      network: caip2Network(chain),
      payer: claimed.payer,
    }),
  };
}

/** The PAYMENT-REQUIRED header of an unpaid start of a paid pack. */
export function paymentRequiredHeaders(
  ctx: ServiceContext,
  pack: Pick<PackRow, "id" | "title" | "price_usdc">,
  x402: X402Request,
): Record<string, string> {
  return {
    "PAYMENT-REQUIRED": encodeRequired(
      packPaymentRequired(ctx, pack, x402.siteUrl, "PAYMENT-SIGNATURE header is required"),
    ),
  };
}
