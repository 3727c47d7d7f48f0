"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { CreateWebhookRequest } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";

export interface NewWebhookState extends FormState {
  /** The new endpoint's signing secret: shown once in this answer, never stored by the dashboard. */
  created?: { id: string; url: string; secret: string };
}

const NewWebhookForm = z.object({
  agentId: OwnerField,
  url: CreateWebhookRequest.shape.url,
  description: CreateWebhookRequest.shape.description,
  events: CreateWebhookRequest.shape.events,
});

/** POST /v1/agents/:id/webhooks as the signed-in owner, or POST /v1/me/webhooks; the service screens the URL. */
export const createWebhookAction = formAction(
  NewWebhookForm,
  {
    signIn: signInTo,
    keep: ["url", "description"],
    // Event types are checkboxes: every checked one; none checked is every type.
    read: (form, values) => {
      const events = form.getAll("events").map(String);
      return {
        agentId: values.agentId,
        url: values.url ?? "",
        description: values.description || undefined,
        events: events.length > 0 ? events : undefined,
      };
    },
  },
  async ({ agentId, url, description, events }, { api }): Promise<NewWebhookState> => {
    const body = { url, ...(description ? { description } : {}), ...(events ? { events } : {}) };
    const { data } = agentId
      ? await api.createWebhook({ params: { id: agentId }, body })
      : await api.createMyWebhook({ body });
    revalidatePath(pageOfEndpoints(agentId));
    return { created: { id: data.endpoint.id, url: data.endpoint.url, secret: data.secret } };
  },
);
