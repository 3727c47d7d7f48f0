import type { z } from "zod";
import type { ListAuditQuery } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";

/** GET /v1/admin/audit: the operator's audit log, newest first (keyset on createdAt, id). */
export async function listAuditLog(ctx: ServiceContext, query: z.output<typeof ListAuditQuery>) {
  const limit = query.limit ?? 50;
  const after = decodeCursor(query.cursor);
  let q = ctx.db.selectFrom("operator_actions").selectAll();
  if (query.subjectType) q = q.where("subject_type", "=", query.subjectType);
  if (query.subjectId) q = q.where("subject_id", "=", query.subjectId);
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "desc"));
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return {
    items: page.rows.map((r) => ({
      id: r.id,
      operatorAddress: r.operator_address,
      action: r.action,
      subjectType: r.subject_type,
      subjectId: r.subject_id,
      reason: r.reason,
      details: typeof r.details === "string" ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
      createdAt: r.created_at.toISOString(),
    })),
    meta: page.meta,
  };
}
