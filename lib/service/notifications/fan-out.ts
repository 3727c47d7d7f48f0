import { sql } from "kysely";
import { KIND_OF_EVENT, NOTIFICATION_KINDS, type NotificationKind } from "@/lib/api/schemas/notifications";
import type { EventType } from "@/lib/api/schemas/events";
import type { ServiceContext, Worker } from "../context";
import { sendMail, type Mail } from "../mail/send-mail";
import { ownSiteOf } from "../proofs/fetch-policy";
import { describeEvent } from "./describe-event";
import { emailKindsOf, mailAddressesOf, unsubscribeUrls } from "./settings";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BATCH = 100;

/**
 * One round of the notification fan-out: claims up to `limit` events nobody has fanned out yet
 * (FOR UPDATE SKIP LOCKED, so several instances share the work and never take the same event),
 * writes one inbox row per person it concerns (a user id directly; an agent id through the agent's
 * owner), and marks the events done, all in one transaction. The unique (event, person) pair makes
 * a repeat harmless. Mail goes out after the commit, to those whose preferences want that kind and
 * who have a verified address: a crash in between loses a mail, never doubles an inbox row.
 * Returns how many events it handled.
 */
export async function fanOutNotifications(
  ctx: ServiceContext,
  { limit = BATCH }: { limit?: number } = {},
): Promise<number> {
  const mails: Mail[] = [];
  const handled = await ctx.db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom("domain_events")
      .select(["id", "type", "job_id", "recipient_ids", "actor_id", "data"])
      .where("notifications_done_at", "is", null)
      .orderBy("seq")
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return 0;

    const ids = [...new Set(events.flatMap((e) => [...e.recipient_ids, ...(e.actor_id ? [e.actor_id] : [])]))];
    const uuids = ids.filter((id) => UUID.test(id));
    const [users, agents, jobs] = await Promise.all([
      uuids.length ? trx.selectFrom("users").select("id").where("id", "in", uuids).execute() : [],
      // An agent named by its id, or (as a job's poster_id is) by its principal id.
      ids.length
        ? trx
            .selectFrom("agents")
            .select(["id", "principal_id", "owner_user_id"])
            .where((eb) =>
              uuids.length ? eb.or([eb("id", "in", ids), eb("principal_id", "in", uuids)]) : eb("id", "in", ids),
            )
            .execute()
        : [],
      (() => {
        const jobIds = [...new Set(events.map((e) => e.job_id).filter((id): id is string => id !== null))];
        return jobIds.length ? trx.selectFrom("jobs").select(["id", "title"]).where("id", "in", jobIds).execute() : [];
      })(),
    ]);
    const userIds = new Set(users.map((u) => u.id));
    const ownerOf = new Map(
      agents.flatMap((a) => [[a.id, a.owner_user_id] as const, [a.principal_id, a.owner_user_id] as const]),
    );
    const titleOf = new Map(jobs.map((j) => [j.id, j.title]));
    // The person behind an id: the user, or the owner of the agent (none for an unclaimed agent).
    const personOf = (id: string): string | null => (userIds.has(id) ? id : (ownerOf.get(id) ?? null));

    const rows: Array<{
      user_id: string;
      event_id: string;
      kind: NotificationKind;
      type: string;
      text: string;
      link: string | null;
      job_id: string | null;
    }> = [];
    for (const event of events) {
      const kind = KIND_OF_EVENT[event.type as EventType];
      if (!kind) continue;
      // Nobody is told of what they did themselves (nor of what their own agent did).
      const actorPerson = event.actor_id ? personOf(event.actor_id) : null;
      const people = new Set(
        event.recipient_ids.map(personOf).filter((p): p is string => p !== null && p !== actorPerson),
      );
      if (people.size === 0) continue;
      const { text, link } = describeEvent({
        type: event.type,
        jobId: event.job_id,
        jobTitle: event.job_id ? (titleOf.get(event.job_id) ?? null) : null,
        data: event.data,
      });
      for (const person of people)
        rows.push({ user_id: person, event_id: event.id, kind, type: event.type, text, link, job_id: event.job_id });
    }

    const inserted = rows.length
      ? await trx
          .insertInto("notifications")
          .values(rows)
          .onConflict((oc) => oc.columns(["event_id", "user_id"]).doNothing())
          .returning(["user_id", "kind", "text", "link"])
          .execute()
      : [];
    await trx
      .updateTable("domain_events")
      .set({ notifications_done_at: sql<Date>`now()` })
      .where(
        "id",
        "in",
        events.map((e) => e.id),
      )
      .execute();

    const recipients = [...new Set(inserted.map((r) => r.user_id))];
    if (recipients.length) {
      const [addresses, settings] = await Promise.all([
        mailAddressesOf(trx, recipients),
        trx
          .selectFrom("notification_settings")
          .select(["user_id", "email_kinds"])
          .where("user_id", "in", recipients)
          .execute(),
      ]);
      const kindsOf = new Map(settings.map((s) => [s.user_id, s.email_kinds]));
      for (const row of inserted) {
        const address = addresses.get(row.user_id);
        const kind = row.kind as NotificationKind;
        if (!address || !emailKindsOf(kindsOf.get(row.user_id))[kind]) continue;
        mails.push(
          notificationMail(ctx, { to: address.email, userId: row.user_id, kind, text: row.text, link: row.link }),
        );
      }
    }
    return events.length;
  });
  for (const mail of mails) await sendMail(ctx, mail);
  return handled;
}

/** The mail of one notification: the sentence, the link, and how to stop this kind (RFC 8058 one-click). */
function notificationMail(
  ctx: ServiceContext,
  n: { to: string; userId: string; kind: NotificationKind; text: string; link: string | null },
): Mail {
  const site = ownSiteOf(ctx.config)?.replace(/\/$/, "") ?? "";
  const unsubscribe = unsubscribeUrls(ctx.config, n.userId, n.kind);
  const lines = [n.text, ""];
  if (n.link) lines.push(`Open it: ${site}${n.link}`, "");
  lines.push(`Your inbox: ${site}/inbox`, `Mail settings: ${site}/settings/notifications`);
  if (unsubscribe)
    lines.push("", `Stop mails about ${NOTIFICATION_KINDS[n.kind].label.toLowerCase()}: ${unsubscribe.page}`);
  return {
    to: n.to,
    subject: n.text.length > 120 ? `${n.text.slice(0, 119)}…` : n.text,
    text: lines.join("\n"),
    headers: unsubscribe
      ? { "List-Unsubscribe": `<${unsubscribe.oneClick}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
      : undefined,
  };
}

/** Drains the queue each round (a burst of events is not spread over many intervals). */
export const notificationsWorker: Worker = {
  name: "notifications",
  everyMs: 2_000,
  async run(ctx) {
    for (let round = 0; round < 20; round += 1) {
      if ((await fanOutNotifications(ctx)) < BATCH) return;
    }
  },
};
