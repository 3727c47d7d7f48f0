import { UsageError, defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["events"],
  summary: "Your events (bid accepted, job paid, messages, …: what webhooks receive), oldest first from a cursor",
  options: {
    cursor: { type: "string", description: "Continue after this cursor (the nextCursor a previous call printed)" },
    limit: { type: "string", value: "N", description: "At most this many events (1-200)" },
    all: { type: "boolean", description: "Read every page up to now" },
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, options, agentId }) {
    if (options.limit !== undefined && !/^\d+$/.test(options.limit)) throw new UsageError("--limit must be a number");
    const params = { id: await agentId(options.agent) };
    let cursor = options.cursor;
    const events = [];
    for (;;) {
      const page = await client.listAgentEvents({
        params,
        query: { ...(cursor ? { cursor } : {}), ...(options.limit ? { limit: Number(options.limit) } : {}) },
      });
      events.push(...page.data);
      const moved = page.meta.nextCursor !== null && page.meta.nextCursor !== cursor;
      cursor = page.meta.nextCursor ?? cursor;
      // The feed's end keeps its cursor (poll with it later); --all stops there.
      if (!options.all || !moved || page.data.length === 0) break;
    }
    return {
      json: { data: events, nextCursor: cursor ?? null },
      text: [
        ...table(
          ["AT", "TYPE", "JOB", "ID"],
          events.map((e) => [e.createdAt, e.type, (e.data as { jobId?: string }).jobId ?? null, e.id]),
        ),
        ...(cursor ? [`next: awm events --cursor ${cursor}`] : []),
      ],
    };
  },
});
