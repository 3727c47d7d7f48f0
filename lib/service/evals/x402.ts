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
import { storedTransferState, TransferStateUnknown } from "@/lib/chain/durable-transfer";
import { isChainUnavailable } from "@/lib/chain/escrow/errors";
import { parseUsdc } from "@/lib/chain/units";
import type { ExpressionBuilder, Selectable } from "kysely";
import type { Database, X402PaymentsTable } from "../db/schema";
// The one settlement engine, by its name: each call below is a step of its, not of this module.
import * as engine from "../escrow/settlement-engine";
import type { ServiceContext } from "../context";
import { log } from "../log";
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
  payer: Address;
  units: bigint;
};

/**
 * Claims the authorization for this agent and pack: its row is inserted (the unique constraint
 * on token, payer and nonce decides between parallel submissions), before anything is sent, and
 * after `verify` passed. The row is the settlement engine's intent (escrow/settlement-engine.ts):
 * PENDING until its transferWithAuthorization is SETTLED (or FAILED: reverted). The same
 * authorization again is refused, except by the same agent at the same pack while it has started
 * no attempt: a SETTLED payment is handed back (resubmitting it starts the attempt it paid for),
 * and a PENDING one is settled again through the engine, which asks the chain about a transaction
 * kept by an earlier request (its process died, its database went away) and never signs a second
 * while the first can still be mined; a request still holding the row is left to it.
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
    const mine =
      existing.attempt_id === null && existing.agent_id === input.agentId && existing.pack_id === input.packId;
    if (mine && existing.status !== "FAILED")
      return {
        id: existing.id,
        resumed: existing.status === "SETTLED",
        txHash: existing.status === "SETTLED" ? (existing.sent_tx_hash as Hex) : null,
        payer,
        units: BigInt(existing.amount_units),
      };
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
    return { id: inserted.id, resumed: false, txHash: null, payer, units: BigInt(a.value) };
  } catch (error) {
    if (isUniqueViolation(error, CONSTRAINT_ONCE)) throw authorizationUsed();
    throw error;
  }
}

/** Seconds an x402 client whose settlement's outcome is not known yet is asked to wait before sending the same signature. */
export const X402_RETRY_AFTER_SECONDS = 5;

export function authorizationUsed() {
  return fail(
    "PAYMENT_ALREADY_USED",
    "this payment authorization was already submitted: each authorization pays for one attempt, once",
  );
}

type PaymentRow = Selectable<X402PaymentsTable>;

/** What the paying request's send did, for its answer (the engine keeps only the row's state). */
interface SendOutcome {
  /** What the send threw (the engine stored its short reason in last_error). */
  error?: unknown;
  /** The transaction the send had mined: the money moved, whatever the database recorded. */
  txHash?: Hex;
}

const REVERTED = "the transferWithAuthorization transaction reverted";

/**
 * The x402 way through the one settlement engine: transferWithAuthorization from the operator key
 * (the facilitator pays the gas), kept in the row before it is broadcast. The paying request
 * passes the payer's authorization; the worker never has it (it is not kept), so its send only
 * asks the chain about a kept transaction and broadcasts it again, and never signs: a kept
 * transaction the chain shows dead (its nonce went to another transaction of the operator, so the
 * authorization moved nothing) is cleared, and the payer's next submission of the same
 * PAYMENT-SIGNATURE signs it anew.
 *
 * The one exception to the engine's finality (`untilFinal: false`): the buyer is answered once the
 * transfer is mined with the configured confirmations, as x402 facilitators answer (a payer waits
 * seconds, not the minutes `safe` trails by on Base); a reorganisation that removes it later is
 * caught by watchSettledPayments, and the worker sends exactly that transaction again.
 */
