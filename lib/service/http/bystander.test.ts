import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { demoAnswer, demoPackInput } from "@/lib/testing/demo-pack";
import { EVIL_PATTERN_ANSWER, hostilePackInput, hugeAnswerSchema, quadraticAnswer } from "@/lib/testing/hostile-packs";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newClientIp,
  newUser,
  startTestService,
  type TestService,
} from "../testing/harness";

// No single request holds the service: while the worst request of each kind an attacker found runs
// (a huge answer schema published, a backtracking pattern and a quadratic check answered in an
// approved pack, a flood of deeply nested bodies, a flood of event streams from one machine), a
// bystander's readiness probe keeps answering within a second. Before the bounds, each of these
// blocked the event loop for seconds (11.5 s, 18.7 s, stack overflows, database saturation).

let service: TestService;
beforeAll(async () => {
  const operatorKey = generatePrivateKey();
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    operatorAddresses: [privateKeyToAccount(operatorKey).address],
  });
  (globalThis as { operatorKey?: `0x${string}` }).operatorKey = operatorKey;
});
afterAll(() => service.stop());

/** Runs `count` calls of `make`, `inFlight` at a time (a flood as one machine sends it), and gives their results in order. */
async function flood<T>(count: number, inFlight: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await make(i);
      }
    }),
  );
  return results;
}

/** An attempt at the pack whose served item is the one whose prompt starts with `prefix` (the others answered on the way). */
async function servedAt(packId: string, prefix: string) {
  const agent = await newAgent(service);
  const started = await service.http("POST", `/v1/evals/packs/${packId}/attempts`, {
    token: agent.apiKey,
    body: { mode: "CLOSED_BOOK" },
  });
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  const attemptId = started.json.data.id as string;
  for (;;) {
    const next = await service.http("POST", `/v1/evals/attempts/${attemptId}/next`, { token: agent.apiKey });
    const item = next.json.data.item;
    if (item.prompt.startsWith(prefix)) return { token: agent.apiKey, attemptId, position: item.position as number };
    const other = item.prompt.startsWith("PATTERN")
      ? "plain words"
      : item.prompt.startsWith("UNIQUE")
        ? [1]
        : demoAnswer(item);
    expect(
      (
        await service.http("POST", `/v1/evals/attempts/${attemptId}/answer`, {
          token: agent.apiKey,
          body: { position: item.position, answer: other },
        })
      ).status,
    ).toBe(200);
  }
}

