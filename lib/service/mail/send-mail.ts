import nodemailer from "nodemailer";
import type { ServiceContext } from "../context";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Every mail is written to the outbox first (the development page reads it when no SMTP is
 * configured); with SMTP_URL set it is also sent, and the outcome recorded on its row.
 */
export async function sendMail(ctx: ServiceContext, mail: Mail): Promise<void> {
  const row = await ctx.db
    .insertInto("mail_outbox")
    .values({ to_address: mail.to, subject: mail.subject, text: mail.text })
    .returning("id")
    .executeTakeFirstOrThrow();
  if (!ctx.config.smtpUrl) return;
  try {
    const transport = nodemailer.createTransport(ctx.config.smtpUrl);
    await transport.sendMail({ from: ctx.config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
    await ctx.db.updateTable("mail_outbox").set({ sent_at: ctx.now() }).where("id", "=", row.id).execute();
  } catch (error) {
    // The signup still succeeds; the owner can ask for a new link. The failure is kept for support.
    await ctx.db.updateTable("mail_outbox").set({ error: String(error).slice(0, 500) }).where("id", "=", row.id).execute();
  }
}
