// No post can take a page down. Every Markdown text the dashboard renders (a job's brief and its
// criteria, forum threads and replies, a job's messages) is refused at write when it nests lists,
// quotes or emphasis deeper than MARKDOWN_MAX_NESTING: "- ".repeat(3000) overflowed the parser's
// stack, and 3000 nested emphasis marks held the server for seconds, on every page that showed the
// post. A text stored before the bound is still read by the board, the forum and the job's own page,
// and the dashboard's renderer and excerpt show it as plain text without parsing it, while a
// bystander's probe keeps answering.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Markdown, MARKDOWN_MAX_NESTING, plainTextExcerpt } from "@/lib/markdown";
import { GENEROUS_BUDGETS, jobInput, newUser, startTestService, type TestService } from "../testing/harness";
import { jobWithBid } from "../testing/records-support";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

/** The hostile texts as they were found: 6,001 characters each, or a nest of emphasis. */
const DEEP = {
  list: `${"- ".repeat(3000)}x`,
  quote: `${"> ".repeat(3000)}x`,
  emphasis: `${"_a ".repeat(1000)}x${" a_".repeat(1000)}`,
};
/** Deep, but within the bound: what a person writes (five levels of lists and a quote in a quote). */
const FINE =
  "Deliver in steps:\n\n- first\n  - second\n    - third\n      1. fourth\n         - fifth **bold _and em_**\n\n> a quote\n> > quoted again\n";

function expectNestingRefused(res: { status: number; json: any }, field: string) {
  expect(res.status, JSON.stringify(res.json)).toBe(400);
  expect(res.json.code).toBe("VALIDATION_FAILED");
  expect(res.json.message).toContain(field);
  expect(res.json.message).toContain(`more than ${MARKDOWN_MAX_NESTING} levels deep`);
}

let threadCount = 0;
const threadBody = (text: string) => ({
  title: `Nesting bound thread ${++threadCount} ${Date.now()}`,
  body: text,
  category: "bidding-strategy",
});

describe("Markdown nesting is bounded at write", () => {
  it("a job's brief and criteria, at creation and in an edit: 400 VALIDATION_FAILED, nothing stored", async () => {
    const poster = await newUser(service);
    for (const [kind, text] of Object.entries(DEEP)) {
      const created = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: jobInput({ title: `Deep brief ${kind}`, description: text }),
      });
      expectNestingRefused(created, "description");
      const viaInputData = await service.http("POST", "/v1/jobs", {
        token: poster.token,
        body: jobInput({
          title: `Deep brief copy ${kind}`,
          description: undefined,
          inputData: { budgetType: "bid", generalDescription: text },
        }),
      });
      expectNestingRefused(viaInputData, "generalDescription");
    }
    const criterion = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ acceptanceCriteria: [`${"> ".repeat(200)}x`] }),
    });
    expectNestingRefused(criterion, "acceptanceCriteria");
    const mine = await service.http("GET", `/v1/jobs?posterId=${poster.id}`, { token: poster.token });
    expect(mine.json.data).toEqual([]);

    const fine = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ description: FINE, acceptanceCriteria: ["- a\n  - b\n    - c"] }),
    });
    expect(fine.status, JSON.stringify(fine.json)).toBe(201);
    const edit = await service.http("PATCH", `/v1/jobs/${fine.json.data.id}`, {
      token: poster.token,
      body: { description: DEEP.list },
    });
    expectNestingRefused(edit, "description");
    const editCriteria = await service.http("PATCH", `/v1/jobs/${fine.json.data.id}`, {
      token: poster.token,
      body: { acceptanceCriteria: ["ok criterion", `${"**".repeat(60)}x${"**".repeat(60)}`] },
    });
    expectNestingRefused(editCriteria, "acceptanceCriteria");
    const kept = await service.http("GET", `/v1/jobs/${fine.json.data.id}`, { token: poster.token });
    expect(kept.json.data.description).toBe(FINE.trim());
  });

  it("forum threads and replies, created and edited, and a job's messages: 400 VALIDATION_FAILED", async () => {
    const user = await newUser(service);
    for (const text of Object.values(DEEP)) {
      expectNestingRefused(
        await service.http("POST", "/v1/forum/threads", { token: user.token, body: threadBody(text) }),
        "body",
      );
    }
    const thread = await service.http("POST", "/v1/forum/threads", { token: user.token, body: threadBody(FINE) });
    expect(thread.status, JSON.stringify(thread.json)).toBe(201);
    const threadId = thread.json.data.id as string;
    expectNestingRefused(
      await service.http("PATCH", `/v1/forum/threads/${threadId}`, { token: user.token, body: { body: DEEP.quote } }),
      "body",
    );
    const replier = await newUser(service);
    expectNestingRefused(
      await service.http("POST", `/v1/forum/threads/${threadId}/replies`, {
        token: replier.token,
        body: { body: DEEP.emphasis },
      }),
      "body",
    );
    const reply = await service.http("POST", `/v1/forum/threads/${threadId}/replies`, {
      token: replier.token,
      body: { body: `A reply that nests fine:\n\n${FINE}` },
    });
    expect(reply.status, JSON.stringify(reply.json)).toBe(201);
    expectNestingRefused(
      await service.http("PATCH", `/v1/forum/replies/${reply.json.data.id}`, {
        token: replier.token,
        body: { body: DEEP.list },
      }),
      "body",
    );

    const { agent, jobId } = await jobWithBid(service);
    expectNestingRefused(
      await service.http("POST", `/v1/jobs/${jobId}/messages`, { token: agent.apiKey, body: { body: DEEP.quote } }),
      "body",
    );
  });
});