describe("a bystander while hostile requests run", () => {
  it("GET /v1/health/ready keeps answering, the event loop never held for 2.5 s, throughout the huge schema, the evil pattern and quadratic answers, the deep-body flood and the stream flood", async () => {
    const operator = await newUser(service, (globalThis as { operatorKey?: `0x${string}` }).operatorKey);
    const publisher = await newUser(service);
    const published = await service.http("POST", "/v1/evals/packs", {
      token: publisher.token,
      body: hostilePackInput(),
    });
    expect(published.status, JSON.stringify(published.json)).toBe(201);
    const packId = published.json.data.id as string;
    expect(
      (
        await service.http("POST", `/v1/admin/packs/${packId}/approve`, {
          token: operator.token,
          body: { reason: "hostile on purpose" },
        })
      ).status,
    ).toBe(200);
    const patternItem = await servedAt(packId, "PATTERN");
    const uniqueItem = await servedAt(packId, "UNIQUE");
    const poster = await newAgent(service);
    const job = await service.http("POST", "/v1/jobs", { token: poster.apiKey, body: jobInput() });
    expect(job.status).toBe(201);
    // Bodies made before the measure starts: the test's own work must not be what the bystander waits for.
    const hugePack = JSON.stringify(
      demoPackInput({
        items: [
          ...demoPackInput().items.slice(1),
          { kind: "STRUCTURED", prompt: "x", answerSchema: hugeAnswerSchema() },
        ],
      }),
    );
    const uniqueBody = JSON.stringify({ position: uniqueItem.position, answer: quadraticAnswer() });
    const deepIps = Array.from({ length: 10 }, () => newClientIp());
    const deepBody = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;

    // The bystander: one probe after another, each timed, until the hostile requests are done.
    let hostileDone = false;
    const latencies: number[] = [];
    const bystander = (async () => {
      while (!hostileDone) {
        const at = performance.now();
        const res = await fetch(`${service.baseUrl}/v1/health/ready`);
        await res.text();
        latencies.push(performance.now() - at);
        expect(res.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    // Let the bystander take a first measure, then start everything at once.
    await new Promise((resolve) => setTimeout(resolve, 100));

    // The largest stall of this process's event loop (server and test share it), told when the bound fails.
    let lag = 0;
    let last = performance.now();
    const lagTimer = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - last - 20);
      last = now;
    }, 20);
    const streams: AbortController[] = [];
    const openStreams: Response[] = [];
    const streamIp = newClientIp();
    const streamFlood = flood(200, 10, async () => {
      const controller = new AbortController();
      streams.push(controller);
      const res = await fetch(`${service.baseUrl}/v1/jobs/${job.json.data.id}/stream`, {
        headers: { "x-forwarded-for": streamIp },
        signal: controller.signal,
      });
      // An open stream's response is kept: one collected unread would close its connection (and free its slot).
      if (res.status === 200) openStreams.push(res);
      else await res.text();
      return res.status;
    });
    // 180 bodies from 10 clients, one at a time each, as the attack came (177 from 10 free keys in 21 s).
    const deepFlood = flood(180, 10, (i) =>
      service
        .http("POST", "/v1/agent-signups", {
          rawBody: deepBody,
          headers: { "content-type": "application/json" },
          ip: deepIps[i % 10],
        })
        .then((r) => r.status),
    );
    const [huge, pattern, unique, deep, streamStatuses] = await Promise.all([
      service.http("POST", "/v1/evals/packs", {
        token: publisher.token,
        rawBody: hugePack,
        headers: { "content-type": "application/json" },
      }),
      service.http("POST", `/v1/evals/attempts/${patternItem.attemptId}/answer`, {
        token: patternItem.token,
        body: { position: patternItem.position, answer: EVIL_PATTERN_ANSWER },
      }),
      service.http("POST", `/v1/evals/attempts/${uniqueItem.attemptId}/answer`, {
        token: uniqueItem.token,
        rawBody: uniqueBody,
        headers: { "content-type": "application/json" },
      }),
      deepFlood,
      streamFlood,
    ]);
    // Streams stay open a moment, polling, while the probe keeps measuring.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    hostileDone = true;
    await bystander;
    for (const controller of streams) controller.abort();
    expect(openStreams).toHaveLength(10);
    clearInterval(lagTimer);

    expect(huge.status).toBe(400);
    expect(pattern.status).toBe(200);
    expect(unique.status).toBe(200);
    expect(new Set(deep)).toEqual(new Set([400]));
    expect(streamStatuses.filter((s) => s === 200)).toHaveLength(10);
    expect(streamStatuses.filter((s) => s === 429)).toHaveLength(190);
    expect(latencies.length).toBeGreaterThan(3);
    // The rule is that no request holds the event loop: its largest stall stays under 2.5 s, where the
    // old code held it 11.5 s to 60 s. The stall also counts what the machine does beside this test
    // (PGlite's queries run on this same loop, and a loaded 2-core runner deschedules the process for
    // a second and more), so the bound sits between that noise and the stalls it exists to catch. A
    // probe's own time also counts the database shared with the hostile requests: bounded more loosely.
    const told = `probe latencies (ms): ${latencies.map(Math.round).join(", ")}; largest event loop stall ${Math.round(lag)} ms`;
    console.info(`bystander: ${told}`);
    expect(lag, told).toBeLessThan(2_500);
    expect(Math.max(...latencies), told).toBeLessThan(5_000);
  });
});
