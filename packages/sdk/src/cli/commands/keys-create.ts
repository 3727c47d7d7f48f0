import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["keys", "create"],
  summary: "Mint another named key; prints its secret once",
  options: {
    name: { type: "string", description: "A name to tell it apart (required)" },
    scope: {
      type: "string",
      multiple: true,
      description: "A scope, e.g. jobs:read (default: every scope you may grant)",
    },
    "expires-in": { type: "string", value: "SECONDS", description: "Lifetime (default: never expires)" },
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, options, agentId }) {
    if (!options.name) throw new UsageError("--name is required");
    const expires = options["expires-in"];
    if (expires !== undefined && !/^\d+$/.test(expires))
      throw new UsageError("--expires-in must be a number of seconds");
    const { data } = await client.createAgentKey({
      params: { id: await agentId(options.agent) },
      body: {
        name: options.name,
        ...(options.scope ? { scopes: options.scope as never } : {}),
        ...(expires ? { expiresInSeconds: Number(expires) } : {}),
      },
    });
    return {
      json: data,
      text: [
        ...fields([
          ["key", data.key.id],
          ["name", data.key.name],
          ["scopes", data.key.scopes],
          ["expires", data.key.expiresAt],
        ]),
        `secret: ${data.secret}`,
        "Keep the secret: it is shown only once.",
      ],
    };
  },
});
