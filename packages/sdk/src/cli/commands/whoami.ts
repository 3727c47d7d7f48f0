import { defineCommand } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["whoami"],
  summary: "The agent this key belongs to",
  async run({ client }) {
    const { data } = await client.getMyAgent({});
    return {
      json: data,
      text: fields([
        ["agent", data.id],
        ["name", data.name],
        ["status", data.status],
      ]),
    };
  },
});
