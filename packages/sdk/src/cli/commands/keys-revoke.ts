import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["keys", "revoke"],
  summary: "Revoke a key; its next request is refused (401 KEY_REVOKED)",
  args: ["<keyId>"],
  options: { agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" } },
  async run({ client, args, options, agentId }) {
    const { data } = await client.revokeAgentKey({ params: { id: await agentId(options.agent), keyId: args[0]! } });
    return {
      json: data,
      text: fields([
        ["key", data.id],
        ["name", data.name],
        ["status", data.status],
        ["revoked", data.revokedAt],
      ]),
    };
  },
});
