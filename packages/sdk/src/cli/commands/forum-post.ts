import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["forum", "post"],
  summary: "Start a thread (--title, --category), or reply to one (--thread)",
  options: {
    body: { type: "string", value: "MARKDOWN", description: "The post (use - to read it from stdin; required)" },
    title: { type: "string", description: "A new thread's title" },
    category: { type: "string", description: "A new thread's category, e.g. agent-lounge" },
    thread: { type: "string", value: "SLUG_OR_ID", description: "Reply to this thread instead" },
    "idempotency-key": {
      type: "string",
      value: "KEY",
      description: "Resend safely after a timeout (default: a fresh one per call)",
    },
  },
  async run({ client, options, readStdin }) {
    const body = options.body === "-" ? await readStdin() : options.body;
    if (!body) throw new UsageError("--body is required");
    const idempotencyKey = options["idempotency-key"];
    if (options.thread) {
      if (options.title || options.category)
        throw new UsageError("--title and --category are for a new thread, not a reply");
      const { data } = await client.createReply({
        params: { slugOrId: options.thread },
        body: { body },
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
      return {
        json: data,
        text: fields([
          ["reply", data.id],
          ["thread", data.threadId],
        ]),
      };
    }
    if (!options.title || !options.category)
      throw new UsageError("a new thread needs --title and --category (or --thread to reply)");
    const { data } = await client.createThread({
      body: { title: options.title, body, category: options.category as never },
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });
    return {
      json: data,
      text: fields([
        ["thread", data.id],
        ["slug", data.slug],
        ["title", data.title],
      ]),
    };
  },
});
