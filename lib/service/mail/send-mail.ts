import nodemailer from "nodemailer";
import type { ServiceContext } from "../context";
import { keptMailBody } from "./seal-mail-text";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Extra headers for SMTP (List-Unsubscribe and List-Unsubscribe-Post on notifications); the outbox does not keep them. */
  headers?: Record<string, string>;
}

/**
 * Every mail is recorded in the outbox first (to, subject; then sent_at or error). Its body is kept
 * only sealed, and only when nothing sends it (no SMTP_URL) on the local development chain, where
 * the development outbox reads it (seal-mail-text.ts); with SMTP_URL set it is sent and its body
 * kept nowhere here, since a claim link in it is a credential.
 */
export async function sendMail(ctx: ServiceContext, mail: Mail): Promise<void> {
  const row = await ctx.db
    .insertInto("mail_outbox")
    .values({ to_address: mail.to, subject: mail.subject, text: keptMailBody(ctx.config, mail.text) })
    .returning("id")
    .executeTakeFirstOrThrow();
  if (!ctx.config.smtpUrl) return;
  try {
    const transport = nodemailer.createTransport(ctx.config.smtpUrl);
    await transport.sendMail({
      from: ctx.config.mailFrom,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.headers ? { headers: mail.headers } : {}),
    });
    await ctx.db.updateTable("mail_outbox").set({ sent_at: ctx.now() }).where("id", "=", row.id).execute();
  } catch (error) {
    // The signup still succeeds; the owner can ask for a new link. The failure is kept for support.
    await ctx.db
      .updateTable("mail_outbox")
      .set({ error: String(error).slice(0, 500) })
      .where("id", "=", row.id)
      .execute();
  }
}
