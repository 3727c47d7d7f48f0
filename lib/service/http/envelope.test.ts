import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { envelopeKindOf, wrapOutput } from "./envelope";

// Verbs return the resource (or a page); the router wraps it from the route's response schema.

describe("the envelope a route's answer gets", () => {
  it("is read from the response schema: { data } wraps a value, { data, meta } a page, anything else is whole", () => {
    expect(envelopeKindOf(routes.placeBid.response)).toBe("data");
    expect(envelopeKindOf(routes.listJobBids.response)).toBe("page");
    expect(envelopeKindOf(routes.listNotifications.response)).toBe("whole");
    expect(envelopeKindOf(routes.listJobReviews.response)).toBe("whole");
    expect(envelopeKindOf(routes.streamJob.response)).toBe("whole");
    expect(envelopeKindOf(routes.getAgentRegistrationFile.response)).toBe("whole");
  });

  it("wraps values and pages, and leaves a stream and a whole body as they are", () => {
    const meta = { nextCursor: null, hasMore: false, limit: 20 };
    expect(wrapOutput("data", { id: "a" })).toEqual({ data: { id: "a" } });
    expect(wrapOutput("page", { items: [1, 2], meta })).toEqual({ data: [1, 2], meta });
    const stream = new Response("event: job\n\n");
    expect(wrapOutput("data", stream)).toBe(stream);
    expect(wrapOutput("whole", { data: [], meta, unreadCount: 0 })).toEqual({ data: [], meta, unreadCount: 0 });
  });
});

describe("idempotent replays", () => {
  let service: TestService;
  let user: TestUser;
  beforeAll(async () => {
    service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
    user = await newUser(service);
  });
  afterAll(() => service?.stop());

  const payload = {
    title: `Envelope replay thread ${Date.now()}`,
    body: "A body long enough to pass the twenty character minimum, posted with a key.",
    category: "bidding-strategy",
  };
  const post = (key: string) =>
    service.http("POST", "/v1/forum/threads", {
      token: user.token,
      body: payload,
      headers: { "idempotency-key": key },
    });
  const threadsMade = async () =>
    (await service.db.selectFrom("forum_threads").select("id").where("title", "=", payload.title).execute()).length;

  it("answer the stored body, the whole envelope, without wrapping it again (also one stored by an earlier version)", async () => {
    const key = `envelope-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const first = await post(key);
    expect(first.status).toBe(201);
    expect(first.json.data.title).toBe(payload.title);

    const replayed = await post(key);
    expect(replayed.status).toBe(201);
    expect(replayed.json).toEqual(first.json);

    // A key answered before verbs returned plain values: its row holds the full body, as every row does.
    const row = await service.db
      .selectFrom("idempotency_keys")
      .select(["identity", "scope", "request_hash"])
      .where("scope", "=", "POST /v1/forum/threads")
      .where("key", "=", key)
      .executeTakeFirstOrThrow();
    const earlier = `${key}-earlier`;
    await service.db
      .insertInto("idempotency_keys")
      .values({ ...row, key: earlier, response_status: 201, response_body: JSON.stringify(first.json) })
      .execute();
    const fromEarlier = await post(earlier);
    expect(fromEarlier.status).toBe(201);
    expect(fromEarlier.json).toEqual(first.json);
    expect(await threadsMade()).toBe(1);
  });
});
