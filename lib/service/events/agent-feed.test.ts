import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobInput, newAgent, newUser, startTestService, type TestAgent, type TestService } from "../testing/harness";
import { claimedAgent } from "../testing/evals-support";
import { sql } from "kysely";
import { publishEvent } from "./publish-event";

// An agent's own event feed: what its webhooks receive, by polling (GET /v1/agents/:id/events) or
// as server-sent events (/stream), for agents without a public URL.
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

const feed = (agent: { id: string }, token: string, query = "") =>
  service.http("GET", `/v1/agents/${agent.id}/events${query}`, { token });

/**
 * Reads the feed until `done` holds: an event is served once every transaction that could still
 * add an earlier one has ended, which on a shared database may take a moment.
 */
async function feedUntil(agent: TestAgent, done: (events: any[]) => boolean, query = "") {
  for (let i = 0; ; i += 1) {
    const res = await feed(agent, agent.apiKey, query);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    if (done(res.json.data) || i === 50) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A job whose poster writes to the agent: a bid, then n messages (each a message.created for the agent). */
async function messagesTo(agent: TestAgent, n: number) {
  const poster = await newUser(service);
  const job = (await poster.client.createJob({ body: jobInput({ budget: "40" }) })).data;
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  for (let i = 0; i < n; i += 1)
    await poster.client.postJobMessage({ params: { id: job.id }, body: { with: agent.id, body: `Note ${i + 1}` } });
  return { poster, jobId: job.id, bidId: bid.id };
}

describe("GET /v1/agents/:id/events", () => {
  it("the agent's events oldest first as webhook envelopes, paged by cursor; nextCursor stays put at the end", async () => {
    const agent = await newAgent(service);
    const { poster, jobId, bidId } = await messagesTo(agent, 2);
    await poster.client.acceptBid({ params: { jobId, bidId } });
    const all = await feedUntil(agent, (events) => events.length >= 4);
    expect(all.data.map((e: { type: string }) => e.type)).toEqual([
      "message.created",
      "message.created",
      "bid.accepted",
      "job.assigned",
    ]);
    const rows = await service.db
      .selectFrom("domain_events")
      .select(["id", "type", "created_at", "data"])
      .where("job_id", "=", jobId)
      .orderBy("seq")
      .execute();
    const accepted = rows.find((r) => r.type === "bid.accepted")!;
    // Exactly the webhook body of the same event: {id, type, createdAt, data}.
    expect(all.data[2]).toEqual({
      id: accepted.id,
      type: "bid.accepted",
      createdAt: accepted.created_at.toISOString(),
      data: accepted.data,
    });
    // The poster's own event (bid.created) is not the agent's.
    expect(rows.map((r) => r.type)).toContain("bid.created");

    const first = await feed(agent, agent.apiKey, "?limit=2");
    expect(first.json.data.map((e: { id: string }) => e.id)).toEqual(
      all.data.slice(0, 2).map((e: { id: string }) => e.id),
    );
    expect(first.json.meta).toMatchObject({ hasMore: true, limit: 2 });
    const second = await feed(agent, agent.apiKey, `?limit=2&cursor=${first.json.meta.nextCursor}`);
    expect(second.json.data.map((e: { id: string }) => e.id)).toEqual([accepted.id, all.data[3].id]);
    expect(second.json.meta.hasMore).toBe(false);
    const end = await feed(agent, agent.apiKey, `?cursor=${second.json.meta.nextCursor}`);
    expect(end.json).toEqual({
      data: [],
      meta: { nextCursor: second.json.meta.nextCursor, hasMore: false, limit: 50 },
    });

    const empty = await newAgent(service);
    expect((await feed(empty, empty.apiKey)).json.meta.nextCursor).toBeNull();
  });

  it("the agent's key or its owner read it; another agent, another person and no credential do not; a bad cursor is a 400", async () => {
    const { agent, owner } = await claimedAgent(service);
    await messagesTo(agent, 1);
    await feedUntil(agent, (events) => events.length === 1);
    expect((await feed(agent, owner.token)).json.data).toHaveLength(1);
    const other = await newAgent(service);
    const stranger = await newUser(service);
    expect((await feed(agent, other.apiKey)).status).toBe(403);
    expect((await feed(agent, stranger.token)).status).toBe(403);
    expect((await service.http("GET", `/v1/agents/${agent.id}/events`)).status).toBe(401);
    expect((await feed({ id: "no-such-agent" }, stranger.token)).status).toBe(404);
    const bad = await feed(agent, agent.apiKey, "?cursor=bm9wZQ");
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("VALIDATION_FAILED");
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "a cursor never passes an event that commits later: an event of a transaction still running holds back the ones after it (PostgreSQL)",
    async () => {
      const agent = await newAgent(service);
      await messagesTo(agent, 1);
      const before = await feedUntil(agent, (events) => events.length === 1);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const insertedYet = new Promise<void>((r) => (inserted = r));
      // A slow transaction: its event is inserted first (its transaction id is the lower), committed last.
      const slow = service.db.transaction().execute(async (trx) => {
        await publishEvent(trx, { type: "webhook.test", to: [agent.id], data: { slow: true } });
        inserted();
        await held;
      });
      await insertedYet;
      await messagesTo(agent, 1);
      // The later event has committed, but the slow one may still land before it: neither is served yet.
      const during = await feed(agent, agent.apiKey, `?cursor=${before.meta.nextCursor}`);
      expect(during.json.data).toEqual([]);
      expect(during.json.meta.nextCursor).toBe(before.meta.nextCursor);
      release();
      await slow;
      const after = await feedUntil(agent, (events) => events.length === 2, `?cursor=${before.meta.nextCursor}`);
      expect(after.data.map((e: { type: string }) => e.type)).toEqual(["webhook.test", "message.created"]);
    },
  );
});

async function readEvents(response: Response, count: number, controller: AbortController) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events: Array<{ event: string; id: string; data: any }> = [];
  const deadline = Date.now() + 15_000;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const blocks = text.split("\n\n");
    text = blocks.pop()!;
    for (const block of blocks) {
      const fields = Object.fromEntries(
        block
          .split("\n")
          .filter((l) => /^(event|id|data): /.test(l))
          .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
      );
      if (fields.event) events.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data) });
    }
  }
  controller.abort();
  return events;
}

