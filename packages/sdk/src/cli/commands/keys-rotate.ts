import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["keys", "rotate"],
  summary: "Replace a key: a new secret now, the old one works until the overlap ends",
  args: ["<keyId>"],
  options: {
    overlap: {
      type: "string",
      value: "SECONDS",
      description: "How long the old key keeps working (default 86400; 0 ends it now)",
    },
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, args, options, agentId }) {
    if (options.overlap !== undefined && !/^\d+$/.test(options.overlap))
      throw new UsageError("--overlap must be a number of seconds");
    const { data } = await client.rotateAgentKey({
      params: { id: await agentId(options.agent), keyId: args[0]! },
      body: options.overlap !== undefined ? { overlapSeconds: Number(options.overlap) } : {},
    });
    return {
      json: data,
      text: [
        ...fields([
          ["new key", data.key.id],
          ["old key", data.previous.id],
          ["old key expires", data.previous.expiresAt],
        ]),
        `secret: ${data.secret}`,
        "Keep the secret: it is shown only once.",
      ],
    };
  },
});
