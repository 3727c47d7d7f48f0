import { fail } from "../errors";
import type { z } from "zod";
import type { ForumReport, ListReportsQuery, ReportPostRequest } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { requireOperator } from "../auth/operator";
import { asOperator } from "../audit/record-operator-action";
import { isUniqueViolation } from "../db/errors";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { sql } from "kysely";
import type { ForumReportsTable } from "../db/schema";
import type { Selectable } from "kysely";

type ReportDto = z.infer<typeof ForumReport>;

function presentReport(r: Selectable<ForumReportsTable>): ReportDto {
  return {
    id: r.id,
    kind: r.target_kind,
    targetId: r.target_id,
    threadId: r.thread_id,
    reason: r.reason,
    createdAt: r.created_at.toISOString(),
    resolvedAt: r.resolved_at?.toISOString() ?? null,
    resolution: r.resolution,
  };
}

/**
 * POST /v1/forum/reports. Any signed-in reader reports a visible thread or reply to the operator,
 * once per post (the unique constraint decides, also for parallel clicks).
 */
export async function reportPost(ctx: ServiceContext, actor: Actor, input: z.output<typeof ReportPostRequest>) {
  const target =
    input.kind === "THREAD"
      ? await ctx.db
          .selectFrom("forum_threads")
          .select(["id", "id as thread_id"])
          .where("id", "=", input.id)
          .where("status", "=", "VISIBLE")
          .executeTakeFirst()
      : await ctx.db
          .selectFrom("forum_replies as r")
          .innerJoin("forum_threads as t", "t.id", "r.thread_id")
          .select(["r.id", "r.thread_id"])
          .where("r.id", "=", input.id)
          .where("r.status", "=", "VISIBLE")
          .where("t.status", "=", "VISIBLE")
          .executeTakeFirst();
  if (!target) throw fail("NOT_FOUND", `${input.kind === "THREAD" ? "thread" : "reply"} not found`);
  try {
    const row = await ctx.db
      .insertInto("forum_reports")
      .values({
        target_kind: input.kind,
        target_id: target.id,
        thread_id: target.thread_id,
        reporter_principal_id: actor.principalId,
        reason: input.reason,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return presentReport(row);
  } catch (error) {
    if (isUniqueViolation(error, "forum_reports_one_per_reader"))
      throw fail("ALREADY_REPORTED", "you already reported this post");
    throw error;
  }
}

/** GET /v1/admin/forum/reports: the moderation queue (OPEN by default), newest first. */
export async function listReports(ctx: ServiceContext, actor: Actor | null, query: z.output<typeof ListReportsQuery>) {
  await requireOperator(ctx, actor);
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("forum_reports as f")
    .innerJoin("forum_threads as t", "t.id", "f.thread_id")
    .leftJoin("forum_replies as r", (join) => join.onRef("r.id", "=", "f.target_id").on("f.target_kind", "=", "REPLY"))
    .innerJoin("principals as p", "p.id", "f.reporter_principal_id")
    .selectAll("f")
    .select([
      "t.slug as thread_slug",
      "t.title as thread_title",
      "t.body as thread_body",
      "t.status as thread_status",
      "r.body as reply_body",
      "r.status as reply_status",
      "p.display_name as reporter_name",
      sql<string>`(select count(*) from forum_reports o where o.target_kind = f.target_kind and o.target_id = f.target_id and o.resolved_at is null)`.as(
        "report_count",
      ),
    ]);
  q =
    (query.status ?? "OPEN") === "OPEN"
      ? q.where("f.resolved_at", "is", null)
      : q.where("f.resolved_at", "is not", null);
  if (after) q = q.where(keysetAfter(after, "f.created_at", "f.id", "desc"));
  const rows = await q
    .orderBy("f.created_at", "desc")
    .orderBy("f.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return {
    items: page.rows.map((r) => ({
      ...presentReport(r),
      threadSlug: r.thread_slug,
      threadTitle: r.thread_title,
      excerpt: (r.target_kind === "REPLY" ? (r.reply_body ?? "") : r.thread_body).slice(0, 500),
      postStatus: (r.target_kind === "REPLY"
        ? r.thread_status !== "VISIBLE"
          ? r.thread_status
          : (r.reply_status ?? "DELETED")
        : r.thread_status) as "VISIBLE" | "DELETED" | "HIDDEN",
      reporterName: r.reporter_name,
      reportCount: Number(r.report_count),
    })),
    meta: page.meta,
  };
}

/** POST /v1/admin/forum/reports/:id/dismiss: the post stays; the report is closed. */
export async function dismissReport(ctx: ServiceContext, actor: Actor | null, reportId: string, reason: string) {
  const row = await asOperator(
    ctx,
    actor,
    { action: "report.dismiss", subjectType: "forum_report", subjectId: reportId, reason },
    async (trx) => {
      const report = await trx
        .selectFrom("forum_reports")
        .selectAll()
        .where("id", "=", reportId)
        .forUpdate()
        .executeTakeFirst();
      if (!report) throw fail("NOT_FOUND", "report not found");
      if (report.resolved_at) throw fail("INVALID_STATE", "the report is already resolved");
      return trx
        .updateTable("forum_reports")
        .set({ resolved_at: ctx.now(), resolution: "DISMISSED" })
        .where("id", "=", reportId)
        .returningAll()
        .executeTakeFirstOrThrow();
    },
  );
  return presentReport(row);
}
