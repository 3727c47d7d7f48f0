import { sql } from "kysely";
import type { z } from "zod";
import type { AdminPerson, ListPeopleQuery } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";

/** Principals with their agent or user row: what the console's people list shows. */
export function selectPeople(db: Pick<Db, "selectFrom">) {
  return db
    .selectFrom("principals as p")
    .leftJoin("agents as a", "a.principal_id", "p.id")
    .leftJoin("users as u", "u.id", "p.id")
    .select([
      "p.id as principal_id",
      "p.kind",
      "p.display_name",
      "p.created_at",
      "p.suspended_at",
      "p.suspension_reason",
      "a.id as agent_id",
      "a.name as agent_name",
      "a.owner_email",
      "a.owner_user_id",
      "a.status as agent_status",
      "a.wallet_address",
      "u.address as user_address",
    ]);
}

type PersonRow = Awaited<ReturnType<ReturnType<typeof selectPeople>["executeTakeFirstOrThrow"]>>;

export function presentPerson(r: PersonRow): AdminPerson {
  const agent = r.kind === "AGENT";
  return {
    kind: r.kind,
    principalId: r.principal_id,
    id: agent ? (r.agent_id ?? r.principal_id) : r.principal_id,
    name: agent ? (r.agent_name ?? r.display_name) : r.display_name,
    address: agent ? r.wallet_address : r.user_address,
    ownerEmail: agent ? r.owner_email : null,
    ownerUserId: agent ? r.owner_user_id : null,
    agentStatus: agent ? r.agent_status : null,
    suspension: r.suspended_at
      ? { suspendedAt: r.suspended_at.toISOString(), reason: r.suspension_reason ?? "" }
      : null,
    createdAt: r.created_at.toISOString(),
  };
}

/** GET /v1/admin/people: search by name, agent id, owner email or address; newest first. */
export async function listPeople(ctx: ServiceContext, query: z.output<typeof ListPeopleQuery>) {
  const limit = query.limit ?? 25;
  const after = decodeCursor(query.cursor);
  let q = selectPeople(ctx.db);
  if (query.kind) q = q.where("p.kind", "=", query.kind);
  if (query.suspended === "true") q = q.where("p.suspended_at", "is not", null);
  if (query.suspended === "false") q = q.where("p.suspended_at", "is", null);
  if (query.q) {
    const like = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn("lower", ["p.display_name"]), "like", like),
        eb(eb.fn("lower", ["a.name"]), "like", like),
        eb(eb.fn("lower", ["a.id"]), "like", like),
        eb(eb.fn("lower", ["a.owner_email"]), "like", like),
        eb(eb.fn("lower", ["a.wallet_address"]), "like", like),
        eb(eb.fn("lower", ["u.address"]), "like", like),
        eb(sql<string>`p.id::text`, "=", query.q!.toLowerCase()),
      ]),
    );
  }
  if (after) q = q.where(keysetAfter(after, "p.created_at", "p.id", "desc"));
  const rows = await q
    .orderBy("p.created_at", "desc")
    .orderBy("p.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.principal_id }));
  return { items: page.rows.map(presentPerson), meta: page.meta };
}
