import net from "node:net";
import { sql, type KyselyPlugin } from "kysely";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sameSourceAs } from "../db/connection";
import { STREAM_LIMITS } from "../http/stream-slots";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newClientIp,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
} from "../testing/harness";
import type { DatabaseEventBus } from "./event-bus";
import { publishEvent } from "./publish-event";

// The event bus (event-bus.ts) and the streams it feeds (stream-hub.ts), across two instances of
// the service: each its own HTTP server, service and (on PostgreSQL) connection pool and LISTEN
// connection, as two machines behind the load balancer would have. On PGlite both share the one
// in-process database, as a second service in the same process would.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const operatorKey = generatePrivateKey();
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address.toLowerCase()],
  });
  b = await startTestService({ rateBudgets: GENEROUS_BUDGETS }, { ownPool: true });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** A server-sent event stream read as a browser's EventSource would, one whole event at a time. */
async function openStream(service: TestService, path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${service.baseUrl}${path}`, {
    headers: { "x-forwarded-for": newClientIp(), ...headers },
    signal: controller.signal,
  });
  expect(response.status, await (response.ok ? "" : response.clone().text())).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let text = "";
  let ended = false;
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, ...(id ? { id } : {}), data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
    ended = true;
  })();
  return {
    events,
    get ended() {
      return ended;
    },
    /** Waits (generously: this machine is shared) until `done` holds of the events received. */
    async until(done: (events: SseEvent[]) => boolean, what: string, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(events)) {
        if (Date.now() > deadline)
          throw new Error(
            `${what}: not within ${timeoutMs} ms; got ${events.length}: ${JSON.stringify(events).slice(0, 2000)}`,
          );
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async ends(timeoutMs = 20_000) {
      await Promise.race([pump, new Promise((r) => setTimeout(r, timeoutMs))]);
      return ended;
    },
    close() {
      controller.abort();
    },
  };
}

const feedPath = (agent: { id: string }) => `/v1/agents/${agent.id}/events/stream`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Events for the agent committed straight into the feed, each its own transaction, in order. */
async function publishTo(service: TestService, agent: { id: string }, from: number, to: number) {
  for (let n = from; n <= to; n += 1)
    await publishEvent(service.db, { type: "webhook.test", to: [agent.id], data: { n } });
}

/** The agent's feed as GET /v1/agents/:id/events lists it (the database's answer), once it holds `count` events. */
async function feedOf(service: TestService, agent: TestAgent, count: number) {
  for (let i = 0; ; i += 1) {
    const res = await service.http("GET", `/v1/agents/${agent.id}/events?limit=100`, { token: agent.apiKey });
    expect(res.status).toBe(200);
    if (res.json.data.length >= count || i === 100) return res.json.data as Array<{ id: string; data: any }>;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("one listener per instance, streams fed from memory", () => {
  it("an event committed through instance A reaches a stream open on instance B, and a job page on B sees a bid placed through A", async () => {
    const agent = await newAgent(a);
    const poster = await newUser(a);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const onB = await openStream(b, feedPath(agent), bearer(agent.apiKey));
    const pageOnB = await openStream(b, `/v1/jobs/${job.id}/stream`);
    const posterPageOnB = await openStream(b, `/v1/jobs/${job.id}/stream`, bearer(poster.token));

    // Through A's HTTP API: the bid (bid.created for the poster, the job's count for anyone), then a
    // message from the poster to the agent (message.created, in the agent's feed).
    await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } });
    await poster.client.postJobMessage({ params: { id: job.id }, body: { with: agent.id, body: "Hello from A" } });

    await onB.until((e) => e.some((x) => x.event === "message.created"), "the agent's stream on B");
    expect(onB.events.map((e) => e.event)).toEqual(["message.created"]);
    expect(onB.events[0]!.data).toMatchObject({ type: "message.created", data: { jobId: job.id, agentId: agent.id } });
    await pageOnB.until((e) => e.some((x) => x.event === "job" && x.data.bidCount === 1), "the job page on B");
    // The public page carries no timeline event; the poster's carries the bid's.
    expect(pageOnB.events.some((e) => e.event === "bid.created")).toBe(false);
    await posterPageOnB.until((e) => e.some((x) => x.event === "bid.created"), "the poster's job page on B");
    for (const s of [onB, pageOnB, posterPageOnB]) s.close();
  });

  it("a listener that reconnects with Last-Event-ID gets exactly what it missed, in the feed's order: no gap, no duplicate", async () => {
    const agent = await newAgent(a);
    const first = await openStream(b, feedPath(agent), bearer(agent.apiKey));
    await publishTo(a, agent, 1, 3);
    await first.until((e) => e.length === 3, "the first three");
    first.close();
    const lastSeen = first.events[2]!.id!;

    // Missed while away: 4 to 8, committed through the other instance.
    await publishTo(a, agent, 4, 8);
    const again = await openStream(b, feedPath(agent), { ...bearer(agent.apiKey), "last-event-id": lastSeen });
    // And new ones while it catches up and after.
    const more = publishTo(a, agent, 9, 12);
    await again.until((e) => e.length >= 9, "the missed five and the four new");
    await more;
    await new Promise((r) => setTimeout(r, 300));
    expect(again.events.map((e) => e.data.data.n)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The same events, ids and order as the feed the database serves.
    const feed = await feedOf(a, agent, 12);
    expect([...first.events, ...again.events].map((e) => e.data.id)).toEqual(feed.map((e) => e.id));
    again.close();
  });

  it("a reconnect from the cursor of GET /v1/agents/:id/events (query cursor) starts right after it", async () => {
    const agent = await newAgent(a);
    await publishTo(a, agent, 1, 2);
    const listed = await a.http("GET", `/v1/agents/${agent.id}/events?limit=1`, { token: agent.apiKey });
    const stream = await openStream(
      b,
      `${feedPath(agent)}?cursor=${listed.json.meta.nextCursor}`,
      bearer(agent.apiKey),
    );
    await stream.until((e) => e.length === 1, "the second event");
    await publishTo(a, agent, 3, 3);
    await stream.until((e) => e.length === 2, "the third event");
    expect(stream.events.map((e) => e.data.data.n)).toEqual([2, 3]);
    stream.close();
  });

  it("idle streams cost the database nothing: thirty open streams make no more queries than one (none but the bus's own reads)", async () => {
    // A third instance whose every statement is counted (a plugin on its database handle).
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        return args.result;
      },
    };
    const counted = sameSourceAs(a.db.withPlugin(counter), a.db);
    const c = await startTestService({ rateBudgets: GENEROUS_BUDGETS }, { db: counted });
    try {
      const poster = await newUser(a);
      const jobs = await Promise.all([1, 2, 3].map(() => poster.client.createJob({ body: jobInput() })));
      const agents = await Promise.all([1, 2, 3].map(() => newAgent(a)));

      const idleWindow = async () => {
        await new Promise((r) => setTimeout(r, 200));
        const busBefore = c.ctx.streams!.bus.stats().reads;
        const before = statements;
        await new Promise((r) => setTimeout(r, 3_000));
        return { streams: statements - before, busReads: c.ctx.streams!.bus.stats().reads - busBefore };
      };

      const one = await openStream(c, `/v1/jobs/${jobs[0]!.data.id}/stream`);
      const withOne = await idleWindow();
      const many = [];
      for (let i = 0; i < 29; i += 1) {
        many.push(
          i % 2 === 0
            ? await openStream(c, `/v1/jobs/${jobs[i % 3]!.data.id}/stream`)
            : await openStream(c, feedPath(agents[i % 3]!), bearer(agents[i % 3]!.apiKey)),
        );
      }
      expect(c.ctx.streams!.stats().open).toBe(30);
      const withThirty = await idleWindow();
      // Every statement of the window was one of the bus's reads (one a tick, for the whole
      // process): the streams themselves read nothing while idle.
      // (Give or take the one read in flight when the window opened or closed.)
      expect(Math.abs(withOne.streams - withOne.busReads)).toBeLessThanOrEqual(1);
      expect(Math.abs(withThirty.streams - withThirty.busReads)).toBeLessThanOrEqual(1);
      for (const s of [one, ...many]) s.close();
    } finally {
      await c.stop();
    }
  });
});

describe("slow readers", () => {
  it("a listener that stops reading is dropped once its buffer passes the bound, its slot freed; it resumes from the last event it received and misses nothing", async () => {
    const agent = await newAgent(a);
    // A raw client that stops reading: the socket's buffers fill, then the stream's own.
    const url = new URL(`${b.baseUrl}${feedPath(agent)}`);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once("connect", r));
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${agent.apiKey}\r\n` +
        `x-forwarded-for: ${newClientIp()}\r\naccept: text/event-stream\r\n\r\n`,
    );
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.on("error", () => {});
    const deadline0 = Date.now() + 20_000;
    while (!Buffer.concat(received).toString().includes(": connected") && Date.now() < deadline0)
      await new Promise((r) => setTimeout(r, 25));
    socket.pause();
    const hub = b.ctx.streams!;
    const slowBefore = hub.stats().ended.slow;
    const openBefore = hub.stats().open;

    // 1,000 events of 16 kB (16 MB): more than the loopback socket's buffers and the stream's bound.
    const total = 1_000;
    await sql`
      insert into domain_events (type, recipient_ids, data)
      select 'webhook.test', array[${agent.id}]::text[], jsonb_build_object('n', g, 'pad', repeat('x', 16000))
      from generate_series(1, ${total}) g`.execute(a.db);

    const deadline = Date.now() + 60_000;
    while (hub.stats().ended.slow === slowBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(hub.stats().ended.slow).toBe(slowBefore + 1);
    expect(hub.stats().open).toBe(openBefore - 1);

    // What reached the socket before the drop arrives, then the end; whole events carry their ids.
    // (The answer ends with its last chunk; the connection itself may stay open for another request.)
    socket.resume();
    const ended = Date.now() + 30_000;
    while (!Buffer.concat(received).toString().endsWith("\r\n0\r\n\r\n") && Date.now() < ended)
      await new Promise((r) => setTimeout(r, 25));
    socket.destroy();
    await closed;
    const text = Buffer.concat(received).toString("utf8");
    const whole = [...text.matchAll(/event: webhook\.test\nid: (\S+)\ndata: (\{.*\})\n\n/g)];
    const ns = whole.map((m) => JSON.parse(m[2]!).data.n as number);
    expect(ns.length).toBeGreaterThan(0);
    expect(ns.length).toBeLessThan(total);
    expect(ns).toEqual(ns.map((_, i) => i + 1));
    const lastId = whole[whole.length - 1]![1]!;

    // Its slot was given back: the credential holds as many streams as allowed again.
    // The first resumes right after the last whole event it received, and reads the rest.
    const resumed = await openStream(b, feedPath(agent), { ...bearer(agent.apiKey), "last-event-id": lastId });
    const streams = [resumed];
    for (let i = 1; i < STREAM_LIMITS.perCredential; i += 1)
      streams.push(await openStream(b, feedPath(agent), bearer(agent.apiKey)));
    await resumed.until((e) => e.length === total - ns.length, "the rest", 60_000);
    expect(resumed.events[0]!.data.data.n).toBe(ns.length + 1);
    expect(resumed.events[resumed.events.length - 1]!.data.data.n).toBe(total);
    for (const s of streams) s.close();
  }, 180_000);
});