describe("the feed's order is numeric", () => {
  it("events whose seq crosses a power of ten in one transaction come in seq order, listed and streamed (not in the order of their text)", async () => {
    const agent = await newAgent(service);
    // The next power of ten above the sequence, minus 5: the next ten events cross it. Only ever
    // moved forward, so other suites sharing the database are not disturbed.
    await sql`select setval(pg_get_serial_sequence('domain_events', 'seq'),
      greatest((select last_value from domain_events_seq_seq),
        power(10, ceil(log(greatest((select last_value from domain_events_seq_seq), 10) + 6)))::bigint - 5))`.execute(
      service.db,
    );
    const controller = new AbortController();
    const live = await fetch(`${service.baseUrl}/v1/agents/${agent.id}/events/stream`, {
      headers: { authorization: `Bearer ${agent.apiKey}` },
      signal: controller.signal,
    });
    await service.db.transaction().execute(async (trx) => {
      for (let n = 1; n <= 10; n += 1) await publishEvent(trx, { type: "webhook.test", to: [agent.id], data: { n } });
    });
    const streamed = await readEvents(live, 10, controller);
    expect(streamed.map((e) => e.data.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const first = await feedUntil(agent, (events) => events.length === 4, "?limit=4");
    const listed = [...first.data];
    let cursor = first.meta.nextCursor;
    while (listed.length < 10) {
      const page = await feed(agent, agent.apiKey, `?limit=4&cursor=${cursor}`);
      listed.push(...page.json.data);
      cursor = page.json.meta.nextCursor;
    }
    expect(listed.map((e: { data: { n: number } }) => e.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe("GET /v1/agents/:id/events/stream", () => {
  it("sends the agent's new events as they happen, and resumes after Last-Event-ID", async () => {
    const agent = await newAgent(service);
    const { poster, jobId } = await messagesTo(agent, 1);
    await feedUntil(agent, (events) => events.length === 1);
    const controller = new AbortController();
    const live = await fetch(`${service.baseUrl}/v1/agents/${agent.id}/events/stream`, {
      headers: { authorization: `Bearer ${agent.apiKey}` },
      signal: controller.signal,
    });
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // Without a cursor the stream starts now: the earlier message is not resent.
    const reading = readEvents(live, 2, controller);
    await new Promise((r) => setTimeout(r, 300));
    await poster.client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Live 1" } });
    await poster.client.postJobMessage({ params: { id: jobId }, body: { with: agent.id, body: "Live 2" } });
    const events = await reading;
    expect(events.map((e) => e.event)).toEqual(["message.created", "message.created"]);
    expect(events[0]!.data).toMatchObject({ type: "message.created", data: { jobId, agentId: agent.id } });

    const again = new AbortController();
    const resumed = await fetch(`${service.baseUrl}/v1/agents/${agent.id}/events/stream`, {
      headers: { authorization: `Bearer ${agent.apiKey}`, "last-event-id": events[0]!.id },
      signal: again.signal,
    });
    const rest = await readEvents(resumed, 1, again);
    expect(rest.map((e) => e.data.id)).toEqual([events[1]!.data.id]);

    const other = await newAgent(service);
    expect((await service.http("GET", `/v1/agents/${agent.id}/events/stream`, { token: other.apiKey })).status).toBe(
      403,
    );
  });
});
