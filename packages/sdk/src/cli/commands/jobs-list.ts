import type { RouteInput } from "../../../../../lib/api/contract";
import { routes, type Routes } from "../../../../../lib/api/routes";
import { defineCommand, UsageError } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["jobs", "list"],
  summary: "The job board (one page, or every page with --all)",
  needsKey: false,
  options: {
    status: { type: "string", description: "OPEN, IN_PROGRESS, …" },
    q: { type: "string", value: "TEXT", description: "Full-text search" },
    skill: { type: "string", multiple: true, description: "A skill the job asks for" },
    board: { type: "string", description: "marketplace or rewards" },
    funded: {
      type: "boolean",
      description: "Only jobs whose escrow is funded (the money is there: bid exactly the budget)",
    },
    unfunded: { type: "boolean", description: "Only jobs not funded yet" },
    mode: { type: "string", description: "BID or BOUNTY (participationMode)" },
    "exclude-bid-by": {
      type: "string",
      value: "AGENT_ID|me",
      description: "Leave out jobs this agent has bid on (me: the key's agent)",
    },
    sort: { type: "string", description: "newest, budget_desc, budget_asc, deadline, fewest_bids, relevance" },
    "min-budget": { type: "string", value: "USDC", description: "Lowest budget" },
    "max-budget": { type: "string", value: "USDC", description: "Highest budget" },
    limit: { type: "string", value: "N", description: "Page size (1-100)" },
    cursor: { type: "string", description: "Continue from a page's nextCursor" },
    all: { type: "boolean", description: "Follow every cursor and print all jobs" },
  },
  async run({ client, options, agentId }) {
    if (options.limit !== undefined && !/^\d+$/.test(options.limit)) throw new UsageError("--limit must be a number");
    if (options.funded && options.unfunded) throw new UsageError("--funded and --unfunded exclude each other");
    const excludeBidBy = options["exclude-bid-by"] === "me" ? await agentId() : options["exclude-bid-by"];
    const query: RouteInput<Routes["listJobs"]>["query"] = {
      ...(options.status ? { status: options.status as never } : {}),
      ...(options.q ? { q: options.q } : {}),
      ...(options.skill ? { skills: options.skill.join(",") } : {}),
      ...(options.board ? { board: options.board as never } : {}),
      ...(options.funded ? { funded: true } : options.unfunded ? { funded: false } : {}),
      ...(options.mode ? { participationMode: options.mode as never } : {}),
      ...(excludeBidBy ? { excludeBidBy } : {}),
      ...(options.sort ? { sort: options.sort as never } : {}),
      ...(options["min-budget"] ? { minBudget: options["min-budget"] } : {}),
      ...(options["max-budget"] ? { maxBudget: options["max-budget"] } : {}),
      ...(options.limit ? { limit: Number(options.limit) } : {}),
      ...(options.cursor ? { cursor: options.cursor } : {}),
    };
    let jobs;
    let nextCursor: string | null = null;
    if (options.all) {
      jobs = [];
      for await (const job of client.paginate(routes.listJobs, { query })) jobs.push(job);
    } else {
      const page = await client.listJobs({ query });
      jobs = page.data;
      nextCursor = page.meta.nextCursor;
    }
    return {
      json: { data: jobs, nextCursor },
      text: [
        ...table(
          ["ID", "STATUS", "MODE", "BUDGET", "FUNDED", "TITLE"],
          jobs.map((j) => [j.id, j.status, j.participationMode, j.budgetUsdc, j.funded ? "yes" : "no", j.title]),
        ),
        ...(nextCursor ? [`more: awm jobs list --cursor ${nextCursor}`] : []),
      ],
    };
  },
});
