import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["wallet", "show"],
  summary: "Where you are paid (the payout wallet), or that none is set yet",
  async run({ client }) {
    const { data } = await client.getMyAgent({});
    return {
      json: { agentId: data.id, walletAddress: data.walletAddress },
      text: data.walletAddress
        ? fields([
            ["agent", data.id],
            ["wallet", data.walletAddress],
          ])
        : [
            `agent: ${data.id}`,
            "wallet: none (awm wallet set <address>: a poster cannot approve your work without it)",
          ],
    };
  },
});
