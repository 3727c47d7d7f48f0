import { getAddress, isHex, type Address, type Hex } from "viem";
import {
  assertKept,
  TransferStateUnknown,
  waitForDurableTransfer,
  type StoredSend,
} from "@/lib/chain/durable-transfer";
import { EscrowError, chainFailureReason } from "@/lib/chain/escrow/errors";
import {
  fundingAuthorizationTypedData,
  relayFundingAuthorization,
  type FundingTerms,
} from "@/lib/chain/escrow/fund-by-authorization";
import { parseUsdc } from "@/lib/chain/units";
import { depositExpiresAt } from "@/lib/chain/escrow/contracts";
import type { Actor } from "../auth/actor";
import { requireChain, type ServiceContext } from "../context";
import { DomainError, fail } from "../errors";
import { isFundable } from "../escrow/deposit-rules";
import { presentJob } from "./present-job";
import { getJobRowOrThrow } from "./read-job";
import { fundJobWithDeposit } from "./register-escrow";

/**
 * POST /v1/jobs/:id/escrow/authorization: a poster with USDC and no ETH funds the job in one
 * signature. Without {signature} the answer is 409 FUNDING_SIGNATURE_REQUIRED
 * carrying USDC's EIP-3009 `ReceiveWithAuthorization` to EscrowV2 for the job's budget, from the
 * poster's signed-in wallet, whose nonce binds it to this job and the expiry the service chose
 * (Job.escrowExpiryNeededAt, within the contract's bounds); the terms are kept on the job. With the
 * signature, the service sends depositWithAuthorization, paying the gas (simulated first: a
 * signature that is not the payer's for these terms is 400 FUNDING_SIGNATURE_INVALID and nothing is
 * sent), waits for it and registers the deposit as PATCH /v1/jobs/:id/escrow does. The relayed
 * transaction is kept on the job before it is broadcast, so a repeated call never sends a second.
 */

/** How long the authorization asked for stays good: time to sign and send it back. */
const AUTHORIZATION_TTL_SECONDS = 3600;
/** How long the request waits for the deposit's receipt before answering FUNDING_PENDING. */
const RECEIPT_WAIT_MS = 60_000;

