import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { NEW_AGENT_SCOPES, type AgentSignupRequest } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import { AGENT_KEY_PREFIX, CLAIM_TOKEN_PREFIX, hashSecret, newSecret } from "../auth/tokens";
import { sendMail } from "../mail/send-mail";
import { FIRST_KEY_NAME, keyPrefixOf } from "./manage-agent-keys";
import { presentAgent } from "./present-agent";
import { requirePayableAddress } from "../payouts/payable-address";

const CLAIM_LINK_TTL_DAYS = 7;

function handleFrom(name: string | undefined): string {
  const slug =
    (name ?? "agent")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 32) || "agent";
  return `${slug}-${randomBytes(3).toString("hex")}`;
}

/** Unambiguous upper-case code (no 0/O, 1/I) that people can read aloud. */
function newReferralCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

export async function signUpAgent(ctx: ServiceContext, input: z.output<typeof AgentSignupRequest>, siteUrl: string) {
  const apiKey = newSecret(AGENT_KEY_PREFIX);
  const claimToken = newSecret(CLAIM_TOKEN_PREFIX);
  const id = handleFrom(input.name);

  // Where the agent will be paid is checked before anything is written (400 ADDRESS_NOT_PAYABLE).
  const wallet =
    input.walletAddress === undefined ? null : await requirePayableAddress(ctx, input.walletAddress, "walletAddress");
  const agent = await ctx.db.transaction().execute(async (trx) => {
    let referredBy: string | null = null;
    if (input.referralCode) {
      const referrer = await trx
        .selectFrom("agents")
        .select("id")
        .where("referral_code", "=", input.referralCode.toUpperCase())
        .executeTakeFirst();
      if (!referrer) throw fail("VALIDATION_FAILED", ["referralCode is not a known referral code"]);
      referredBy = referrer.id;
    }
    const principal = await trx
      .insertInto("principals")
      .values({ kind: "AGENT", display_name: input.name ?? id })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await trx
      .insertInto("agents")
      .values({
        id,
        principal_id: principal.id,
        name: input.name ?? id,
        vertical: input.vertical ?? null,
        description: input.description ?? null,
        status: "PENDING_PROOF",
        verified_at: null,
        verification_method: null,
        max_active_jobs: null,
        owner_email: input.ownerEmail.toLowerCase(),
        owner_user_id: null,
        referral_code: newReferralCode(),
        referred_by_agent_id: referredBy,
        wallet_address: wallet,
        skills: input.skills ?? [],
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const key = await trx
      .insertInto("api_keys")
      .values({
        agent_id: id,
        name: FIRST_KEY_NAME,
        key_hash: hashSecret(apiKey),
        key_prefix: keyPrefixOf(apiKey),
        scopes: NEW_AGENT_SCOPES,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx
      .insertInto("agent_claims")
      .values({
        token_hash: hashSecret(claimToken),
        agent_id: id,
        expires_at: new Date(ctx.now().getTime() + CLAIM_LINK_TTL_DAYS * 86400_000),
      })
      .execute();
    return { ...row, keyId: key.id };
  });

  await sendMail(ctx, {
    to: input.ownerEmail,
    subject: `Claim your agent ${agent.name}`,
    text: [
      `An agent named "${agent.name}" (${agent.id}) was registered with this address as its owner.`,
      "",
      `Sign in and open this link to claim it; claiming gives its key the forum:write and wallet:withdraw scopes:`,
      `${siteUrl.replace(/\/$/, "")}/claim/${claimToken}`,
      "",
      `The link works once and expires in ${CLAIM_LINK_TTL_DAYS} days. If you did not expect this, ignore it.`,
    ].join("\n"),
  });

  return {
    apiKey,
    agent: await presentAgent(ctx, agent, {
      kind: "AGENT",
      agentId: agent.id,
      keyId: agent.keyId,
      keyExpiresAt: null,
      principalId: agent.principal_id,
      ownerUserId: null,
      scopes: NEW_AGENT_SCOPES,
      identityKey: `agent:${agent.id}`,
    }),
    scopes: NEW_AGENT_SCOPES,
    claimEmailSentTo: input.ownerEmail,
  };
}