describe("a deep text stored before the bound", () => {
  it("is listed and read by the API, rendered and excerpted as plain text at once, and a bystander's probe keeps answering", async () => {
    const poster = await newUser(service);
    const job = await service.http("POST", "/v1/jobs", {
      token: poster.token,
      body: jobInput({ title: `Stored before the bound ${Date.now()}` }),
    });
    expect(job.status).toBe(201);
    const jobId = job.json.data.id as string;
    const user = await newUser(service);
    const thread = await service.http("POST", "/v1/forum/threads", {
      token: user.token,
      body: threadBody("A thread that is rewritten in the database below."),
    });
    expect(thread.status).toBe(201);
    // As an older version of the service stored them.
    await service.db.updateTable("jobs").set({ description: DEEP.list }).where("id", "=", jobId).execute();
    await service.db
      .updateTable("forum_threads")
      .set({ body: DEEP.quote })
      .where("id", "=", thread.json.data.id)
      .execute();

    let reading = true;
    const probes: number[] = [];
    const bystander = (async () => {
      while (reading) {
        const at = performance.now();
        const res = await fetch(`${service.baseUrl}/v1/health/ready`);
        await res.text();
        expect(res.status).toBe(200);
        probes.push(performance.now() - at);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const timings: Record<string, number> = {};
    const timed = <T>(name: string, run: () => T): T => {
      const at = performance.now();
      try {
        return run();
      } finally {
        timings[name] = Math.round(performance.now() - at);
      }
    };
    try {
      // The board and the forum list (what /jobs and /forum show), and the job's public read (its page and share page).
      const board = await service.http("GET", `/v1/jobs?posterId=${poster.id}`);
      expect(board.status).toBe(200);
      const listed = board.json.data.find((j: { id: string }) => j.id === jobId);
      expect(listed.description).toBe(DEEP.list);
      const forum = await service.http("GET", "/v1/forum/threads?limit=50");
      expect(forum.status).toBe(200);
      const listedThread = forum.json.data.find((t: { id: string }) => t.id === thread.json.data.id);
      expect(listedThread.body).toBe(DEEP.quote);
      const page = await service.http("GET", `/v1/jobs/${jobId}/public`);
      expect(page.status).toBe(200);
      const threadPage = await service.http("GET", `/v1/forum/threads/${thread.json.data.slug}`);
      expect(threadPage.status).toBe(200);

      // The dashboard's pages render them through lib/markdown: plain text, never parsed.
      const boardExcerpt = timed("board excerpt", () => plainTextExcerpt(listed.description, 240));
      expect(typeof boardExcerpt).toBe("string");
      expect(boardExcerpt.length).toBeLessThanOrEqual(240);
      const forumExcerpt = timed("forum excerpt", () => plainTextExcerpt(listedThread.body, 220));
      expect(forumExcerpt.startsWith("> > >")).toBe(true);
      for (const [name, source] of [
        ["job page", page.json.data.description as string],
        ["thread page", threadPage.json.data.body as string],
        ["emphasis", DEEP.emphasis],
      ] as const) {
        const html = timed(name, () => renderToStaticMarkup(createElement(Markdown, { source })));
        expect(html).toContain('class="md-plain');
        expect(html).not.toMatch(/<(ul|blockquote|em)>/);
        // All of it, as written (escaped).
        expect(html).toContain(source.slice(-40).replace(/>/g, "&gt;"));
      }
    } finally {
      reading = false;
      await bystander;
    }
    expect(probes.length).toBeGreaterThan(0);
    // Timings are told, not asserted: this machine is shared. Before the bound each render threw
    // "Maximum call stack size exceeded" after seconds of CPU.
    console.info(
      `deep Markdown: render/excerpt (ms) ${JSON.stringify(timings)}; bystander probes (ms): ${probes.map(Math.round).join(", ")}`,
    );
  });
});
