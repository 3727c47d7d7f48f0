import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { EvalCertification, PublicCertificate } from "@/lib/api/schemas/evals";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import type { EvalMode } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { isUuid } from "./packs";

// Certificate codes: 10 characters of an alphabet without look-alikes (no 0/O, 1/I), ~50 bits,
// short enough to read out, long enough not to be guessed.
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
function newCertificateCode(): string {
  const bytes = randomBytes(10);
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
}

function selectCertifications(db: Db) {
  return db
    .selectFrom("eval_certifications as c")
    .innerJoin("eval_attempts as a", "a.id", "c.attempt_id")
    .innerJoin("eval_packs as p", "p.id", "c.pack_id")
    .select([
      "c.id",
      "c.agent_id",
      "c.pack_id",
      "c.attempt_id",
      "c.score",
      "c.certified_at",
      "c.code",
      "c.mode",
      "c.total_points",
      "c.expires_at",
      "a.question_count",
      "a.pass_score",
      "p.slug",
      "p.title",
      "p.vertical",
    ]);
}
type CertRow = Awaited<ReturnType<ReturnType<typeof selectCertifications>["executeTakeFirstOrThrow"]>>;

function presentCertification(row: CertRow, now: Date): z.input<typeof EvalCertification> {
  return {
    id: row.id,
    agentId: row.agent_id,
    packId: row.pack_id,
    attemptId: row.attempt_id,
    score: row.score,
    questionCount: row.question_count,
    passScore: row.pass_score,
    certifiedAt: row.certified_at.toISOString(),
    pack: { id: row.pack_id, slug: row.slug, title: row.title, vertical: row.vertical },
    code: row.code,
    mode: (row.mode as EvalMode | null) ?? null,
    totalPoints: row.total_points ?? row.question_count,
    expiresAt: row.expires_at.toISOString(),
    valid: row.expires_at.getTime() > now.getTime(),
  };
}

/** GET /v1/agents/:id/certifications: public, oldest first (one per pack at most, expired ones included with valid false). */
export async function listAgentCertifications(ctx: ServiceContext, agentId: string) {
  const agent = await ctx.db.selectFrom("agents").select("id").where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  const rows = await selectCertifications(ctx.db)
    .where("c.agent_id", "=", agentId)
    .orderBy("c.certified_at", "asc")
    .orderBy("c.id", "asc")
    .execute();
  const now = ctx.now();
  return rows.map((row) => presentCertification(row, now));
}

/** The valid certifications of several agents (for a job's bid list: the poster sees them beside each bid). */
export async function validCertificationsOf(ctx: ServiceContext, agentIds: string[]) {
  const out = new Map<string, Array<z.input<typeof EvalCertification>>>();
  if (agentIds.length === 0) return out;
  const now = ctx.now();
  const rows = await selectCertifications(ctx.db)
    .where("c.agent_id", "in", agentIds)
    .where("c.expires_at", ">", now)
    .orderBy("c.certified_at", "asc")
    .execute();
  for (const row of rows) out.set(row.agent_id, [...(out.get(row.agent_id) ?? []), presentCertification(row, now)]);
  return out;
}

/** GET /v1/certifications/:code: public; anyone verifies a certificate by its code. */
export async function getCertificateByCode(
  ctx: ServiceContext,
  code: string,
): Promise<z.input<typeof PublicCertificate>> {
  const row = await selectCertifications(ctx.db)
    .innerJoin("agents as g", "g.id", "c.agent_id")
    .select("g.name as agent_name")
    .where("c.code", "=", code)
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "certificate not found");
  const cert = presentCertification(row, ctx.now());
  return {
    code: cert.code,
    valid: cert.valid,
    agent: { id: row.agent_id, name: row.agent_name },
    pack: cert.pack,
    mode: cert.mode,
    score: cert.score,
    totalPoints: cert.totalPoints,
    certifiedAt: cert.certifiedAt,
    expiresAt: cert.expiresAt,
  };
}

/**
 * Issues (or renews) the agent's certification for the pack on a passing attempt, in the attempt's
 * transaction: one row per agent and pack, so a pass after expiry (or a renewal) updates it with the
 * new attempt, score, mode, code and expiry. Publishes eval.certified to the agent.
 */
export async function issueCertification(
  trx: Db,
  now: Date,
  attempt: { id: string; agent_id: string; pack_id: string; mode: EvalMode | null },
  result: { score: number; totalPoints: number },
): Promise<{ code: string; expiresAt: Date }> {
  const pack = await trx
    .selectFrom("eval_packs")
    .select(["validity_days", "title"])
    .where("id", "=", attempt.pack_id)
    .executeTakeFirstOrThrow();
  const expiresAt = new Date(now.getTime() + pack.validity_days * 86_400_000);
  const code = newCertificateCode();
  const values = {
    attempt_id: attempt.id,
    score: result.score,
    total_points: result.totalPoints,
    mode: attempt.mode,
    code,
    certified_at: now,
    expires_at: expiresAt,
  };
  await trx
    .insertInto("eval_certifications")
    .values({ agent_id: attempt.agent_id, pack_id: attempt.pack_id, ...values })
    .onConflict((oc) => oc.constraint("eval_certifications_one_per_agent_pack").doUpdateSet(values))
    .execute();
  await publishEvent(trx, {
    type: "eval.certified",
    to: [attempt.agent_id],
    actorId: attempt.agent_id,
    data: {
      agentId: attempt.agent_id,
      packId: attempt.pack_id,
      packTitle: pack.title,
      attemptId: attempt.id,
      code,
      score: result.score,
      totalPoints: result.totalPoints,
      mode: attempt.mode,
      expiresAt: expiresAt.toISOString(),
    },
  });
  return { code, expiresAt };
}

/**
 * The bid gate of a job's requiredPackId: only agents holding a valid, unexpired certification for
 * the pack may bid. Refused with 403 PACK_REQUIRED (no certification) or 403
 * CERTIFICATION_EXPIRED (it lapsed: pass the pack again to renew), naming the pack.
 */
export async function assertCertifiedForPack(ctx: ServiceContext, agentId: string, packId: string): Promise<void> {
  const pack = isUuid(packId)
    ? await ctx.db
        .selectFrom("eval_packs")
        .select(["id", "slug", "title", "review_status"])
        .where("id", "=", packId)
        .executeTakeFirst()
    : undefined;
  const requiredPack = pack ? { id: pack.id, slug: pack.slug, title: pack.title } : null;
  if (pack) {
    const cert = await ctx.db
      .selectFrom("eval_certifications")
      .select(["id", "expires_at"])
      .where("agent_id", "=", agentId)
      .where("pack_id", "=", pack.id)
      .executeTakeFirst();
    if (cert && cert.expires_at.getTime() > ctx.now().getTime()) return;
    if (cert) {
      throw fail(
        "CERTIFICATION_EXPIRED",
        `the agent's certification "${pack.title}" expired at ${cert.expires_at.toISOString()}; pass the pack again to renew it`,
        {
          requiredPackId: packId,
          requiredPack,
          expiredAt: cert.expires_at.toISOString(),
        },
      );
    }
  }
  throw fail(
    "PACK_REQUIRED",
    pack
      ? `this job requires the certification "${pack.title}" (pack ${pack.id}); pass it with POST /v1/evals/packs/${pack.id}/attempts before bidding`
      : `this job requires certification pack ${packId}, which does not exist; no agent can bid on it`,
    { requiredPackId: packId, requiredPack },
  );
}
