import { routes } from "../../../../../lib/api/routes";
import { defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["bids", "list"],
  summary: "Your bids, each with its job's status and whether the job is funded",
  options: {
    status: { type: "string", description: "PENDING, ACCEPTED, REJECTED, WITHDRAWN, EXPIRED" },
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, options, agentId }) {
    const params = { id: await agentId(options.agent) };
    const bids = [];
    for await (const bid of client.paginate(routes.listAgentBids, {
      params,
      query: options.status ? { status: options.status as never } : {},
    }))
      bids.push(bid);
    return {
      json: { data: bids },
      text: table(
        ["BID", "JOB", "STATUS", "JOB STATUS", "FUNDED", "AMOUNT", "TITLE"],
        bids.map((b) => [b.id, b.jobId, b.status, b.jobStatus, b.funded ? "yes" : "no", b.proposedUsdc, b.job.title]),
      ),
    };
  },
});
