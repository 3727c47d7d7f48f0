import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_SEARCH_RANKED } from "@/lib/api/schemas/jobs";
import { jobInput, newAgent, newUser, startTestService, type TestAgent, type TestService } from "../testing/harness";

let service: TestService;
let poster: TestAgent;
// Words no other test's job holds, so searches in the shared database see only these jobs.
const tag = () => `zq${randomBytes(5).toString("hex")}`;
const ids: Record<string, string> = {};
let packId = "";
const word = tag();
const titleWord = tag();

beforeAll(async () => {
  service = await startTestService();
  poster = await newAgent(service);
  const post = async (name: string, overrides: Record<string, unknown>) => {
    const res = await service.http("POST", "/v1/jobs", { token: poster.apiKey, body: jobInput(overrides) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    ids[name] = res.json.data.id;
    if (res.json.data.requiredPackId) packId = res.json.data.requiredPackId;
  };
  const soon = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  // Posted in this order, so newest is e, d, c, b, a.
  await post("a", {
    title: "Translate product pages",
    description: `Translate the pages; the glossary mentions ${word} twice.`,
    budget: "10",
    requiredSkills: ["Translation"],
    deadlineAt: soon(9),
  });
  await post("b", {
    title: `Audit the ${titleWord} contract`,
    description: `An audit of a solidity contract, ${word} included.`,
    budget: "50.5",
    preferredSkills: ["solidity"],
    deadlineAt: soon(3),
  });
  await post("c", {
    title: "Label images for a classifier",
    description: "Label 500 images of street signs with bounding boxes.",
    budget: "25",
    requiredPackId: "lead-generation-verified",
    participationMode: "BOUNTY",
  });
  await post("d", {
    title: "Summarise research papers",
    description: `Summaries of ten papers about ${titleWord} in plain language.`,
    budget: "25",
    requiredSkills: ["research", "Writing"],
    deadlineAt: soon(5),
  });
  await post("e", {
    title: "Write a landing page",
    description: "Copy for a landing page of a developer tool, 300 words.",
    budget: "75",
  });
  // Bids: d gets two, a one, the rest none.
  for (const [job, count] of [
    ["d", 2],
    ["a", 1],
  ] as const) {
    for (let i = 0; i < count; i += 1) {
      const bidder = await newAgent(service);
      const bid = await service.http("POST", `/v1/jobs/${ids[job]}/bids`, {
        token: bidder.apiKey,
        body: { agentId: bidder.id, proposedUsdc: "5" },
      });
      expect(bid.status, JSON.stringify(bid.json)).toBe(201);
    }
  }
});
afterAll(() => service.stop());

let principal: string | undefined;
/** The list of this file's jobs only (their poster's), as any anonymous caller reads it. */
async function list(query: string) {
  principal ??= (await service.http("GET", `/v1/jobs/${ids.a}/public`)).json.data.posterId as string;
  const res = await service.http("GET", `/v1/jobs?posterId=${principal}&${query}`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { data: Array<{ id: string; bidCount: number }>; meta: { nextCursor: string | null } };
}
const names = (rows: Array<{ id: string }>) =>
  rows.map((row) => Object.keys(ids).find((name) => ids[name] === row.id) ?? row.id);

/** Every page of a query, two rows at a time, checking that no row repeats. */
async function allPages(query: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10; pages += 1) {
    const page = await list(`${query}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
    seen.push(...names(page.data));
    cursor = page.meta.nextCursor;
    if (!cursor) break;
  }
  expect(new Set(seen).size).toBe(seen.length);
  return seen;
}

describe("GET /v1/jobs search", () => {
  it("finds a job by a word of its description, anonymously", async () => {
    const res = await service.http("GET", `/v1/jobs?q=${word}`);
    expect(res.status).toBe(200);
    expect(names(res.json.data).sort()).toEqual(["a", "b"]);
  });

  it("stems English words (papers finds paper) and ranks title matches above description-only ones", async () => {
    expect(names((await list("q=summarising+paper")).data)).toEqual(["d"]);
    // titleWord is in b's title and d's description: b first, though d is newer.
    const res = await service.http("GET", `/v1/jobs?q=${titleWord}`);
    expect(names(res.json.data)).toEqual(["b", "d"]);
  });

  it("reads web-search syntax: -word excludes, or between alternatives", async () => {
    expect(names((await list(`q=${word}+-translate`)).data)).toEqual(["b"]);
    expect(names((await list(`q=landing+or+classifier&sort=newest`)).data)).toEqual(["e", "c"]);
  });

  it("pages relevance results by keyset without repeats or gaps", async () => {
    expect(await allPages(`q=${word}+or+${titleWord}+or+landing`)).toHaveLength(4);
  });

  it(`ranks the newest ${JOB_SEARCH_RANKED} matches by relevance, and other sorts page through every match`, async () => {
    const common = tag();
    // A poster of its own: the other tests list their poster's jobs.
    const other = await newAgent(service);
    // The oldest match is the best one (the word in its title) and the dearest.
    const best = await service.http("POST", "/v1/jobs", {
      token: other.apiKey,
      body: jobInput({ title: `The ${common} job`, description: "Written before all the others.", budget: "900" }),
    });
    expect(best.status, JSON.stringify(best.json)).toBe(201);
    // Then JOB_SEARCH_RANKED newer jobs with the word in their description alone, written in SQL
    // (thousands of posts over HTTP would be the test's whole time).
    const posterId = best.json.data.posterId as string;
    await sql`
      insert into jobs (poster_id, status, participation_mode, template_id, title, description, budget_usdc, input_data, escrow_job_id, chain_id, token_symbol, token_address, payment_provider, acceptance_criteria, created_at)
      select ${posterId}::uuid, 'OPEN', 'BID', 'custom-v1', 'Filler ' || g, 'A filler job about ' || ${common} || '.', 10,
             '{"budgetType":"bid","proofHoldHours":168,"participationMode":"BID","generalDescription":"filler","acceptanceCriteria":[{"description":"done"}]}'::jsonb, '0x' || md5(${common} || g) || md5(g || ${common}), 31337, 'USDC',
             '0x1111111111111111111111111111111111111111', 'ON_CHAIN_USDC', '[{"id":"ac-1","check":{"type":"manual"},"description":"done"}]'::jsonb, now() + (g || ' milliseconds')::interval
      from generate_series(1, ${JOB_SEARCH_RANKED}) g`.execute(service.db);

    const relevance = await service.http("GET", `/v1/jobs?q=${common}&limit=100`);
    expect(relevance.status).toBe(200);
    expect(relevance.json.data).toHaveLength(100);
    expect(relevance.json.data.map((job: { id: string }) => job.id)).not.toContain(best.json.data.id);
    const byBudget = await service.http("GET", `/v1/jobs?q=${common}&sort=budget_desc&limit=1`);
    expect(byBudget.json.data.map((job: { id: string }) => job.id)).toEqual([best.json.data.id]);
  });

  it("refuses a bad q or sort with a 400", async () => {
    for (const query of [
      `q=${"x".repeat(201)}`,
      "q=%20",
      "sort=cheapest",
      "sort=relevance",
      "minBudget=abc",
      "minBudget=9&maxBudget=3",
      "cursor=abc",
    ]) {
      const res = await service.http("GET", `/v1/jobs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.statusCode).toBe(400);
    }
    // Cursors the list never wrote: a date that does not exist, a rank out of a real's range.
    const cursor = (k: string) => Buffer.from(JSON.stringify([k, ids.a])).toString("base64url");
    for (const query of [
      `cursor=${cursor("2026-02-30T00:00:00.000Z")}`,
      `sort=deadline&cursor=${cursor("deadline|2026-02-30T00:00:00.000Z|2026-01-01T00:00:00.000Z")}`,
      `q=${word}&cursor=${cursor(`relevance|1${"0".repeat(40)}|2026-01-01T00:00:00.000Z`)}`,
      `sort=fewest_bids&cursor=${cursor("fewest_bids|-1|2026-01-01T00:00:00.000Z")}`,
    ]) {
      const res = await service.http("GET", `/v1/jobs?${query}`);
      expect(res.status, query).toBe(400);
    }
    // A cursor of one sort is refused by another.
    const page = await list("sort=budget_desc&limit=1");
    const other = await service.http("GET", `/v1/jobs?sort=deadline&cursor=${page.meta.nextCursor}`);
    expect(other.status).toBe(400);
  });
});

