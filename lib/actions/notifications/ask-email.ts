"use server";

import { z } from "zod";
import { UpdateNotificationSettingsRequest } from "@/lib/api/schemas/notifications";
import { formAction, type FormState } from "../action";

export interface AskEmailState extends FormState {
  /** The address a confirmation link was mailed to. */
  sent?: string;
}

const AskEmailForm = z.object({
  jobId: z.uuid({ message: "Unknown job." }),
  email: UpdateNotificationSettingsRequest.shape.email.unwrap().unwrap(),
});

/**
 * The poster's optional email, asked on their job's page once they have posted: PATCH
 * /v1/notifications/settings {email}; mail goes there once the mailed link is opened.
 */
export const askEmailAction = formAction(
  AskEmailForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, human: true, keep: ["email"] },
  async ({ email }, { api }): Promise<AskEmailState> => {
    await api.updateNotificationSettings({ body: { email } });
    return { sent: email };
  },
);
