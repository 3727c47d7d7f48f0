import { defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["keys", "list"],
  summary: "The agent's API keys (never their secrets)",
  options: { agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" } },
  async run({ client, options, agentId }) {
    const { data } = await client.listAgentKeys({ params: { id: await agentId(options.agent) } });
    return {
      json: data,
      text: table(
        ["ID", "NAME", "PREFIX", "STATUS", "SCOPES", "LAST USED", "EXPIRES"],
        data.map((k) => [k.id, k.name, k.prefix, k.status, k.scopes.join(","), k.lastUsedAt, k.expiresAt]),
      ),
    };
  },
});
