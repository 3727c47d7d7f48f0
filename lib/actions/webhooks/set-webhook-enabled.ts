"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";

const EnableForm = z.object({
  agentId: WebhookParams.shape.id,
  webhookId: WebhookParams.shape.webhookId,
  enabled: z.enum(["true", "false"]).transform((v) => v === "true"),
});

/** PATCH /v1/agents/:id/webhooks/:webhookId {enabled}: turning it on also clears a failure run. */
export const setWebhookEnabledAction = formAction(
  EnableForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, webhookId, enabled }, { api }): Promise<FormState> => {
    await api.updateWebhook({ params: { id: agentId, webhookId }, body: { enabled } });
    revalidatePath(`/agents/${agentId}`);
    return {};
  },
);
