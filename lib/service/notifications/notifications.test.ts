import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueText } from "@/lib/testing/unique-text";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  mailTextFor,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { publishEvent } from "../events/publish-event";
import { fanOutNotifications } from "./fan-out";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

let counter = 0;
const emailOf = (tag: string) => `${tag}-${process.pid}-${Date.now()}-${(counter += 1)}@example.test`;

/** Runs the fan-out until nothing is left (other suites may publish into the same database). */
async function drain() {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
}

/** A person with a verified email: they claimed an agent from the link mailed to that address. */
async function personWithEmail(tag: string): Promise<TestUser & { email: string }> {
  const user = await newUser(service);
  const email = emailOf(tag);
  await newAgent(service, { ownerEmail: email });
  await user.client.claimAgent({ params: { token: await claimLinkFor(service, email) } });
  return { ...user, email };
}

async function mailsTo(to: string) {
  return service.db
    .selectFrom("mail_outbox")
    .select(["subject", "created_at"])
    .where("to_address", "=", to)
    .orderBy("created_at", "desc")
    .execute();
}

describe("notifications from domain events", () => {
  it("a new bid reaches the poster's inbox and mail once, with a sentence and a link; read marks it", async () => {
    const poster = await personWithEmail("poster");
    const job = (await poster.client.createJob({ body: jobInput({ title: "Summarise 30 supplier contracts" }) })).data;
    const bidder = await newAgent(service, { name: "Careful Reader" });
    await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40.5" } });
    await drain();
    await drain();

    const inbox = await poster.client.listNotifications({});
    const mine = inbox.data.filter((n) => n.jobId === job.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ kind: "new_bid", type: "bid.created", link: `/jobs/${job.id}`, readAt: null });
    expect(mine[0]!.text).toBe("New bid of 40.5 USDC on “Summarise 30 supplier contracts” from Careful Reader.");
    expect(inbox.unreadCount).toBeGreaterThanOrEqual(1);

    const mails = (await mailsTo(poster.email)).filter((m) => m.subject.startsWith("New bid"));
    expect(mails).toHaveLength(1);
    const text = await mailTextFor(service, poster.email);
    expect(text).toContain(`/jobs/${job.id}`);
    expect(text).toMatch(/\/unsubscribe\?token=\S+/);

    const before = (await poster.client.getUnreadNotificationCount({})).data.unreadCount;
    await poster.client.markNotificationRead({ params: { id: mine[0]!.id } });
    expect((await poster.client.getUnreadNotificationCount({})).data.unreadCount).toBe(before - 1);
    await poster.client.markAllNotificationsRead({});
    expect((await poster.client.getUnreadNotificationCount({})).data.unreadCount).toBe(0);
  });

  it("an event for an agent reaches the human who owns it (and nobody for an unclaimed agent)", async () => {
    const owner = await personWithEmail("agent-owner");
    const ownerEmail = emailOf("posting-agent");
    const postingAgent = await newAgent(service, { ownerEmail });
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const job = (await postingAgent.client.createJob({ body: jobInput({ title: "Agent-posted translation job" }) }))
      .data;
    const bidder = await newAgent(service);
    await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
    // An event naming an unclaimed agent reaches no inbox, and is still marked done.
    const orphan = await service.db
      .transaction()
      .execute((trx) => publishEvent(trx, { type: "bid.accepted", jobId: job.id, to: [bidder.id], data: {} }));
    await drain();

    const inbox = await owner.client.listNotifications({ query: { unread: true } });
    expect(inbox.data.filter((n) => n.jobId === job.id)).toMatchObject([
      { type: "bid.created", text: expect.stringContaining("Agent-posted translation job") },
    ]);
    const notes = await service.db
      .selectFrom("notifications")
      .select("user_id")
      .where("event_id", "=", orphan)
      .execute();
    expect(notes).toHaveLength(0);
    const row = await service.db
      .selectFrom("domain_events")
      .select("notifications_done_at")
      .where("id", "=", orphan)
      .executeTakeFirstOrThrow();
    expect(row.notifications_done_at).not.toBeNull();
  });

  it("a stranger cannot read or mark another person's inbox; an agent key has no inbox", async () => {
    const poster = await personWithEmail("private");
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bidder = await newAgent(service);
    await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
    await drain();
    const theirs = (await poster.client.listNotifications({})).data.find((n) => n.jobId === job.id)!;
    expect(theirs).toBeDefined();

    const stranger = await newUser(service);
    const list = await service.http("GET", "/v1/notifications", { token: stranger.token });
    expect(list.status).toBe(200);
    expect(list.json.data.find((n: { id: string }) => n.id === theirs.id)).toBeUndefined();
    const mark = await service.http("POST", `/v1/notifications/${theirs.id}/read`, { token: stranger.token });
    expect(mark.status).toBe(404);
    expect((await poster.client.listNotifications({})).data.find((n) => n.id === theirs.id)!.readAt).toBeNull();

    const asAgent = await service.http("GET", "/v1/notifications", { token: bidder.apiKey });
    expect(asAgent.status).toBe(403);
    expect(asAgent.json.code).toBe("HUMAN_SESSION_REQUIRED");
    expect((await service.http("GET", "/v1/notifications")).status).toBe(401);
  });

  it("preferences stop the mail of a kind (the inbox still gets it)", async () => {
    const poster = await personWithEmail("quiet");
    const settings = await poster.client.updateNotificationSettings({ body: { email_kinds: { new_bid: false } } });
    expect(settings.data.kinds.find((k) => k.kind === "new_bid")!.email).toBe(false);
    expect(settings.data).toMatchObject({ email: poster.email, emailSource: "CLAIMED_AGENT" });
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bidder = await newAgent(service);
    await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
    await drain();
    expect((await poster.client.listNotifications({})).data.filter((n) => n.jobId === job.id)).toHaveLength(1);
    expect((await mailsTo(poster.email)).filter((m) => m.subject.startsWith("New bid"))).toHaveLength(0);
  });

  it("the unsubscribe link works signed out, turns that kind's mail off; a forged or altered token is refused", async () => {
    const poster = await personWithEmail("unsub");
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const first = await newAgent(service);
    await first.client.placeBid({ params: { id: job.id }, body: { agentId: first.id, proposedUsdc: "40" } });
    await drain();
    const token = /\/unsubscribe\?token=(\S+)/.exec(await mailTextFor(service, poster.email))![1]!;

    // GET (a link scanner) changes nothing.
    const look = await service.http("GET", `/v1/notifications/unsubscribe?token=${token}`);
    expect(look.status).toBe(200);
    expect(look.json.data).toMatchObject({ kind: "new_bid", unsubscribed: false });
    // One-click as a mail client does it (RFC 8058): a form body, no credential.
    const click = await service.http("POST", `/v1/notifications/unsubscribe?token=${token}`, {
      rawBody: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(click.status, JSON.stringify(click.json)).toBe(200);
    expect(click.json.data).toMatchObject({ kind: "new_bid", unsubscribed: true });
    expect((await poster.client.getNotificationSettings({})).data.kinds.find((k) => k.kind === "new_bid")!.email).toBe(
      false,
    );

    const second = await newAgent(service);
    await second.client.placeBid({ params: { id: job.id }, body: { agentId: second.id, proposedUsdc: "40" } });
    await drain();
    expect((await mailsTo(poster.email)).filter((m) => m.subject.startsWith("New bid"))).toHaveLength(1);

    // Forged: another person's id with a made-up signature; altered: the kind swapped under a real signature.
    const [payload, signature] = token.split(".");
    const stranger = await newUser(service);
    const forged = `${Buffer.from(`${stranger.id}:new_bid`).toString("base64url")}.${signature}`;
    const altered = `${Buffer.from(`${poster.id}:payment`).toString("base64url")}.${signature}`;
    for (const bad of [forged, altered, `${payload}.AAAA${signature!.slice(4)}`, "nonsense"]) {
      const refused = await service.http("POST", `/v1/notifications/unsubscribe?token=${encodeURIComponent(bad)}`);
      expect(refused.status).toBe(400);
      expect(refused.json.code).toBe("UNSUBSCRIBE_TOKEN_INVALID");
    }
    // A token signed by another deployment (another secret) is refused too.
    const other = await startTestService();
    try {
      expect((await other.http("POST", `/v1/notifications/unsubscribe?token=${token}`)).json.code).toBe(
        "UNSUBSCRIBE_TOKEN_INVALID",
      );
    } finally {
      await other.stop();
    }
  });

  it("a person without a claimed agent sets an email, which receives mail only once its link was opened", async () => {
    const poster = await newUser(service);
    const email = emailOf("settings");
    const pending = await poster.client.updateNotificationSettings({ body: { email } });
    expect(pending.data).toMatchObject({ email: null, pendingEmail: email });
    const token = /verify\?token=(\S+)/.exec(await mailTextFor(service, email))![1]!;
    expect((await service.http("POST", `/v1/notifications/email/verify?token=${token}x`)).json.code).toBe(
      "EMAIL_TOKEN_INVALID",
    );
    const verified = await service.http("POST", `/v1/notifications/email/verify?token=${token}`);
    expect(verified.status).toBe(200);
    expect((await poster.client.getNotificationSettings({})).data).toMatchObject({
      email,
      emailSource: "SETTINGS",
      pendingEmail: null,
    });
    // The link works once.
    expect((await service.http("POST", `/v1/notifications/email/verify?token=${token}`)).status).toBe(400);
  });

  it("a reply in a followed thread reaches the author and earlier repliers, not the replier", async () => {
    const author = await newUser(service);
    const thread = (
      await author.client.createThread({
        body: {
          title: `Following replies ${Date.now()}-${(counter += 1)}`,
          body: uniqueText(60),
          category: "agent-lounge",
          intent: "question",
        } as never,
      })
    ).data;
    const replier = await newUser(service);
    await replier.client.createReply({ params: { slugOrId: thread.id }, body: { body: uniqueText(30) } });
    const late = await newUser(service);
    await late.client.createReply({ params: { slugOrId: thread.id }, body: { body: uniqueText(30) } });
    await drain();
    const forAuthor = (await author.client.listNotifications({})).data.filter(
      (n) => n.type === "forum.reply" && n.link?.includes(thread.slug),
    );
    const forReplier = (await replier.client.listNotifications({})).data.filter(
      (n) => n.type === "forum.reply" && n.link?.includes(thread.slug),
    );
    const forLate = (await late.client.listNotifications({})).data.filter((n) => n.type === "forum.reply");
    expect(forAuthor).toHaveLength(2);
    expect(forReplier).toHaveLength(1);
    expect(forLate).toHaveLength(0);
  });
});

describe("saved searches", () => {
  it("a new job matching a saved search tells its owner once; others and the poster's own searches do not match", async () => {
    const word = `zebrafish${Date.now()}`;
    const saver = await newUser(service);
    const saved = await saver.client.createSavedSearch({
      body: { query: { q: word, board: "marketplace", minBudget: "30", limit: 5 } as never },
    });
    expect(saved.data.query).toEqual({ q: word, board: "marketplace", minBudget: "30" });
    expect(saved.data.boardPath).toBe(`/jobs?q=${word}&board=marketplace&minBudget=30`);
    expect((await saver.client.listSavedSearches({})).data.map((s) => s.id)).toContain(saved.data.id);

    const poster = await newUser(service);
    const match = (
      await poster.client.createJob({
        body: jobInput({ description: `Count the ${word} in the tank photos and list them by colour.` }),
      })
    ).data;
    await poster.client.createJob({
      body: jobInput({ description: `Count the ${word} in the tank photos, cheaply.`, budget: "10" }),
    });
    await poster.client.createJob({ body: jobInput({ description: "Nothing about fish at all, only birds." }) });
    // The saver's own job never matches their search.
    await saver.client.createJob({ body: jobInput({ description: `My own ${word} job.` }) });
    await drain();

    const matched = (await saver.client.listNotifications({})).data.filter((n) => n.type === "saved_search.matched");
    expect(matched).toHaveLength(1);
    expect(matched[0]).toMatchObject({ kind: "saved_search", jobId: match.id, link: `/jobs/${match.id}` });

    await saver.client.deleteSavedSearch({ params: { id: saved.data.id } });
    await poster.client.createJob({ body: jobInput({ description: `More ${word} to count.` }) });
    await drain();
    expect(
      (await saver.client.listNotifications({})).data.filter((n) => n.type === "saved_search.matched"),
    ).toHaveLength(1);
    expect((await service.http("DELETE", `/v1/saved-searches/${saved.data.id}`, { token: saver.token })).status).toBe(
      404,
    );
  });

  it("a saved search is the board's own query: what the board refuses is refused", async () => {
    const saver = await newUser(service);
    const bad = await service.http("POST", "/v1/saved-searches", {
      token: saver.token,
      body: { query: { sort: "relevance" } },
    });
    expect(bad.status).toBe(400);
  });
});

describe("job page stream (server-sent events)", () => {
  async function readEvents(
    path: string,
    token: string | undefined,
    until: (events: Array<{ event: string; data: string }>) => boolean,
    act: () => Promise<void>,
  ) {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const events: Array<{ event: string; data: string }> = [];
    let buffer = "";
    let acted = false;
    const deadline = Date.now() + 10_000;
    try {
      while (Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data });
        }
        if (!acted) {
          acted = true;
          await act();
        }
        if (until(events)) break;
      }
    } finally {
      controller.abort();
    }
    return events;
  }

  it("delivers a new bid to the poster (timeline event) and the new bid count to anyone", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const bidder = await newAgent(service);
    const events = await readEvents(
      `/v1/jobs/${job.id}/stream`,
      poster.token,
      (all) => all.some((e) => e.event === "bid.created"),
      async () => {
        await bidder.client.placeBid({ params: { id: job.id }, body: { agentId: bidder.id, proposedUsdc: "40" } });
      },
    );
    const bid = events.find((e) => e.event === "bid.created");
    expect(bid, JSON.stringify(events)).toBeDefined();
    expect(JSON.parse(bid!.data)).toMatchObject({ type: "bid.created", actor: { kind: "AGENT", id: bidder.id } });

    const second = await newAgent(service);
    const anonymous = await readEvents(
      `/v1/jobs/${job.id}/stream`,
      undefined,
      (all) => all.some((e) => e.event === "job"),
      async () => {
        await second.client.placeBid({ params: { id: job.id }, body: { agentId: second.id, proposedUsdc: "40" } });
      },
    );
    expect(anonymous.find((e) => e.event === "job")!.data).toContain('"bidCount":2');
    // Private steps are the parties': a stranger's stream carries no timeline event.
    expect(anonymous.some((e) => e.event === "bid.created")).toBe(false);
  });

  it("answers 404 for a job that does not exist", async () => {
    const res = await service.http("GET", "/v1/jobs/00000000-0000-4000-8000-000000000000/stream");
    expect(res.status).toBe(404);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("fan-out on PostgreSQL", () => {
  it("two workers at once write each event's notification exactly once", async () => {
    const person = await newUser(service);
    const ids: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      ids.push(
        await service.db
          .transaction()
          .execute((trx) =>
            publishEvent(trx, { type: "reward.paid", to: [person.id], data: { netUsdc: String(i + 1) } }),
          ),
      );
    }
    await Promise.all([drainWith(5), drainWith(5), drainWith(7)]);
    const rows = await service.db
      .selectFrom("notifications")
      .select("event_id")
      .where("user_id", "=", person.id)
      .execute();
    expect(rows).toHaveLength(60);
    expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(ids));
  });
  async function drainWith(limit: number) {
    while ((await fanOutNotifications(service.ctx, { limit })) > 0) {
      /* next batch */
    }
  }
});
