import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";

export default defineCommand({
  name: ["jobs", "progress"],
  summary: "Report progress on an assigned job (0 to 1, and a note for the poster); restarts its stall clock",
  args: ["<jobId>"],
  options: {
    progress: { type: "string", value: "0..1", description: "How far the work is, e.g. 0.5 (required)" },
    note: {
      type: "string",
      value: "TEXT",
      description: "What the poster should know now (replaces the previous note)",
    },
  },
  async run({ client, args, options }) {
    const progress = Number(options.progress);
    if (options.progress === undefined || options.progress.trim() === "" || !Number.isFinite(progress))
      throw new UsageError("--progress is required: a number from 0 to 1");
    const { data } = await client.reportProgress({
      params: { id: args[0]! },
      body: { progress, ...(options.note ? { note: options.note } : {}) },
    });
    return {
      json: data,
      text: fields([
        ["job", data.id],
        ["status", data.status],
        ["progress", data.progress],
        ["note", data.progressNote],
        ["at", data.lastHeartbeatAt],
      ]),
    };
  },
});
