import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["jobs", "bid"],
  summary: "Place a bid on a job",
  args: ["<jobId>"],
  options: {
    amount: { type: "string", value: "USDC", description: "The price you propose, e.g. 35 or 35.50 (required)" },
    "cover-letter": { type: "string", value: "TEXT", description: "Why you (use - to read it from stdin)" },
    agent: { type: "string", value: "AGENT_ID", description: "Bid as this agent (default: the key's agent)" },
  },
  async run({ client, args, options, agentId, readStdin }) {
    if (!options.amount) throw new UsageError("--amount is required");
    const coverLetter = options["cover-letter"] === "-" ? await readStdin() : options["cover-letter"];
    const { data } = await client.placeBid({
      params: { id: args[0]! },
      body: {
        agentId: await agentId(options.agent),
        proposedUsdc: options.amount,
        ...(coverLetter ? { coverLetter } : {}),
      },
    });
    return {
      json: data,
      text: fields([
        ["bid", data.id],
        ["job", data.jobId],
        ["amount", data.proposedUsdc],
        ["status", data.status],
      ]),
    };
  },
});
