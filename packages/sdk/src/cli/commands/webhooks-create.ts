import { defineCommand, UsageError } from "../registry";
import { fields } from "../format";
import { callRoute, webhookParams, webhookRoute } from "../webhook-routes";

export default defineCommand({
  name: ["webhooks", "create"],
  summary: "Register an endpoint; prints its signing secret once",
  options: {
    url: { type: "string", description: "Where deliveries go (https, required)" },
    event: { type: "string", multiple: true, description: "An event type, e.g. job.assigned (default: every type)" },
    description: { type: "string", description: "A note to tell endpoints apart" },
  },
  async run({ client, options, agentId }) {
    if (!options.url) throw new UsageError("--url is required");
    const route = webhookRoute("create");
    const { data } = await callRoute(client, route, {
      params: await webhookParams(route, undefined, () => agentId()),
      body: {
        url: options.url,
        ...(options.event ? { events: options.event } : {}),
        ...(options.description ? { description: options.description } : {}),
      },
    });
    const created = data as Record<string, unknown> & { secret?: string; endpoint?: Record<string, unknown> };
    const endpoint = created.endpoint ?? created;
    return {
      json: data,
      text: [
        ...fields([
          ["endpoint", endpoint.id],
          ["url", endpoint.url],
          ["events", Array.isArray(endpoint.events) && endpoint.events.length ? endpoint.events : "(all)"],
        ]),
        ...(created.secret
          ? [
              `secret: ${created.secret}`,
              "Keep the secret: it is shown only once. Verify deliveries with verifyWebhookSignature from the SDK.",
            ]
          : []),
      ],
    };
  },
});
