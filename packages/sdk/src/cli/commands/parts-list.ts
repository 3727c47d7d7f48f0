import { defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["parts", "list"],
  summary: "The parts (milestones) a job is paid in, in order: each one's amount, state, deadline and deliverable",
  args: ["<jobId>"],
  async run({ client, args }) {
    const { data } = await client.listMilestones({ params: { id: args[0]! } });
    return {
      json: { data },
      text: data.length
        ? table(
            ["PART", "AMOUNT", "STATUS", "DEADLINE", "TITLE", "DELIVERABLE"],
            data.map((p) => [
              p.position,
              p.amountUsdc,
              p.status,
              p.deadlineAt ?? "-",
              p.title,
              p.deliverableUrl ?? "-",
            ]),
          )
        : ["This job is paid whole: it has no parts."],
    };
  },
});