describe("credentials", () => {
  it("revoking a key ends its open streams at once on every instance; streams of the agent's other key go on", async () => {
    const agent = await newAgent(a);
    const poster = await newUser(a);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const minted = await a.http("POST", `/v1/agents/${agent.id}/keys`, {
      token: agent.apiKey,
      body: { name: "streams" },
    });
    expect(minted.status, JSON.stringify(minted.json)).toBe(201);
    const key = minted.json.data.secret as string;

    const onA = await openStream(a, feedPath(agent), bearer(key));
    const onB = await openStream(b, feedPath(agent), bearer(key));
    const jobOnB = await openStream(b, `/v1/jobs/${job.id}/stream`, bearer(key));
    const other = await openStream(b, feedPath(agent), bearer(agent.apiKey));

    const revoked = await a.http("DELETE", `/v1/agents/${agent.id}/keys/${minted.json.data.key.id}`, {
      token: agent.apiKey,
    });
    expect(revoked.status).toBe(200);
    for (const s of [onA, onB, jobOnB]) {
      expect(await s.ends()).toBe(true);
      expect(s.events.at(-1)).toMatchObject({ event: "end", data: { reason: "credential.ended" } });
    }
    // The reconnect EventSource would make is refused.
    const retry = await fetch(`${b.baseUrl}${feedPath(agent)}`, { headers: bearer(key) });
    expect(retry.status).toBe(401);
    expect((await retry.json()).code).toBe("KEY_REVOKED");
    // The agent's other key still streams.
    expect(other.ended).toBe(false);
    await publishTo(a, agent, 1, 1);
    await other.until((e) => e.some((x) => x.event === "webhook.test"), "the other key's stream");
    other.close();
  });

  it("rotating a key without an overlap ends its streams at once; with one, when the overlap ends", async () => {
    const agent = await newAgent(a);
    const mint = async (name: string) => {
      const res = await a.http("POST", `/v1/agents/${agent.id}/keys`, { token: agent.apiKey, body: { name } });
      return { id: res.json.data.key.id as string, secret: res.json.data.secret as string };
    };
    const now = await mint("rotated now");
    const later = await mint("rotated with an overlap");
    const nowStream = await openStream(b, feedPath(agent), bearer(now.secret));
    const laterStream = await openStream(b, feedPath(agent), bearer(later.secret));
    const rotate = (id: string, overlapSeconds: number) =>
      a.http("POST", `/v1/agents/${agent.id}/keys/${id}/rotate`, { token: agent.apiKey, body: { overlapSeconds } });
    expect((await rotate(now.id, 0)).status).toBe(201);
    expect((await rotate(later.id, 3600)).status).toBe(201);
    expect(await nowStream.ends()).toBe(true);
    expect(nowStream.events.at(-1)).toMatchObject({ event: "end" });
    // The overlapped key's stream is told when its key ends, and stays open meanwhile.
    await new Promise((r) => setTimeout(r, 500));
    expect(laterStream.ended).toBe(false);
    const tracked = [...(b.ctx.streams as unknown as { streams: Set<{ credentialEndsAt: number | null }> }).streams];
    expect(
      tracked.some(
        (s) => s.credentialEndsAt !== null && Math.abs(s.credentialEndsAt - Date.now() - 3_600_000) < 60_000,
      ),
    ).toBe(true);
    laterStream.close();
  });
});

