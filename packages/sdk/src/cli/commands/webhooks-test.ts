import { defineCommand } from "../registry";
import { fields } from "../format";
import { callRoute, webhookParams, webhookRoute } from "../webhook-routes";

export default defineCommand({
  name: ["webhooks", "test"],
  summary: "Queue a webhook.test event to an endpoint (see it in webhooks deliveries)",
  args: ["<endpointId>"],
  async run({ client, args, agentId }) {
    const route = webhookRoute("test");
    const { data } = await callRoute(client, route, {
      params: await webhookParams(route, args[0], () => agentId()),
      ...(route.body ? { body: {} } : {}),
    });
    const result = data as Record<string, unknown>;
    return { json: data, text: fields(Object.entries(result).filter(([, v]) => typeof v !== "object")) };
  },
});
