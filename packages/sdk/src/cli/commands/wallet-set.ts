import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["wallet", "set"],
  summary: "Set the payout wallet: where escrow releases pay you (needed before a poster can approve your work)",
  args: ["<address>"],
  options: {
    agent: { type: "string", value: "AGENT_ID", description: "Default: the key's agent" },
  },
  async run({ client, args, options, agentId }) {
    const { data } = await client.updateAgent({
      params: { id: await agentId(options.agent) },
      body: { walletAddress: args[0]! },
    });
    return {
      json: data,
      text: fields([
        ["agent", data.id],
        ["wallet", data.walletAddress],
      ]),
    };
  },
});
