import { createHash } from "node:crypto";
import type { ServiceContext } from "../context";
import { HttpError, badRequest, conflict } from "./errors";

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * Idempotency-Key handling. Keys are isolated per identity and per resource type (the scope). The
 * first request inserts a pending row (the primary key makes concurrent duplicates lose); a repeat
 * with the same payload gets the stored response; the same key with another payload is refused.
 */
export async function withIdempotency(
  ctx: ServiceContext,
  args: { identity: string; scope: string; key: string; payload: unknown },
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (args.key.length < 8 || args.key.length > 128 || !/^[\x21-\x7e]+$/.test(args.key)) {
    throw badRequest(["Idempotency-Key must be 8 to 128 visible ASCII characters"]);
  }
  const requestHash = createHash("sha256").update(JSON.stringify(args.payload ?? null)).digest("hex");
  const inserted = await ctx.db
    .insertInto("idempotency_keys")
    .values({ identity: args.identity, scope: args.scope, key: args.key, request_hash: requestHash })
    .onConflict((oc) => oc.doNothing())
    .returning("key")
    .executeTakeFirst();

  if (!inserted) {
    const existing = await ctx.db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .executeTakeFirstOrThrow();
    if (existing.request_hash !== requestHash) {
      throw conflict("IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with a different payload; use a new key for a new request");
    }
    if (existing.response_status === null) {
      throw conflict("IDEMPOTENCY_IN_PROGRESS", "a request with this Idempotency-Key is still being processed; retry shortly");
    }
    return { status: existing.response_status, body: existing.response_body };
  }

  try {
    const result = await run();
    await ctx.db
      .updateTable("idempotency_keys")
      .set({ response_status: result.status, response_body: JSON.stringify(result.body) })
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .execute();
    return result;
  } catch (error) {
    // A refused request did not happen: free the key so that a corrected retry may use it.
    await ctx.db
      .deleteFrom("idempotency_keys")
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .execute();
    if (error instanceof HttpError) throw error;
    throw error;
  }
}
