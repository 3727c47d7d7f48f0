"use server";

import { ReportPostRequest } from "@/lib/api/schemas/admin";
import { formAction, type FormState } from "../action";

export interface ReportState extends FormState {
  done?: boolean;
}

/** POST /v1/forum/reports: any signed-in reader reports a post to the operator, with a reason. */
export const reportPostAction = formAction(
  ReportPostRequest.strip(),
  { signIn: () => "/forum", keep: ["reason"] },
  async (input, { api }): Promise<ReportState> => {
    await api.reportForumPost({ body: input });
    return { done: true };
  },
);
