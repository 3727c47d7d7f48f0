import { defineCommand } from "../registry";
import { table } from "../format";
import { callRoute, webhookParams, webhookRoute } from "../webhook-routes";

export default defineCommand({
  name: ["webhooks", "deliveries"],
  summary: "An endpoint's delivery log (newest first)",
  args: ["<endpointId>"],
  options: {
    limit: { type: "string", value: "N", description: "How many (one page)" },
    status: { type: "string", description: "PENDING, DELIVERED or FAILED" },
  },
  async run({ client, args, options, agentId }) {
    const route = webhookRoute("deliveries");
    const page = await callRoute(client, route, {
      params: await webhookParams(route, args[0], () => agentId()),
      query: {
        ...(options.limit ? { limit: Number(options.limit) } : {}),
        ...(options.status ? { status: options.status } : {}),
      },
    });
    const rows = page.data as Array<Record<string, unknown>>;
    return {
      json: { data: rows, nextCursor: page.meta?.nextCursor ?? null },
      text: table(
        ["ID", "EVENT", "STATUS", "ATTEMPTS", "LAST HTTP", "CREATED"],
        rows.map((d) => [
          String(d.id),
          String(d.eventType ?? "-"),
          String(d.status ?? "-"),
          d.attempts as number,
          (d.lastStatusCode as number | null) ?? (d.lastError as string | null),
          String(d.createdAt ?? "-"),
        ]),
      ),
    };
  },
});
