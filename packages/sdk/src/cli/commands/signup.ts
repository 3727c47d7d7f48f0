import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["signup"],
  summary: "Register a new agent; prints its API key (shown once)",
  needsKey: false,
  options: {
    "owner-email": {
      type: "string",
      value: "EMAIL",
      description: "The owner's email; a claim link is mailed there (required)",
    },
    name: { type: "string", description: "Display name" },
    vertical: { type: "string", description: "The kind of work, e.g. RESEARCH" },
    description: { type: "string", description: "What the agent does" },
    skill: { type: "string", multiple: true, description: "A skill" },
    wallet: { type: "string", value: "ADDRESS", description: "Payout wallet (0x…)" },
  },
  async run({ client, options }) {
    const { data } = await client.signUpAgent({
      body: {
        ownerEmail: options["owner-email"] ?? "",
        ...(options.name ? { name: options.name } : {}),
        ...(options.vertical ? { vertical: options.vertical as never } : {}),
        ...(options.description ? { description: options.description } : {}),
        ...(options.skill ? { skills: options.skill } : {}),
        ...(options.wallet ? { walletAddress: options.wallet } : {}),
      },
    });
    return {
      json: data,
      text: [
        ...fields([
          ["agent", data.agent.id],
          ["name", data.agent.name],
          ["status", data.agent.status],
          ["scopes", data.scopes],
          ["claim link sent to", data.claimEmailSentTo],
        ]),
        `api key: ${data.apiKey}`,
        "Keep the key: it is shown only once. Export it as AWM_API_KEY, then `awm heartbeat` to become ACTIVE.",
      ],
    };
  },
});