describe("GET /v1/jobs filters", () => {
  it("filters by skills (any of, ignoring case, required or preferred)", async () => {
    expect(names((await list("skills=SOLIDITY,translation")).data)).toEqual(["b", "a"]);
    expect(names((await list("skills=writing")).data)).toEqual(["d"]);
  });

  it("filters by budget range, inclusive", async () => {
    expect(names((await list("minBudget=25&maxBudget=50.5")).data)).toEqual(["d", "c", "b"]);
  });

  it("filters by mode, status, funded and required pack", async () => {
    expect(names((await list("participationMode=BOUNTY")).data)).toEqual(["c"]);
    expect(names((await list(`requiredPackId=${packId}`)).data)).toEqual(["c"]);
    expect(names((await list("status=OPEN&funded=false")).data)).toEqual(["e", "d", "c", "b", "a"]);
    expect((await list("funded=true")).data).toEqual([]);
    expect((await list("status=COMPLETED")).data).toEqual([]);
  });

  it("keeps forum reward and referral slots off the marketplace board and on the rewards board", async () => {
    const sponsor = await newUser(service);
    for (const kind of ["THREAD", "REFERRAL"] as const) {
      const created = await service.http("POST", "/v1/forum/reward-campaigns", {
        token: sponsor.token,
        body: { kind, slots: 1, funding: "SPONSOR" },
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
    }
    const mine = async (query: string) =>
      (await service.http("GET", `/v1/jobs?posterId=${sponsor.id}&${query}`)).json.data as Array<{
        participationMode: string;
        purpose: string;
      }>;
    expect(await mine("board=marketplace")).toEqual([]);
    const slots = await mine("board=rewards");
    expect(slots.map((job) => `${job.purpose}/${job.participationMode}`).sort()).toEqual([
      "MARKETPLACE/AUTOMATIC_FORUM_REWARD",
      "PLATFORM_REFERRAL/AUTOMATIC_FORUM_REWARD",
    ]);
    // The API's default list keeps every job; purpose filters too.
    expect(await mine("")).toHaveLength(2);
    expect(await mine("purpose=PLATFORM_REFERRAL")).toHaveLength(1);
    // Marketplace jobs are on the marketplace board only.
    expect(names((await list("board=marketplace")).data)).toEqual(["e", "d", "c", "b", "a"]);
    expect((await list("board=rewards")).data).toEqual([]);
  });
});

describe("GET /v1/jobs sorts, each paged by keyset", () => {
  it("carries bidCount on each row", async () => {
    const rows = (await list("")).data;
    expect(Object.fromEntries(rows.map((row) => [names([row])[0], row.bidCount]))).toEqual({
      a: 1,
      b: 0,
      c: 0,
      d: 2,
      e: 0,
    });
  });

  it("bidCount stays exact when bids arrive at once, and a refused second bid of one agent counts nothing", async () => {
    const owner = await newAgent(service);
    const posted = await service.http("POST", "/v1/jobs", {
      token: owner.apiKey,
      body: jobInput({ title: "Counted bids" }),
    });
    expect(posted.status).toBe(201);
    const jobId = posted.json.data.id as string;
    const bidders = await Promise.all(Array.from({ length: 12 }, () => newAgent(service)));
    const bid = (agent: TestAgent) =>
      service.http("POST", `/v1/jobs/${jobId}/bids`, {
        token: agent.apiKey,
        body: { agentId: agent.id, proposedUsdc: "5" },
      });
    // Twelve agents at once, and the first of them twice more at the same moment.
    const results = await Promise.all([...bidders.map(bid), bid(bidders[0]!), bid(bidders[0]!)]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(12);
    expect(results.filter((r) => r.status === 409).map((r) => r.json.code)).toEqual([
      "BID_ALREADY_PLACED",
      "BID_ALREADY_PLACED",
    ]);
    const board = await service.http("GET", `/v1/jobs?posterId=${posted.json.data.posterId}`);
    expect(board.json.data.map((job: { id: string; bidCount: number }) => [job.id, job.bidCount])).toEqual([
      [jobId, 12],
    ]);
  });

  it.each([
    ["newest", ["e", "d", "c", "b", "a"]],
    ["budget_desc", ["e", "b", "d", "c", "a"]],
    ["budget_asc", ["a", "d", "c", "b", "e"]],
    ["deadline", ["b", "d", "a", "e", "c"]],
    ["fewest_bids", ["e", "c", "b", "a", "d"]],
  ])("sort=%s", async (sort, expected) => {
    expect(await allPages(`sort=${sort}`)).toEqual(expected);
  });
});

describe("GET /v1/openapi.json", () => {
  it("documents the board's search, filters and sorts as query parameters", async () => {
    const doc = (await service.http("GET", "/v1/openapi.json")).json;
    const parameters = doc.paths["/v1/jobs"].get.parameters as Array<{
      name: string;
      in: string;
      schema: { description?: string; enum?: string[] };
    }>;
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p]));
    for (const name of [
      "q",
      "skills",
      "minBudget",
      "maxBudget",
      "board",
      "purpose",
      "requiredPackId",
      "sort",
      "status",
      "funded",
      "participationMode",
      "excludeBidBy",
      "cursor",
      "limit",
    ]) {
      expect(byName[name]?.in, name).toBe("query");
    }
    expect(JSON.stringify(byName.sort)).toContain("fewest_bids");
    expect(JSON.stringify(byName.skills)).toContain("ANY");
  });
});
