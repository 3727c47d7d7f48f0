import "server-only";
import { settle } from "@/lib/api/page-data";
import type { AdminPerson } from "@/lib/api/schemas/admin";
import { sessionApi } from "@/lib/session/api";

/**
 * What a page shows the operator of a person or an agent (their console record, with its
 * suspension), or null for every other visitor. The service decides who the operator is
 * (GET /v1/me's isOperator) and answers the console's read only to them.
 */
export async function operatorViewOf(kind: "USER" | "AGENT", id: string): Promise<AdminPerson | null> {
  const { api, session } = await sessionApi();
  if (!session) return null;
  const me = await settle(api.getMe({}));
  if (me.result?.data.kind !== "USER" || !me.result.data.isOperator) return null;
  const found = await settle(api.listPeople({ query: { q: id, kind, limit: 25 } }));
  return found.result?.data.find((p) => p.id === id) ?? null;
}

/** Whether the signed-in visitor is the operator (a person's session listed in OPERATOR_ADDRESSES). */
export async function isOperatorVisitor(): Promise<boolean> {
  const { api, session } = await sessionApi();
  if (!session) return false;
  const me = await settle(api.getMe({}));
  return me.result?.data.kind === "USER" && me.result.data.isOperator;
}
