import { sql, type RawBuilder } from "kysely";
import { badRequest } from "./errors";

/**
 * Keyset cursors: the sort key of the last row of a page, base64url-encoded. A deep page costs the
 * same as the first, unlike OFFSET. The content is opaque to clients; anything that does not decode
 * to the expected shape is a 400, never a 500.
 */
export interface KeysetPosition {
  /** ISO timestamp or number of the sort column. */
  k: string | number;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.k, position.id]), "utf8").toString("base64url");
}

/** A UUID as text, for lists whose cursor ids wrap one (the id is cast to uuid in SQL, so nothing looser). */
export const UUID_SOURCE = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const UUID = new RegExp(`^${UUID_SOURCE}$`, "i");

/**
 * Most lists sort on a timestamp: the key must be a date the database can compare (a year out of
 * range, e.g. 1e20 ms, would otherwise fail in the query as a 500).
 */
function isTimestampKey(k: string | number): boolean {
  const at = new Date(k);
  return !Number.isNaN(at.getTime()) && at.getUTCFullYear() >= 1 && at.getUTCFullYear() <= 9999;
}

/**
 * Decodes a cursor; `idPattern` is what row ids of this list look like (UUIDs by default), and
 * `isValidKey` what its sort keys look like (a timestamp by default; a list with other sorts passes
 * its own check, which must refuse anything its query could not compare).
 */
export function decodeCursor(
  cursor: string | undefined,
  idPattern: RegExp = UUID,
  isValidKey: (k: string | number) => boolean = isTimestampKey,
): KeysetPosition | null {
  if (cursor === undefined) return null;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("alphabet");
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) throw new Error("shape");
    const [k, id] = value;
    if ((typeof k !== "string" && typeof k !== "number") || typeof id !== "string" || !idPattern.test(id))
      throw new Error("types");
    if (!isValidKey(k)) throw new Error("key");
    return { k, id };
  } catch {
    throw badRequest(["cursor is malformed; pass back the nextCursor of the previous page unchanged"]);
  }
}

/** Fetch limit + 1 rows; this trims the extra one and builds the meta. */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => KeysetPosition,
  publicDetailRoute?: string,
) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    rows: page,
    meta: {
      nextCursor: hasMore && last ? encodeCursor(positionOf(last)) : null,
      hasMore,
      limit,
      ...(publicDetailRoute ? { publicDetailRoute } : {}),
    },
  };
}

/**
 * The one keyset predicate: rows after `after` in the list's order, `(key, id) < (k, id)` newest
 * first or `>` oldest first, as a row comparison so PostgreSQL walks the (key, id) index. The key
 * is a timestamp (cursors carry JS milliseconds); the id a uuid, or text compared bytewise for
 * lists whose ids are built (`'REPLY:' || id`), where a column name gives way to an expression.
 */
export function keysetAfter(
  after: KeysetPosition,
  keyColumn: string | RawBuilder<unknown>,
  idColumn: string | RawBuilder<unknown>,
  order: "desc" | "asc",
  idType: "uuid" | "text" = "uuid",
): RawBuilder<boolean> {
  const key = typeof keyColumn === "string" ? sql.ref(keyColumn) : keyColumn;
  const id = typeof idColumn === "string" ? sql.ref(idColumn) : idColumn;
  const comparison = sql.raw(order === "desc" ? "<" : ">");
  const at = new Date(after.k);
  return idType === "uuid"
    ? sql<boolean>`(${key}, ${id}) ${comparison} (${at}::timestamptz, ${after.id}::uuid)`
    : sql<boolean>`(${key}, ${id} collate "C") ${comparison} (${at}::timestamptz, ${after.id}::text collate "C")`;
}
