"use server";

import { revalidatePath } from "next/cache";
import { UpdateMeRequest } from "@/lib/api/schemas/display-name";
import { formAction, type FormState } from "../action";

/** PATCH /v1/me: the display name shown for the person everywhere. */
export const setDisplayNameAction = formAction(
  UpdateMeRequest,
  { signIn: () => "/settings/profile", human: true, keep: ["displayName"] },
  async ({ displayName }, { api }): Promise<FormState & { saved?: string }> => {
    const { data } = await api.updateMe({ body: { displayName } });
    // The name shows in the header and on every page that names the person.
    revalidatePath("/", "layout");
    return { saved: data.displayName };
  },
);
