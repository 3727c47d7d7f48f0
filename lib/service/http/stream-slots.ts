import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { HttpError } from "./errors";
import { clientKeyOf } from "./client-origin";

/**
 * How many server-sent event streams may be open at once, counted in this process: per client
 * network (an IPv4 address, an IPv6 /64), per credential (an agent, a person), and in all. An open
 * stream costs the database nothing while idle (events/stream-hub.ts: one reader per process feeds
 * them all), so the total bounds memory and sockets, not queries: the streams line of `npm run
 * bench` measured about 35 kB a stream (README), so 10,000 a process is some 350 MB. The counts live
 * in process memory, not in the database, on purpose: a slot must be given back the moment its
 * connection ends, even when the process dies, and only the process holds the socket. With several
 * processes (scripts/server.mjs runs one per core) a client may hold up to the cap in each.
 */
export const STREAM_LIMITS = { perClient: 10, perCredential: 10, perProcess: 10_000 } as const;
const RETRY_AFTER_SECONDS = 30;

const slotsByService = new WeakMap<ServiceContext, Map<string, number>>();

/**
 * Takes a stream slot for the caller, or refuses with 429 TOO_MANY_STREAMS. Returns the function that
 * gives it back (idempotent: call it whenever the stream ends, however it ends).
 */
export function takeStreamSlot(ctx: ServiceContext, actor: Actor | null, clientIp: string): () => void {
  let slots = slotsByService.get(ctx);
  if (!slots) slotsByService.set(ctx, (slots = new Map()));
  const keys: Array<[string, number, string]> = [
    ["*", STREAM_LIMITS.perProcess, "streams are open on this server"],
    [`ip:${clientKeyOf(clientIp)}`, STREAM_LIMITS.perClient, "streams are open from your network address"],
  ];
  if (actor)
    keys.push([`id:${actor.identityKey}`, STREAM_LIMITS.perCredential, "streams are open with this credential"]);
  for (const [key, limit, what] of keys) {
    if ((slots.get(key) ?? 0) >= limit) {
      throw new HttpError(
        429,
        `${limit} ${what}; close one (or retry in ${RETRY_AFTER_SECONDS} s)`,
        "TOO_MANY_STREAMS",
        { limit, retryAfter: RETRY_AFTER_SECONDS },
        { "retry-after": String(RETRY_AFTER_SECONDS) },
      );
    }
  }
  for (const [key] of keys) slots.set(key, (slots.get(key) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    for (const [key] of keys) {
      const left = (slots.get(key) ?? 1) - 1;
      if (left <= 0) slots.delete(key);
      else slots.set(key, left);
    }
  };
}