describe("suspension", () => {
  it("suspending an agent ends its open streams on every instance, and it opens no new one; other agents' streams go on", async () => {
    const operator = await newUser(a, operatorKey);
    const agent = await newAgent(a);
    const bystander = await newAgent(a);
    const poster = await newUser(a);
    const job = (await poster.client.createJob({ body: jobInput() })).data;
    const feedOnB = await openStream(b, feedPath(agent), bearer(agent.apiKey));
    const jobOnA = await openStream(a, `/v1/jobs/${job.id}/stream`, bearer(agent.apiKey));
    const other = await openStream(b, feedPath(bystander), bearer(bystander.apiKey));

    const suspended = await a.http("POST", `/v1/admin/agents/${agent.id}/suspend`, {
      token: operator.token,
      body: { reason: "streams of a suspended agent" },
    });
    expect(suspended.status, JSON.stringify(suspended.json)).toBe(200);
    for (const s of [feedOnB, jobOnA]) {
      expect(await s.ends()).toBe(true);
      expect(s.events.at(-1)).toMatchObject({ event: "end", data: { reason: "principal.suspended" } });
    }
    const again = await b.http("GET", feedPath(agent), { token: agent.apiKey });
    expect(again.status).toBe(403);
    expect(again.json.code).toBe("AGENT_SUSPENDED");
    expect(other.ended).toBe(false);
    other.close();
  });
});

