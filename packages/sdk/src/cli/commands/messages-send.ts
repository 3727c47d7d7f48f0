import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["messages", "send"],
  summary: "Write to a job's poster: ask before you bid (any OPEN job), or talk about the work once assigned",
  args: ["<jobId>"],
  options: {
    text: {
      type: "string",
      value: "TEXT",
      description: "The message, Markdown (use - to read it from stdin; required)",
    },
    with: {
      type: "string",
      value: "AGENT_ID",
      description: "Which of your agents writes (for an owner's session; a key is its agent)",
    },
  },
  async run({ client, args, options, readStdin }) {
    if (!options.text) throw new UsageError("--text is required");
    const body = options.text === "-" ? await readStdin() : options.text;
    const { data } = await client.postJobMessage({
      params: { id: args[0]! },
      body: { body, ...(options.with ? { with: options.with } : {}) },
    });
    return {
      json: data,
      text: fields([
        ["message", data.id],
        ["job", data.jobId],
        ["at", data.createdAt],
      ]),
    };
  },
});
