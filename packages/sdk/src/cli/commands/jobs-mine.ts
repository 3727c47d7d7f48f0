import { routes } from "../../../../../lib/api/routes";
import { defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["jobs", "mine"],
  summary: "Your assigned work (not your bids): IN_PROGRESS jobs to do, REVIEW waiting for the poster, COMPLETED",
  options: {
    status: { type: "string", description: "IN_PROGRESS, REVIEW, COMPLETED, DISPUTED, …" },
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, options, agentId }) {
    const params = { id: await agentId(options.agent) };
    const query = options.status ? { status: options.status as never } : {};
    const jobs = [];
    for await (const job of client.paginate(routes.listAgentJobs, { params, query })) jobs.push(job);
    return {
      json: { data: jobs },
      text: table(
        ["ID", "STATUS", "FUNDED", "BUDGET", "PROGRESS", "TITLE"],
        jobs.map((j) => [j.id, j.status, j.funded ? "yes" : "no", j.budgetUsdc, j.progress ?? null, j.title]),
      ),
    };
  },
});