describe.runIf(onPostgres)("where a new stream starts (PostgreSQL)", () => {
  it("an event committed after a stream answered 200 reaches it, even one whose transaction began before", async () => {
    const agent = await newAgent(a);
    // Another stream keeps B's bus reading, so that opening the next one waits on nothing but its start.
    const other = await newAgent(a);
    const keepAlive = await openStream(b, feedPath(other), bearer(other.apiKey));
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // A writer that holds the feed (its reads wait) while its event is not yet committed.
    const writer = a.db.transaction().execute(async (trx) => {
      await sql`lock table domain_events in access exclusive mode`.execute(trx);
      await publishEvent(trx, { type: "webhook.test", to: [agent.id], data: { n: 1 } });
      locked();
      await committed;
    });
    await holding;
    let answered = false;
    const opening = openStream(b, feedPath(agent), bearer(agent.apiKey)).then((stream) => {
      answered = true;
      return stream;
    });
    // B's read of the feed waits on the writer's lock.
    for (let i = 0; i < 200; i++) {
      const waiting = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike '%domain_events%'`.execute(
        a.db,
      );
      if (waiting.rows[0]!.n > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 500));
    const answeredBeforeCommit = answered;
    commit();
    await writer;
    const stream = await opening;
    await publishTo(a, agent, 2, 2);
    await stream.until((e) => e.some((x) => x.data.data.n === 2), "the event committed after");
    const seen = stream.events.map((e) => e.data.data.n);
    // What committed after the client had its 200 is its to get; what committed before may not be.
    expect(seen).toEqual(answeredBeforeCommit ? [1, 2] : seen[0] === 1 ? [1, 2] : [2]);
    stream.close();
    keepAlive.close();
  });
});

describe.runIf(onPostgres)("a lost LISTEN connection (PostgreSQL)", () => {
  it("events keep coming while the bus's LISTEN connection is down (they are read, not notified), once each, in order; a key revoked meanwhile ends its streams once it listens again", async () => {
    const agent = await newAgent(a);
    const minted = await a.http("POST", `/v1/agents/${agent.id}/keys`, { token: agent.apiKey, body: { name: "cut" } });
    const key = minted.json.data.secret as string;
    const stream = await openStream(b, feedPath(agent), bearer(agent.apiKey));
    const doomed = await openStream(b, feedPath(agent), bearer(key));
    await publishTo(a, agent, 1, 2);
    await stream.until((e) => e.length === 2, "before the cut");

    const bus = b.ctx.streams!.bus as DatabaseEventBus;
    const source = bus.source as unknown as { cut(hold?: boolean): () => void; listening: boolean };
    const resume = source.cut(true);
    expect(source.listening).toBe(false);
    // While B hears nothing: events, and the key's revocation.
    await publishTo(a, agent, 3, 6);
    expect(
      (await a.http("DELETE", `/v1/agents/${agent.id}/keys/${minted.json.data.key.id}`, { token: agent.apiKey }))
        .status,
    ).toBe(200);
    await stream.until((e) => e.length === 6, "while cut off");
    expect(doomed.ended).toBe(false);
    resume();

    // Listening again, B reads the open streams' keys once more: the revoked one's stream ends.
    expect(await doomed.ends()).toBe(true);
    expect(doomed.events.at(-1)).toMatchObject({ event: "end", data: { reason: "credential.ended" } });
    expect(source.listening).toBe(true);
    await publishTo(a, agent, 7, 7);
    await stream.until((e) => e.length === 7, "once listening again");
    expect(stream.events.map((e) => e.data.data.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    stream.close();
  });
});
