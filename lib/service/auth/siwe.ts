import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { getAddress, verifyMessage } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import type { ServiceContext } from "../context";
import { USER_SESSION_PREFIX, hashSecret, newSecret } from "./tokens";
import { presentUser } from "./present-user";
import { userForAddress } from "./user-for-address";

/**
 * A nonce lives 5 minutes by the database's clock, the one clock every instance shares: an instance
 * whose own clock runs ahead must not find another instance's fresh nonce expired.
 */
const NONCE_TTL = sql`interval '5 minutes'`;
/** Local chain id used for sign-in when no payment chain is configured. */
const FALLBACK_CHAIN_ID = 31337;

/** 128 bits from the OS, as hex: SIWE nonces must be alphanumeric and unguessable. */
export async function createNonce(ctx: ServiceContext) {
  const nonce = randomBytes(16).toString("hex");
  await ctx.db
    .insertInto("siwe_nonces")
    .values({ nonce, expires_at: sql<Date>`now() + ${NONCE_TTL}` })
    .execute();
  // Expired nonces are worthless; drop them as we go.
  await ctx.db
    .deleteFrom("siwe_nonces")
    .where("expires_at", "<", sql<Date>`now() - interval '1 hour'`)
    .execute();
  return { nonce };
}

const refuse = (reason: string) => fail("SIWE_INVALID", `sign-in refused: ${reason}`);

/**
 * EIP-4361 verification: the message must be for this site (domain and URI), this chain, a nonce we
 * issued that is unused and unexpired, and be signed by its address. The nonce is spent atomically,
 * so a replayed signature is refused.
 */
export async function verifySiwe(ctx: ServiceContext, input: { message: string; signature: string }, siteUrl: string) {
  let fields: ReturnType<typeof parseSiweMessage>;
  try {
    fields = parseSiweMessage(input.message);
  } catch {
    throw fail("VALIDATION_FAILED", ["message is not an EIP-4361 message"]);
  }
  if (!fields.address || !fields.nonce || !fields.domain || !fields.uri || !fields.chainId) {
    throw fail("VALIDATION_FAILED", ["message is not a complete EIP-4361 message"]);
  }
  const site = new URL(siteUrl);
  const chainId = ctx.config.chain?.chainId ?? FALLBACK_CHAIN_ID;
  if (fields.domain !== site.host) throw refuse(`the message is for ${fields.domain}, not ${site.host}`);
  let uri: URL;
  try {
    uri = new URL(fields.uri);
  } catch {
    throw refuse("the message URI is not a URL");
  }
  if (uri.origin !== site.origin) throw refuse(`the message URI must be on ${site.origin}`);
  if (fields.chainId !== chainId)
    throw refuse(`the message is for chain ${fields.chainId}, this site signs in on chain ${chainId}`);
  if (!validateSiweMessage({ message: fields, domain: site.host, time: ctx.now() })) {
    throw refuse("the message has expired or is not yet valid");
  }
  const valid = await verifyMessage({
    address: fields.address,
    message: input.message,
    signature: input.signature as `0x${string}`,
  }).catch(() => false);
  if (!valid) throw refuse("the signature does not match the address");

  const spent = await ctx.db
    .updateTable("siwe_nonces")
    .set({ used_at: ctx.now() })
    .where("nonce", "=", fields.nonce)
    .where("used_at", "is", null)
    .where("expires_at", ">", sql<Date>`now()`)
    .returning("nonce")
    .executeTakeFirst();
  if (!spent) throw refuse("the nonce is unknown, expired or already used; request a new one");

  const address = getAddress(fields.address);
  const token = newSecret(USER_SESSION_PREFIX);
  const expiresAt = new Date(ctx.now().getTime() + ctx.config.sessionTtlHours * 3600_000);
  const user = await ctx.db.transaction().execute(async (trx) => {
    const row = await userForAddress(trx, address);
    await trx
      .insertInto("user_sessions")
      .values({ token_hash: hashSecret(token), user_id: row.id, expires_at: expiresAt })
      .execute();
    return row;
  });
  return { token, expiresAt: expiresAt.toISOString(), user: await presentUser(ctx, user.id) };
}

export async function endSession(ctx: ServiceContext, token: string) {
  await ctx.db
    .updateTable("user_sessions")
    .set({ revoked_at: ctx.now() })
    .where("token_hash", "=", hashSecret(token))
    .execute();
  return { ended: true };
}