function paymentWay(
  ctx: ServiceContext,
  eip3009: ExactEIP3009Payload | null,
  outcome: SendOutcome = {},
): engine.SettlementWay<PaymentRow, undefined, engine.TransferSent> {
  return {
    table: "x402_payments",
    send: async (chain, _, claimed) => {
      try {
        const sent = await engine.sendKeptTransfer(
          ctx,
          "x402_payments",
          chain,
          { ...claimed, to_address: claimed.pay_to },
          {
            privateKey: chain.operatorPrivateKey,
            amount: BigInt(claimed.amount_units),
            data: eip3009 ? transferWithAuthorizationData(eip3009) : undefined,
            beforeSigning: eip3009
              ? undefined
              : async () => {
                  throw new Error(
                    "no transaction is kept and the authorization is not: the payer's next submission of it signs anew",
                  );
                },
            untilFinal: false,
          },
        );
        outcome.txHash = sent.txHash;
        return sent;
      } catch (error) {
        outcome.error = error;
        throw error;
      }
    },
    record: async (_, claimed, sent) => {
      await ctx.crashPoints?.afterPaymentSettled?.(claimed.id);
      const at = ctx.now();
      const receipt = sent.reverted
        ? { status: "FAILED", failure_reason: REVERTED }
        : { status: "SETTLED", settled_at: at, last_error: null };
      const set = { ...receipt, lease_until: null, updated_at: at };
      return (await engine.recordOnce<PaymentRow>(ctx.db, "x402_payments", claimed.id, set, sent.txHash)).row;
    },
    logFields: (row) => ({ paymentId: row.id }),
  };
}

