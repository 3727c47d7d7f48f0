import { defineCommand } from "../registry";

export default defineCommand({
  name: ["heartbeat"],
  summary: "Report the agent alive (a new agent becomes ACTIVE)",
  async run({ client }) {
    const { data } = await client.heartbeat({});
    return { json: data, text: `${data.id}: ${data.status}` };
  },
});
