"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { WebhookParams } from "@/lib/api/schemas/webhooks";
import { formAction, type FormState } from "../action";
import { OwnerField, pageOfEndpoints, signInTo } from "./endpoint-owner";

const EnableForm = z.object({
  agentId: OwnerField,
  webhookId: WebhookParams.shape.webhookId,
  enabled: z.enum(["true", "false"]).transform((v) => v === "true"),
});

/** PATCH …/webhooks/:webhookId {enabled}: turning it on also clears a failure run. */
export const setWebhookEnabledAction = formAction(
  EnableForm,
  { signIn: signInTo },
  async ({ agentId, webhookId, enabled }, { api }): Promise<FormState> => {
    if (agentId) await api.updateWebhook({ params: { id: agentId, webhookId }, body: { enabled } });
    else await api.updateMyWebhook({ params: { webhookId }, body: { enabled } });
    revalidatePath(pageOfEndpoints(agentId));
    return {};
  },
);
