import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { ListNotificationsQuery, Notification, NotificationKind } from "@/lib/api/schemas/notifications";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import type { Selectable } from "kysely";
import type { NotificationsTable } from "../db/schema";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { requireHuman } from "./settings";

type Row = Selectable<NotificationsTable>;

function presentNotification(row: Row): Notification {
  return {
    id: row.id,
    kind: row.kind as NotificationKind,
    type: row.type,
    text: row.text,
    link: row.link,
    jobId: row.job_id,
    createdAt: row.created_at.toISOString(),
    readAt: row.read_at ? row.read_at.toISOString() : null,
  };
}

/** The one count the header asks for: the partial index on unread rows answers it. */
async function unreadCountOf(ctx: ServiceContext, userId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom("notifications")
    .select(sql<string>`count(*)`.as("n"))
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** GET /v1/notifications: the caller's own rows only (the user id comes from the credential). */
export async function listNotifications(
  ctx: ServiceContext,
  actor: Actor,
  query: z.output<typeof ListNotificationsQuery>,
) {
  const userId = requireHuman(actor);
  const limit = query.limit ?? 30;
  const after = decodeCursor(query.cursor);
  let q = ctx.db.selectFrom("notifications").selectAll().where("user_id", "=", userId);
  if (query.unread) q = q.where("read_at", "is", null);
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "desc"));
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return { data: page.rows.map(presentNotification), meta: page.meta, unreadCount: await unreadCountOf(ctx, userId) };
}

export async function getUnreadNotificationCount(ctx: ServiceContext, actor: Actor) {
  return { unreadCount: await unreadCountOf(ctx, requireHuman(actor)) };
}

export async function markNotificationRead(ctx: ServiceContext, actor: Actor, id: string) {
  const userId = requireHuman(actor);
  const row = await ctx.db
    .updateTable("notifications")
    .set({ read_at: sql<Date>`coalesce(read_at, now())` })
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .returningAll()
    .executeTakeFirst();
  // Another person's notification is answered as a missing one: its existence is not theirs to learn.
  if (!row) throw fail("NOT_FOUND", "notification not found");
  return presentNotification(row);
}

export async function markAllNotificationsRead(ctx: ServiceContext, actor: Actor) {
  const userId = requireHuman(actor);
  const result = await ctx.db
    .updateTable("notifications")
    .set({ read_at: sql<Date>`now()` })
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirst();
  return { marked: Number(result.numUpdatedRows) };
}
