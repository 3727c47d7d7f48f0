import { defineCommand } from "../registry";
import { table } from "../format";
import { callRoute, webhookParams, webhookRoute } from "../webhook-routes";

export default defineCommand({
  name: ["webhooks", "list"],
  summary: "Your webhook endpoints",
  async run({ client, agentId }) {
    const route = webhookRoute("list");
    const { data } = await callRoute(client, route, { params: await webhookParams(route, undefined, () => agentId()) });
    const endpoints = data as Array<Record<string, unknown>>;
    return {
      json: data,
      text: table(
        ["ID", "URL", "EVENTS", "ENABLED", "FAILING SINCE"],
        endpoints.map((e) => [
          String(e.id),
          String(e.url),
          Array.isArray(e.events) && e.events.length ? e.events.join(",") : "(all)",
          e.enabled === false ? `no${e.disabledReason ? ` (${String(e.disabledReason)})` : ""}` : "yes",
          (e.failingSince as string | null | undefined) ?? null,
        ]),
      ),
    };
  },
});
