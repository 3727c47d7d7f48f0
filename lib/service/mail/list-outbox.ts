import { fail } from "../errors";
import type { ServiceContext } from "../context";
import { isOutboxSecret, openMailText, outboxSecret } from "./seal-mail-text";

const OUTBOX_PAGE = 100;

/**
 * GET /v1/dev/outbox. Claim links are credentials and the caller's address proves nothing (behind
 * a reverse proxy on this host every client is loopback), so the outbox answers only when all of
 * these hold: the request came through no proxy (no X-Forwarded-For, Forwarded or X-Real-IP, judged
 * in front of Next), the chain is the local development chain, and the request presents the
 * outbox's secret. Checked in that order, so a proxied request learns nothing about the rest.
 */
export async function listOutbox(ctx: ServiceContext, input: { token: string | undefined; forwarded: boolean }) {
  if (input.forwarded) {
    throw fail(
      "OUTBOX_PROXIED",
      "the development outbox never answers through a proxy: the request carried X-Forwarded-For, Forwarded or X-Real-IP",
    );
  }
  const secret = outboxSecret(ctx.config);
  if (!secret) throw fail("OUTBOX_CLOSED", "the development outbox exists only on the local development chain");
  if (!isOutboxSecret(secret, input.token)) {
    throw fail(
      "OUTBOX_TOKEN_INVALID",
      "the development outbox needs its secret: open the outbox link `npm start` printed (…/dev/outbox?token=…)",
    );
  }
  const rows = await ctx.db
    .selectFrom("mail_outbox")
    .selectAll()
    .orderBy("created_at", "desc")
    .limit(OUTBOX_PAGE)
    .execute();
  return rows.map((r) => ({
    to: r.to_address,
    subject: r.subject,
    text: openMailText(secret, r.text),
    createdAt: r.created_at.toISOString(),
    sentAt: r.sent_at ? r.sent_at.toISOString() : null,
    error: r.error,
  }));
}
