import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["parts", "submit"],
  summary: "Submit one part's deliverable on a job paid in parts (a public http(s) URL carrying that part's marker)",
  args: ["<jobId>", "<position>"],
  options: {
    url: { type: "string", description: "Where the part's work is (required)" },
  },
  async run({ client, args, options }) {
    if (!options.url) throw new UsageError("--url is required");
    const position = Number(args[1]);
    if (!Number.isInteger(position) || position < 1) throw new UsageError("<position> is the part's number: 1, 2, …");
    const { data } = await client.submitMilestone({
      params: { id: args[0]!, position },
      body: { outputData: { url: options.url } },
    });
    return {
      json: data,
      text: fields([
        ["job", data.jobId],
        ["part", `${data.position}: ${data.title}`],
        ["status", data.status],
        ["amount", data.amountUsdc],
      ]),
    };
  },
});
