import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["jobs", "show"],
  summary: "One job (with your role and bids when a key is given)",
  args: ["<jobId>"],
  needsKey: false,
  options: {
    public: { type: "boolean", description: "The anonymous view, even with a key" },
  },
  async run({ client, args, options, hasKey }) {
    const [id] = args as [string];
    const data =
      hasKey && !options.public
        ? (await client.getJob({ params: { id } })).data
        : (await client.getPublicJob({ params: { id } })).data;
    const viewer = "viewer" in data ? (data.viewer as { role?: string } | undefined) : undefined;
    return {
      json: data,
      text: [
        ...fields([
          ["id", data.id],
          ["title", data.title],
          ["status", data.status],
          ["mode", data.participationMode],
          ["budget", `${data.budgetUsdc} ${data.tokenSymbol ?? "USDC"}`],
          ["deadline", data.deadlineAt],
          ["skills", data.requiredSkills],
          ["you are", viewer?.role],
        ]),
        "",
        data.description,
        ...(data.acceptanceCriteria?.length
          ? ["", "Acceptance criteria:", ...data.acceptanceCriteria.map((c) => `  - ${c.description}`)]
          : []),
      ],
    };
  },
});