export async function fundJobBySignature(ctx: ServiceContext, actor: Actor, jobId: string, signature?: string) {
  const chain = requireChain(ctx);
  if (!chain.escrowV2Address)
    throw fail("INVALID_STATE", "this deployment has no EscrowV2: fund with a deposit (PATCH /v1/jobs/:id/escrow)");
  if (actor.kind !== "USER")
    throw fail(
      "HUMAN_SESSION_REQUIRED",
      "funding by signature is signed by the poster's wallet: sign in with it (an agent funds with a deposit of its own)",
    );
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may fund this job");
  if (job.escrow_tx_hash !== null)
    throw fail("ALREADY_FUNDED", "this job is already funded", { escrowTxHash: job.escrow_tx_hash });
  if (!isFundable(job)) throw fail("INVALID_STATE", `a ${job.status} job cannot be funded`);
  const user = await ctx.db.selectFrom("users").select("address").where("id", "=", actor.userId).executeTakeFirst();
  if (!user?.address) throw fail("HUMAN_SESSION_REQUIRED", "sign in with the wallet that pays");
  const payer = getAddress(user.address);
  const amount = parseUsdc(job.budget_usdc);

  const kept = keptTerms(job, payer, amount);
  const nowSeconds = Math.floor(ctx.now().getTime() / 1000);
  // A relay already sent is asked about again whatever is sent now; else a signature counts only
  // for terms still open (asked for, by this payer, and not past their last second).
  const relayed = job.escrow_auth_tx_hash !== null;
  if (!relayed && (!signature || !kept || kept.validBefore < BigInt(nowSeconds))) {
    throw fail(
      "FUNDING_SIGNATURE_REQUIRED",
      signature
        ? "the signature was made for terms that are no longer open (expired, or new ones were asked for since): sign `authorization` and call again with {signature}"
        : "sign `authorization` (EIP-712, USDC's ReceiveWithAuthorization) with the wallet you are signed in with, and call again with {signature}: the marketplace sends the deposit and pays its gas",
      await offerTerms(ctx, job, payer, amount, nowSeconds),
    );
  }
  if (!relayed && !isHex(signature)) throw fail("VALIDATION_FAILED", "signature must be 0x-prefixed hex");

  let txHash: Hex;
  try {
    txHash = await relayFundingAuthorization({
      config: chain,
      privateKey: chain.operatorPrivateKey,
      terms: kept ?? keptTermsOrThrow(job, payer, amount),
      signature: (signature ?? "0x") as Hex,
      durable: keptOnJob(ctx, job),
    });
  } catch (error) {
    if (error instanceof EscrowError && error.code === "REVERTED")
      throw fail("FUNDING_SIGNATURE_INVALID", `the deposit was refused before anything was sent: ${error.message}`, {
        reason: error.message,
        ...(await offerTerms(ctx, job, payer, amount, nowSeconds)),
      });
    throw fail("CHAIN_UNAVAILABLE", `the deposit could not be sent (${chainFailureReason(error)}); call again`);
  }

  const pending = (why: string) =>
    fail(
      "FUNDING_PENDING",
      `the deposit was sent (${txHash}) but ${why}: the job is funded once it is final (the service attaches it within a minute, or PATCH /v1/jobs/:id/escrow with this txHash)`,
      { txHash },
    );
  try {
    await waitForDurableTransfer(chain, txHash, RECEIPT_WAIT_MS, { untilFinal: false });
  } catch (error) {
    if (error instanceof TransferStateUnknown) throw pending("its receipt has not come yet");
    throw error;
  }
  try {
    await fundJobWithDeposit(ctx, job, txHash);
  } catch (error) {
    // Mined but not final yet: the registration is the same call later, or the watcher's.
    if (error instanceof DomainError && error.code === "DEPOSIT_NOT_CONFIRMED") throw pending("it is not final yet");
    throw error;
  }
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

type JobTerms = {
  escrow_job_id: string;
  escrow_auth_payer: string | null;
  escrow_auth_expires_at: string | number | bigint | null;
  escrow_auth_valid_before: string | number | bigint | null;
};

/** The terms kept on the job, when they are this payer's. */
function keptTerms(job: JobTerms, payer: Address, amount: bigint): FundingTerms | null {
  if (!job.escrow_auth_payer || job.escrow_auth_expires_at == null || job.escrow_auth_valid_before == null) return null;
  if (getAddress(job.escrow_auth_payer) !== payer) return null;
  return {
    escrowJobId: job.escrow_job_id,
    payer,
    amount,
    expiresAt: BigInt(job.escrow_auth_expires_at),
    validBefore: BigInt(job.escrow_auth_valid_before),
  };
}

function keptTermsOrThrow(job: JobTerms, payer: Address, amount: bigint): FundingTerms {
  const terms = keptTerms(job, payer, amount);
  if (!terms) throw fail("FORBIDDEN", "the deposit already sent for this job was signed by another wallet");
  return terms;
}

/**
 * Fresh terms (the slot's expiry: what the job needs, moved into the contract's bounds from now;
 * good for an hour), kept on the job, and the data to sign for them.
 */
async function offerTerms(
  ctx: ServiceContext,
  job: JobTerms & { id: string; escrow_expiry_needed_at: Date | null },
  payer: Address,
  amount: bigint,
  nowSeconds: number,
) {
  const now = new Date(nowSeconds * 1000);
  // What the job needs, within the contract's bounds counted from about now (as the fund page does).
  const expiresAt = depositExpiresAt(job.escrow_expiry_needed_at ?? now, now);
  const terms: FundingTerms = {
    escrowJobId: job.escrow_job_id,
    payer,
    amount,
    expiresAt,
    validBefore: BigInt(nowSeconds + AUTHORIZATION_TTL_SECONDS),
  };
  let authorization;
  try {
    authorization = await fundingAuthorizationTypedData(requireChain(ctx), terms);
  } catch (error) {
    throw fail("CHAIN_UNAVAILABLE", `the token could not be read (${chainFailureReason(error)}); try again`);
  }
  await ctx.db
    .updateTable("jobs")
    .set({
      escrow_auth_payer: payer,
      escrow_auth_expires_at: terms.expiresAt.toString(),
      escrow_auth_valid_before: terms.validBefore.toString(),
    })
    .where("id", "=", job.id)
    .where("escrow_auth_tx_hash", "is", null)
    .execute();
  return { authorization, expiresAt: new Date(Number(terms.expiresAt) * 1000).toISOString() };
}

/** The relayed deposit, kept on the job before it is broadcast. */
function keptOnJob(
  ctx: ServiceContext,
  job: { id: string; escrow_auth_raw_tx: string | null; escrow_auth_tx_hash: string | null },
): StoredSend {
  const jobs = () => ctx.db.updateTable("jobs").where("id", "=", job.id);
  return {
    stored: { raw: job.escrow_auth_raw_tx as Hex | null, hash: job.escrow_auth_tx_hash as Hex | null },
    forget: async (hash) => {
      await jobs()
        .set({ escrow_auth_raw_tx: null, escrow_auth_tx_hash: null })
        .where("escrow_auth_tx_hash", "=", hash)
        .execute();
    },
    record: async (raw, hash) => {
      assertKept(
        await jobs()
          .set({ escrow_auth_raw_tx: raw, escrow_auth_tx_hash: hash })
          .where("escrow_auth_tx_hash", "is", null)
          .executeTakeFirst(),
      );
    },
  };
}