/** The operator's call of USDC's transferWithAuthorization with the payer's signed authorization. */
export function transferWithAuthorizationData(eip3009: ExactEIP3009Payload): Hex {
  const a = eip3009.authorization;
  const sig = parseSignature(eip3009.signature as Hex);
  return encodeFunctionData({
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
}

/**
 * Settles a claimed payment inside the paying request, through the engine. Returns the settled
 * transaction; otherwise throws what the request answers: 402 PAYMENT_SETTLEMENT_FAILED when the
 * transfer reverted or nothing could be sent (the row gives way, and the same authorization may be
 * tried again); 503 with Retry-After while a transaction was signed and the chain or the database
 * has not settled its outcome (never "failed": the money may have moved; the same signature then
 * completes it); 409 PAYMENT_ALREADY_USED while another request holds it without having sent.
 */
async function settleInRequest(
  ctx: ServiceContext,
  chain: ChainConfig,
  claimed: ClaimedPayment,
  eip3009: ExactEIP3009Payload,
  required: PaymentRequired,
): Promise<Hex> {
  const outcome: SendOutcome = {};
  const way = paymentWay(ctx, eip3009, outcome);
  let row = await engine.runSettlement(ctx, way, claimed.id);
  // Another request (or the worker) holds its lease, its transaction kept: when the chain already
  // has it mined, that is the outcome; recorded once (recordOnce), nothing is sent.
  if (row.status === "PENDING" && !outcome.error && !outcome.txHash && row.sent_raw_tx && row.sent_tx_hash)
    row = await recordIfMined(ctx, chain, way, row);
  if (row.status === "SETTLED") return row.sent_tx_hash as Hex;
  const refusal = (reason: string, transaction: string) =>
    paymentRefused(required, "PAYMENT_SETTLEMENT_FAILED", reason, `the x402 payment could not be settled: ${reason}`, {
      success: false,
      errorReason: "transaction_failed",
      transaction,
      network: caip2Network(chain),
      payer: claimed.payer,
    });
  if (row.status === "FAILED") throw refusal(row.failure_reason ?? REVERTED, row.sent_tx_hash ?? "");
  const error = outcome.error;
  if (outcome.txHash || row.sent_tx_hash || error instanceof TransferStateUnknown) {
    log.warn({ paymentId: claimed.id, reason: row.last_error }, "x402 settlement outcome unknown");
    const unknown = fail(
      "CHAIN_UNAVAILABLE",
      "the settlement was sent but its outcome is not recorded yet: send the same PAYMENT-SIGNATURE again after Retry-After",
    );
    unknown.headers["retry-after"] = String(X402_RETRY_AFTER_SECONDS);
    throw unknown;
  }
  if (!error) {
    // Nothing kept and nothing sent by this request: either another request is sending it now
    // (409, as a parallel submission), or an earlier try found nothing it could send (the worker
    // cleared a dead transaction: last_error says so) and it waits out its backoff: 503 until then.
    if (!row.last_error || !row.lease_until) throw authorizationUsed();
    const waiting = fail(
      "CHAIN_UNAVAILABLE",
      `this payment is settled again after a short wait (${row.last_error}): send the same PAYMENT-SIGNATURE again after Retry-After`,
    );
    waiting.headers["retry-after"] = String(Math.max(1, Math.ceil((row.lease_until.getTime() - Date.now()) / 1000)));
    throw waiting;
  }
  // Nothing was signed, so nothing moved: the row gives way, and the same authorization may be tried again.
  await ctx.db
    .deleteFrom("x402_payments")
    .where("id", "=", claimed.id)
    .where("status", "=", "PENDING")
    .where("sent_tx_hash", "is", null)
    .execute();
  if (error instanceof DomainError || isDatabaseUnavailable(error) || isChainUnavailable(error)) throw error;
  throw refusal(
    (error as { shortMessage?: string }).shortMessage ?? "the settlement transaction could not be sent",
    "",
  );
}

/** A kept transaction the chain shows mined is recorded through the way (once); otherwise the row as it is. */
async function recordIfMined(
  ctx: ServiceContext,
  chain: ChainConfig,
  way: engine.SettlementWay<PaymentRow, undefined, engine.TransferSent>,
  row: PaymentRow,
): Promise<PaymentRow> {
  const found = await storedTransferState(chain, row.sent_raw_tx as Hex, row.sent_tx_hash as Hex).catch(() => null);
  if (found?.state !== "MINED") return row;
  return way.record(chain, row, { txHash: row.sent_tx_hash as Hex, reverted: found.receipt.status !== "success" });
}

/**
 * The x402 worker's half, through the engine: every payment owed with its transaction kept whose
 * lease ran out (its request lost its database, its client went away, a backoff) is finished from
 * what the chain says of that transaction: mined, SETTLED (the payer's next submission of the same
 * signature gets its attempt) or FAILED (reverted); waiting, broadcast again; dead, cleared for the
 * payer's next submission (paymentWay). Returns how many it settled.
 */
export async function finishSentPayments(
  ctx: ServiceContext,
  options: { now?: Date; only?: string[] } = {},
): Promise<number> {
  const chain = ctx.config.chain;
  if (!chain) return 0;
  // Only a payment whose transaction is kept: the worker has no authorization to sign one.
  const onChain = caip2Network(chain);
  const kept = (eb: ExpressionBuilder<Database, "x402_payments">) =>
    eb.and([eb("network", "=", onChain), eb("sent_raw_tx", "is not", null)]);
  return (await engine.settleDue(ctx, "x402_payments", paymentWay(ctx, null), kept, options)).confirmed;
}

/**
 * A settled payment whose transferWithAuthorization a chain reorganisation removed is owed again
 * (the engine's reorganisation watcher), its signed transaction kept: finishSentPayments broadcasts
 * exactly that transaction again (the authorization is unused again on the reorganised chain), so
 * the treasury is paid once. Returns the ids put back.
 */
export const watchSettledPayments = (ctx: ServiceContext, options: { now?: Date; only?: string[] } = {}) =>
  engine.watchConfirmedTransfers(
    ctx,
    "x402_payments",
    (chain) => ({ column: "network", value: caip2Network(chain) }),
    options,
  );

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
  const txHash = claimed.resumed ? claimed.txHash! : await settleInRequest(ctx, chain, claimed, eip3009, required);
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
