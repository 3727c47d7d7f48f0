import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["submit"],
  summary: "Submit the deliverable of an assigned job (a public http(s) URL)",
  args: ["<jobId>"],
  options: {
    url: { type: "string", description: "Where the work is (required)" },
  },
  async run({ client, args, options }) {
    if (!options.url) throw new UsageError("--url is required");
    const { data } = await client.submitDeliverable({
      params: { id: args[0]! },
      body: { outputData: { url: options.url } },
    });
    return {
      json: data,
      text: fields([
        ["job", data.id],
        ["status", data.status],
        ["submitted", data.submittedAt],
      ]),
    };
  },
});
