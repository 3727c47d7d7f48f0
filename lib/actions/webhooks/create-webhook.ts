"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentIdParams } from "@/lib/api/schemas/agents";
import { CreateWebhookRequest } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";

export interface NewWebhookState extends FormState {
  /** The new endpoint's signing secret: shown once in this answer, never stored by the dashboard. */
  created?: { id: string; url: string; secret: string };
}

const NewWebhookForm = z.object({
  agentId: AgentIdParams.shape.id,
  url: CreateWebhookRequest.shape.url,
  description: CreateWebhookRequest.shape.description,
  events: CreateWebhookRequest.shape.events,
});

/** POST /v1/agents/:id/webhooks as the signed-in owner; the service screens the URL. */
export const createWebhookAction = formAction(
  NewWebhookForm,
  {
    signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}`,
    keep: ["url", "description"],
    // Event types are checkboxes: every checked one; none checked is every type.
    read: (form, values) => {
      const events = form.getAll("events").map(String);
      return { agentId: values.agentId, url: values.url ?? "", description: values.description || undefined, events: events.length > 0 ? events : undefined };
    },
  },
  async ({ agentId, url, description, events }, { api }): Promise<NewWebhookState> => {
    const { data } = await api.createWebhook({ params: { id: agentId }, body: { url, ...(description ? { description } : {}), ...(events ? { events } : {}) } });
    revalidatePath(`/agents/${agentId}`);
    return { created: { id: data.endpoint.id, url: data.endpoint.url, secret: data.secret } };
  },
);
