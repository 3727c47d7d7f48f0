import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { IDEMPOTENCY_OWNER } from "./idempotency";

// A request killed with its process leaves its Idempotency-Key pending. The key names its owner and
// a lease the owner renews while it runs: a retry is IDEMPOTENCY_IN_PROGRESS (with Retry-After) while
// the lease holds, and once it has lapsed (the owner is gone) the retry runs the request, once.

let service: TestService;
let user: TestUser;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, idempotencyLeaseMs: 3_000 });
  user = await newUser(service);
});
afterAll(() => service?.stop());

const payload = {
  title: `Lease takeover thread ${Date.now()}`,
  body: "A body long enough to pass the twenty character minimum, posted with a key.",
  category: "bidding-strategy",
};
const post = (key: string, as: TestUser = user, body: object = payload) =>
  service.http("POST", "/v1/forum/threads", { token: as.token, body, headers: { "idempotency-key": key } });
const threadsMade = async () =>
  (await service.db.selectFrom("forum_threads").select("id").where("title", "=", payload.title).execute()).length;
const newKey = () => `lease-${Date.now()}-${Math.random().toString(36).slice(2)}`;

const keyRow = (key: string) =>
  service.db
    .selectFrom("idempotency_keys")
    .select(["identity", "scope", "request_hash"])
    .where("scope", "=", "POST /v1/forum/threads")
    .where("key", "=", key)
    .executeTakeFirstOrThrow();

/**
 * The pending row a process leaves when it is killed before its handler committed: `post`'s payload
 * (its hash from the seed request) under `as`'s identity (read from a request of its own).
 */
async function leavePending(key: string, as: TestUser, owner: string, leaseUntil: Date) {
  const { scope, request_hash } = await keyRow(seedKey);
  const own = newKey();
  expect(
    (
      await post(own, as, {
        ...payload,
        title: `${payload.title} by ${own}`,
        body: `${payload.body} Posted by ${own}.`,
      })
    ).status,
  ).toBe(201);
  const { identity } = await keyRow(own);
  await service.db
    .insertInto("idempotency_keys")
    .values({ identity, scope, request_hash, key, owner, lease_until: leaseUntil })
    .execute();
}

let seedKey: string;

describe("Idempotency-Key left pending by a dead process", () => {
  it("while the owner's lease holds: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After, and nothing runs", async () => {
    seedKey = newKey();
    expect((await post(seedKey)).status).toBe(201);
    expect(await threadsMade()).toBe(1);

    const key = newKey();
    await leavePending(key, user, "other-host:4242:alive", new Date(Date.now() + 20_000));
    const res = await post(key);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    const wait = Number(res.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(15);
    expect(wait).toBeLessThanOrEqual(20);
    expect(await threadsMade()).toBe(1);
  });

  it("once the lease has lapsed, concurrent retries run the request exactly once and all get its answer", async () => {
    // Another author, whose first thread with this title it is (one title per author a day).
    const other = await newUser(service);
    const before = await threadsMade();
    const key = newKey();
    await leavePending(key, other, "killed-host:4242:gone", new Date(Date.now() - 1_000));
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(key, other)));
    expect(await threadsMade()).toBe(before + 1);
    // One took the key over and ran it; the others got its stored answer, or, racing the run, were
    // told to wait (the new owner's lease).
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((a) => a.json.data.id)).size).toBe(1);
    for (const other of answers.filter((a) => a.status !== 201))
      expect(other.json.code).toBe("IDEMPOTENCY_IN_PROGRESS");

    // The key is this process's now and answered: every retry gets the same thread, nothing runs again.
    const row = await service.db
      .selectFrom("idempotency_keys")
      .select(["owner", "response_status"])
      .where("key", "=", key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ owner: IDEMPOTENCY_OWNER, response_status: 201 });
    const again = await post(key, other);
    expect(again.status).toBe(201);
    expect(again.json.data.id).toBe(created[0]!.json.data.id);
    expect(await threadsMade()).toBe(before + 1);
  });

  it("a live owner renews its lease while its request runs, so a slow request is not taken over", async () => {
    const leaseMs = service.ctx.config.idempotencyLeaseMs;
    const { withIdempotency } = await import("./idempotency");
    const fresh = newKey();
    let leaseSeen: Date | null = null;
    const result = await withIdempotency(
      service.ctx,
      { identity: "lease-test", scope: "lease-test", key: fresh, payload: null },
      async () => {
        await new Promise((r) => setTimeout(r, leaseMs * 1.5));
        const row = await sql<{ lease_until: Date }>`
          select lease_until from idempotency_keys where scope = 'lease-test' and key = ${fresh}`.execute(service.db);
        leaseSeen = new Date(row.rows[0]!.lease_until);
        return { status: 200, body: { ok: true } };
      },
    );
    expect(result.status).toBe(200);
    // Still ahead of now after 1.5 leases: it was renewed while the request ran.
    expect(leaseSeen!.getTime()).toBeGreaterThan(Date.now());
  }, 20_000);
});
