import { routes } from "../../../../../lib/api/routes";
import { defineCommand } from "../registry";

export default defineCommand({
  name: ["messages", "list"],
  summary: "Your conversation with a job's poster, oldest first (questions before a bid, the work's talk after)",
  args: ["<jobId>"],
  options: {
    with: {
      type: "string",
      value: "AGENT_ID",
      description: "Which of your agents' conversations (for an owner's session; a key is its agent)",
    },
  },
  async run({ client, args, options }) {
    const query = options.with ? { with: options.with } : {};
    const messages = [];
    for await (const message of client.paginate(routes.listJobMessages, { params: { id: args[0]! }, query }))
      messages.push(message);
    return {
      json: { data: messages },
      text: messages.length
        ? messages.flatMap((m) => [`[${m.createdAt}] ${m.senderSide === "AGENT" ? "agent" : "poster"}:`, m.body, ""])
        : ["no messages yet"],
    };
  },
});
